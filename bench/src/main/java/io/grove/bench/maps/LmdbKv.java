package io.grove.bench.maps;

import io.grove.bench.Placement;
import io.grove.bench.Scenario;
import io.grove.bench.WorkerConfig;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.lmdbjava.Dbi;
import org.lmdbjava.DbiFlags;
import org.lmdbjava.Env;
import org.lmdbjava.EnvFlags;
import org.lmdbjava.Txn;

/**
 * LMDB through lmdbjava (org.lmdbjava:lmdbjava): a B+tree in a memory-mapped file, one writer at a time (LMDB's
 * design), readers lock-free on snapshots. Keys and values in each thread's direct buffers; a get runs in the
 * thread's own read transaction, reset after and renewed before each get (no allocation of a transaction per
 * read); each put and remove is one write transaction. Durability like {@code grove-hash-file}'s: {@code MDB_NOSYNC}
 * and {@code MDB_NOMETASYNC} (commits reach the page cache, never forced), {@code MDB_NOTLS} so that read
 * transactions belong to the worker thread objects. The map size is the off-heap budget. A file of its own in
 * {@code java.io.tmpdir} per run ({@code MDB_NOSUBDIR}), deleted at close with its lock file. It needs
 * {@code --add-opens java.base/java.nio} and {@code --add-exports java.base/sun.nio.ch} (its docs).
 */
public final class LmdbKv extends KvContender {
    public static final LmdbKv INSTANCE = new LmdbKv();

    private LmdbKv() {}

    @Override
    public String name() {
        return "lmdb";
    }

    @Override
    public String description() {
        return "LMDB (lmdbjava) in a memory-mapped file, MDB_NOSYNC + MDB_NOMETASYNC (never forced, as"
                + " grove-hash-file), map size = off-heap budget; get in a reused read txn copying the value,"
                + " put/remove one write txn each (LMDB has one writer at a time)";
    }

    /** LMDB's B+tree always lives in a memory-mapped file. */
    @Override
    public boolean inFile() {
        return true;
    }

    @Override
    public Placement placement() {
        return Placement.OFF_HEAP;
    }

    @Override
    public List<String> jvmOptions() {
        return List.of("--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow");
    }

    @Override
    public String notApplicable(Scenario scenario) {
        return FileBackedPeers.notApplicable(scenario);
    }

    @Override
    public KvMap open(WorkerConfig config) {
        Path file = FileBackedPeers.newFile("grove-bench-lmdb-", ".mdb");
        Env<ByteBuffer> env = Env.create().setMapSize(config.offHeapLimit()).setMaxDbs(1)
                .setMaxReaders(config.threads() + 8).open(file.toFile(), EnvFlags.MDB_NOSUBDIR, EnvFlags.MDB_NOSYNC,
                        EnvFlags.MDB_NOMETASYNC, EnvFlags.MDB_NOTLS);
        Dbi<ByteBuffer> dbi = env.openDbi("bench", DbiFlags.MDB_CREATE);
        return new Map(env, dbi, file, scenario(config).keySize(), config.valueSize());
    }

    /** One worker thread's direct buffers and read transaction. */
    private static final class Buffers {
        final ByteBuffer key;
        final ByteBuffer value;
        final Txn<ByteBuffer> read;

        Buffers(Env<ByteBuffer> env, int keySize, int valueSize) {
            key = ByteBuffer.allocateDirect(keySize);
            value = ByteBuffer.allocateDirect(valueSize);
            read = env.txnRead();
            read.reset();
        }
    }

    private static final class Map implements KvMap {
        private final Env<ByteBuffer> env;
        private final Dbi<ByteBuffer> dbi;
        private final Path file;
        private final int keySize;
        private final int valueSize;
        private final List<Buffers> buffers = new java.util.concurrent.CopyOnWriteArrayList<>();

        Map(Env<ByteBuffer> env, Dbi<ByteBuffer> dbi, Path file, int keySize, int valueSize) {
            this.env = env;
            this.dbi = dbi;
            this.file = file;
            this.keySize = keySize;
            this.valueSize = valueSize;
        }

        private Buffers buffers(KvThread t) {
            if (t.slot == null) {
                Buffers b = new Buffers(env, keySize, valueSize);
                buffers.add(b);
                t.slot = b;
            }
            Buffers b = (Buffers) t.slot;
            b.key.clear().put(t.key).flip();
            return b;
        }

        @Override
        public int get(KvThread t, long id) {
            Buffers b = buffers(t);
            b.read.renew();
            try {
                ByteBuffer v = dbi.get(b.read, b.key);
                if (v == null) {
                    return ABSENT;
                }
                int length = v.remaining();
                v.get(t.readBuffer, 0, Math.min(length, t.readBuffer.length));
                return KvRecords.matches(t.readBuffer, length, id, valueSize) ? FOUND : WRONG;
            } finally {
                b.read.reset();
            }
        }

        @Override
        public int zeroCopyGet(KvThread t, long id) {
            Buffers b = buffers(t);
            b.read.renew();
            try {
                ByteBuffer v = dbi.get(b.read, b.key); // the value in the mapping itself, valid until the reset
                if (v == null) {
                    return ABSENT;
                }
                long first = v.getLong(v.position());
                long last = v.getLong(v.limit() - 8);
                return KvRecords.matches(first, last, id) ? FOUND : WRONG;
            } finally {
                b.read.reset();
            }
        }

        @Override
        public void put(KvThread t, long id) {
            Buffers b = buffers(t);
            b.value.clear().put(t.value).flip();
            dbi.put(b.key, b.value);
        }

        @Override
        public boolean putIfAbsent(KvThread t, long id) {
            Buffers b = buffers(t);
            b.value.clear().put(t.value).flip();
            try (Txn<ByteBuffer> txn = env.txnWrite()) {
                boolean put = dbi.put(txn, b.key, b.value, org.lmdbjava.PutFlags.MDB_NOOVERWRITE);
                txn.commit();
                return put;
            }
        }

        @Override
        public boolean remove(KvThread t, long id) {
            return dbi.delete(buffers(t).key);
        }

        @Override
        public long size() {
            try (Txn<ByteBuffer> txn = env.txnRead()) {
                return dbi.stat(txn).entries;
            }
        }

        @Override
        public void close() {
            for (Buffers b : buffers) {
                b.read.close();
            }
            env.close();
            FileBackedPeers.delete(file);
            FileBackedPeers.delete(Path.of(file + "-lock"));
        }
    }
}
