package io.grove.bench.ycsb;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.UnaryOperator;

/** YCSB binding: Grove's hash map ({@code GroveHashMap<String, byte[]>}); no scans (workload E). */
public final class GroveHashDb extends MapDb {
    @Override
    YcsbStore open(Properties properties) {
        long records = Long.parseLong(properties.getProperty("recordcount", "0"));
        GroveHashMap<String, byte[]> map = GroveHashMap.builder(Serializers.strings(), Serializers.bytes())
                .expectedSize(Math.max(1, records))
                .build();
        return new YcsbStore() {
            @Override
            public byte[] get(String key) {
                return map.get(key);
            }

            @Override
            public void put(String key, byte[] record) {
                map.zc().put(key, record);
            }

            @Override
            public boolean update(String key, UnaryOperator<byte[]> change) {
                return map.computeIfPresent(key, (k, old) -> change.apply(old)) != null;
            }

            @Override
            public boolean delete(String key) {
                return map.zc().remove(key);
            }

            @Override
            public List<Map.Entry<String, byte[]>> scan(String startKey, int count) {
                return null;
            }

            @Override
            public void close() {
                map.close();
            }
        };
    }
}
