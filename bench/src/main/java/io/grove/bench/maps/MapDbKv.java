package io.grove.bench.maps;

import io.grove.bench.Placement;
import io.grove.bench.Scenario;
import io.grove.bench.WorkerConfig;
import org.mapdb.DB;
import org.mapdb.DBMaker;
import org.mapdb.HTreeMap;
import org.mapdb.Serializer;

/**
 * MapDB's {@code HTreeMap} (org.mapdb:mapdb) in a {@code DBMaker.memoryDirectDB()} store (off heap, direct
 * buffers), {@code byte[]} keys and values ({@code Serializer.BYTE_ARRAY}). MapDB has no zero-copy read: both gets
 * deserialize a new array (the closest equivalent); put and remove return the old value, deserialized. It takes no
 * byte limit (the store grows), so the off-heap budget is not passed to it. Eviction scenario:
 * {@code expireMaxSize(capacity)} with {@code expireAfterCreate()} and {@code expireAfterGet()} (its access-ordered
 * expiration queue), evicting in the calling thread.
 */
public final class MapDbKv extends KvContender {
    public static final MapDbKv INSTANCE = new MapDbKv(false);
    /**
     * The same map in MapDB's file store ({@code fileDB} with memory-mapped files, transactions off, a new file in
     * java.io.tmpdir per run, deleted at close), the MapHash scenario only ({@link FileBackedPeers}).
     */
    public static final MapDbKv IN_FILE = new MapDbKv(true);

    private final boolean inFile;

    private MapDbKv(boolean inFile) {
        this.inFile = inFile;
    }

    @Override
    public String name() {
        return inFile ? "mapdb-file" : "mapdb";
    }

    @Override
    public String description() {
        return "MapDB 3.1.0 HTreeMap<byte[], byte[]> in " + (inFile ? "fileDB, memory-mapped, transactions off (page"
                + " cache, never forced)" : "memoryDirectDB (off heap, no byte limit)") + "; no zero-copy:"
                + " get = zc-get = get (new array); eviction: expireMaxSize + expireAfterCreate/Get";
    }

    @Override
    public Placement placement() {
        return Placement.OFF_HEAP;
    }

    @Override
    public String notApplicable(Scenario scenario) {
        return inFile ? FileBackedPeers.notApplicable(scenario) : null;
    }

    @Override
    public KvMap open(WorkerConfig config) {
        DB db = inFile ? DBMaker.fileDB(FileBackedPeers.newFile("grove-bench-mapdb-", ".db").toFile())
                .fileMmapEnableIfSupported().fileDeleteAfterClose().make() : DBMaker.memoryDirectDB().make();
        DB.HashMapMaker<byte[], byte[]> maker = db.hashMap("bench", Serializer.BYTE_ARRAY, Serializer.BYTE_ARRAY);
        long capacity = capacity(config);
        if (capacity > 0) {
            maker = maker.expireMaxSize(capacity).expireAfterCreate().expireAfterGet();
        }
        return new Map(db, maker.createOrOpen(), config.valueSize());
    }

    private static final class Map implements KvMap {
        private final DB db;
        private final HTreeMap<byte[], byte[]> map;
        private final int valueSize;

        Map(DB db, HTreeMap<byte[], byte[]> map, int valueSize) {
            this.db = db;
            this.map = map;
            this.valueSize = valueSize;
        }

        @Override
        public int get(KvThread t, long id) {
            byte[] v = map.get(t.key);
            if (v == null) {
                return ABSENT;
            }
            return KvRecords.matches(v, v.length, id, valueSize) ? FOUND : WRONG;
        }

        @Override
        public int zeroCopyGet(KvThread t, long id) {
            return get(t, id);
        }

        @Override
        public void put(KvThread t, long id) {
            map.put(t.key, t.value);
        }

        @Override
        public boolean putIfAbsent(KvThread t, long id) {
            return map.putIfAbsentBoolean(t.key, t.value);
        }

        @Override
        public boolean remove(KvThread t, long id) {
            return map.remove(t.key) != null;
        }

        @Override
        public long size() {
            return map.sizeLong();
        }

        @Override
        public void close() {
            db.close();
        }
    }
}
