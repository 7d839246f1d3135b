package io.grove.bench.ycsb;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import java.util.Properties;

/** YCSB binding: Grove's hash map ({@code GroveHashMap<String, byte[]>}); no scans (workload E). */
public final class GroveHashDb extends MapDb {
    @Override
    YcsbStore open(Properties properties) {
        long records = Long.parseLong(properties.getProperty("recordcount", "0"));
        GroveHashMap<String, byte[]> map = GroveHashMap.builder(Serializers.strings(), Serializers.bytes())
                .expectedSize(Math.max(1, records))
                .build();
        return new ConcurrentMapStore(map, map.zc()::put, map.zc()::remove, map::close);
    }
}
