package io.grove.bench.ycsb;

import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * YCSB binding: the JDK's maps on the heap, {@code ConcurrentSkipListMap} (scans) or, with
 * {@code -p jdk.map=chm}, {@code ConcurrentHashMap} (no scans).
 */
public final class JdkMapDb extends MapDb {
    @Override
    YcsbStore open(Properties properties) {
        boolean hash = properties.getProperty("jdk.map", "cslm").equals("chm");
        ConcurrentMap<String, byte[]> map = hash ? new ConcurrentHashMap<>() : new ConcurrentSkipListMap<>();
        return new ConcurrentMapStore(map, map::put, key -> map.remove(key) != null, map::clear);
    }
}
