package io.grove.bench.ycsb;

import java.util.Properties;
import java.util.concurrent.ConcurrentMap;
import org.mapdb.DB;
import org.mapdb.DBMaker;
import org.mapdb.Serializer;

/**
 * YCSB binding: MapDB in a {@code memoryDirectDB} store (off heap): its {@code HTreeMap} (no scans, workload E),
 * or with {@code -p mapdb.map=tree} its {@code BTreeMap} (ordered, scans).
 */
public final class MapDbDb extends MapDb {
    @Override
    YcsbStore open(Properties properties) {
        DB db = DBMaker.memoryDirectDB().make();
        ConcurrentMap<String, byte[]> map = properties.getProperty("mapdb.map", "hash").equals("tree")
                ? db.treeMap("ycsb", Serializer.STRING, Serializer.BYTE_ARRAY).createOrOpen()
                : db.hashMap("ycsb", Serializer.STRING, Serializer.BYTE_ARRAY).createOrOpen();
        return new ConcurrentMapStore(map, map::put, key -> map.remove(key) != null, db::close);
    }
}
