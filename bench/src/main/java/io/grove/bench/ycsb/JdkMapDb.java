package io.grove.bench.ycsb;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.UnaryOperator;

/**
 * YCSB binding: the JDK's maps on the heap, {@code ConcurrentSkipListMap} (scans) or, with
 * {@code -p jdk.map=chm}, {@code ConcurrentHashMap} (no scans).
 */
public final class JdkMapDb extends MapDb {
    @Override
    YcsbStore open(Properties properties) {
        boolean hash = properties.getProperty("jdk.map", "cslm").equals("chm");
        ConcurrentMap<String, byte[]> map = hash ? new ConcurrentHashMap<>() : new ConcurrentSkipListMap<>();
        return new YcsbStore() {
            @Override
            public byte[] get(String key) {
                return map.get(key);
            }

            @Override
            public void put(String key, byte[] record) {
                map.put(key, record);
            }

            @Override
            public boolean update(String key, UnaryOperator<byte[]> change) {
                return map.computeIfPresent(key, (k, old) -> change.apply(old)) != null;
            }

            @Override
            public boolean delete(String key) {
                return map.remove(key) != null;
            }

            @Override
            public List<Map.Entry<String, byte[]>> scan(String startKey, int count) {
                if (!(map instanceof NavigableMap<String, byte[]> ordered)) {
                    return null;
                }
                List<Map.Entry<String, byte[]>> records = new ArrayList<>(count);
                for (Map.Entry<String, byte[]> e : ordered.tailMap(startKey, true).entrySet()) {
                    if (records.size() == count) {
                        break;
                    }
                    records.add(e);
                }
                return records;
            }

            @Override
            public void close() {
                map.clear();
            }
        };
    }
}
