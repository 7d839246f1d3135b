package io.grove.bench.ycsb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.UnaryOperator;
import org.lmdbjava.CursorIterable;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.KeyRange;
import org.lmdbjava.Txn;

/**
 * YCSB binding: LMDB through lmdbjava, a B+tree in a memory-mapped file (ordered: scans for workload E), in a new
 * file under {@code java.io.tmpdir} deleted at close, durability as the bench's {@code lmdb} contender
 * ({@code MDB_NOSYNC} + {@code MDB_NOMETASYNC}: commits reach the page cache, never forced). A read runs in the
 * thread's own read transaction, renewed before and reset after each read or scan; a put, update or delete is one
 * write transaction (LMDB admits one writer at a time, which also makes an update's read-modify-write atomic). The
 * map size is {@code -p lmdb.mapsize} bytes (default 8 GiB; the file is sparse).
 */
public final class LmdbDb extends MapDb {
    @Override
    YcsbStore open(Properties properties) {
        try {
            Path file = Files.createTempFile("grove-ycsb-lmdb-", ".mdb");
            Files.delete(file); // LMDB creates it
            long mapSize = Long.parseLong(properties.getProperty("lmdb.mapsize", Long.toString(8L << 30)));
            Env<ByteBuffer> env = Env.create().setMapSize(mapSize).setMaxDbs(1).setMaxReaders(256).open(file.toFile(),
                    EnvFlags.MDB_NOSUBDIR, EnvFlags.MDB_NOSYNC, EnvFlags.MDB_NOMETASYNC, EnvFlags.MDB_NOTLS);
            return new Store(env, env.openDbi("ycsb", DbiFlags.MDB_CREATE), file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One thread's direct buffers and read transaction. */
    private static final class Local {
        final ByteBuffer key = ByteBuffer.allocateDirect(511); // LMDB's largest key
        ByteBuffer value = ByteBuffer.allocateDirect(4096);
        final Txn<ByteBuffer> read;

        Local(Env<ByteBuffer> env) {
            read = env.txnRead();
            read.reset();
        }

        ByteBuffer key(String text) {
            return key.clear().put(text.getBytes(StandardCharsets.UTF_8)).flip();
        }

        ByteBuffer value(byte[] record) {
            if (value.capacity() < record.length) {
                value = ByteBuffer.allocateDirect(Integer.highestOneBit(record.length) << 1);
            }
            return value.clear().put(record).flip();
        }
    }

    private static final class Store implements YcsbStore {
        private final Env<ByteBuffer> env;
        private final Dbi<ByteBuffer> dbi;
        private final Path file;
        private final List<Local> locals = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final ThreadLocal<Local> local;

        Store(Env<ByteBuffer> env, Dbi<ByteBuffer> dbi, Path file) {
            this.env = env;
            this.dbi = dbi;
            this.file = file;
            this.local = ThreadLocal.withInitial(() -> {
                Local l = new Local(env);
                locals.add(l);
                return l;
            });
        }

        private static byte[] bytes(ByteBuffer buffer) {
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return bytes;
        }

        @Override
        public byte[] get(String key) {
            Local l = local.get();
            l.read.renew();
            try {
                ByteBuffer value = dbi.get(l.read, l.key(key));
                return value == null ? null : bytes(value);
            } finally {
                l.read.reset();
            }
        }

        @Override
        public void put(String key, byte[] record) {
            Local l = local.get();
            dbi.put(l.key(key), l.value(record));
        }

        @Override
        public boolean update(String key, UnaryOperator<byte[]> change) {
            Local l = local.get();
            try (Txn<ByteBuffer> txn = env.txnWrite()) {
                ByteBuffer old = dbi.get(txn, l.key(key));
                if (old == null) {
                    return false;
                }
                dbi.put(txn, l.key, l.value(change.apply(bytes(old))));
                txn.commit();
                return true;
            }
        }

        @Override
        public boolean delete(String key) {
            return dbi.delete(local.get().key(key));
        }

        @Override
        public List<Map.Entry<String, byte[]>> scan(String startKey, int count) {
            Local l = local.get();
            List<Map.Entry<String, byte[]>> records = new ArrayList<>(count);
            l.read.renew();
            try (CursorIterable<ByteBuffer> range = dbi.iterate(l.read, KeyRange.atLeast(l.key(startKey)))) {
                Iterator<CursorIterable.KeyVal<ByteBuffer>> it = range.iterator();
                while (records.size() < count && it.hasNext()) {
                    CursorIterable.KeyVal<ByteBuffer> kv = it.next();
                    records.add(new AbstractMap.SimpleImmutableEntry<>(
                            new String(bytes(kv.key()), StandardCharsets.UTF_8), bytes(kv.val())));
                }
            } finally {
                l.read.reset();
            }
            return records;
        }

        @Override
        public void close() {
            for (Local l : locals) {
                l.read.close();
            }
            env.close();
            try {
                Files.deleteIfExists(file);
                Files.deleteIfExists(Path.of(file + "-lock"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
