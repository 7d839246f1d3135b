package io.grove.bench.ycsb;

import java.util.Properties;
import net.openhft.chronicle.map.ChronicleMap;

/**
 * YCSB binding: Chronicle Map ({@code ChronicleMap<String, byte[]>} off heap, in memory), sized for the records
 * and the inserts the run can add, with YCSB's key and record sizes as the averages; no scans (workload E). Its
 * {@code put} and {@code remove} return the old record (deserialized), as its {@code ConcurrentMap} API does. The
 * client's JVM needs {@code ChronicleKv.JVM_OPTIONS}.
 */
public final class ChronicleDb extends MapDb {
    @Override
    YcsbStore open(Properties properties) {
        long entries = Long.parseLong(properties.getProperty("recordcount", "0"))
                + Long.parseLong(properties.getProperty("operationcount", "0"));
        ChronicleMap<String, byte[]> map = ChronicleMap.of(String.class, byte[].class).name("ycsb")
                .entries(Math.max(1, entries))
                .averageKey("user6284781860667377211") // "user" and a hashed 64-bit number, as YCSB builds keys
                .averageValueSize(YcsbRecord.size(properties))
                .create();
        return new ConcurrentMapStore(map, map::put, key -> map.remove(key) != null, map::close);
    }
}
