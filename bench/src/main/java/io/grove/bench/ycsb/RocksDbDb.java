package io.grove.bench.ycsb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * YCSB binding: RocksDB (the store most YCSB users compare with) in a new directory under {@code java.io.tmpdir},
 * deleted at close; default options (write-ahead log on, not synced). An update reads, merges and writes the record
 * under a lock striped by key, as a read-modify-write on RocksDB must.
 */
public final class RocksDbDb extends MapDb {
    @Override
    YcsbStore open(Properties properties) {
        RocksDB.loadLibrary();
        try {
            Path dir = Files.createTempDirectory("grove-ycsb-rocksdb-");
            Options options = new Options().setCreateIfMissing(true);
            RocksDB db = RocksDB.open(options, dir.toString());
            Object[] stripes = new Object[256];
            for (int i = 0; i < stripes.length; i++) {
                stripes[i] = new Object();
            }
            return new Store(db, options, dir, stripes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RocksDBException e) {
            throw new IllegalStateException(e);
        }
    }

    private record Store(RocksDB db, Options options, Path dir, Object[] stripes) implements YcsbStore {
        private static byte[] bytes(String key) {
            return key.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public byte[] get(String key) {
            try {
                return db.get(bytes(key));
            } catch (RocksDBException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void put(String key, byte[] record) {
            try {
                db.put(bytes(key), record);
            } catch (RocksDBException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public boolean update(String key, UnaryOperator<byte[]> change) {
            synchronized (stripes[key.hashCode() & (stripes.length - 1)]) {
                byte[] old = get(key);
                if (old == null) {
                    return false;
                }
                put(key, change.apply(old));
                return true;
            }
        }

        @Override
        public boolean delete(String key) {
            try {
                byte[] k = bytes(key);
                boolean present = db.get(k) != null;
                db.delete(k);
                return present;
            } catch (RocksDBException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public List<Map.Entry<String, byte[]>> scan(String startKey, int count) {
            List<Map.Entry<String, byte[]>> records = new ArrayList<>(count);
            try (RocksIterator it = db.newIterator()) {
                for (it.seek(bytes(startKey)); it.isValid() && records.size() < count; it.next()) {
                    records.add(new AbstractMap.SimpleImmutableEntry<>(new String(it.key(), StandardCharsets.UTF_8),
                            it.value()));
                }
            }
            return records;
        }

        @Override
        public void close() {
            db.close();
            options.close();
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
