package io.grove.bench.ycsb;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.UnaryOperator;

/** YCSB binding: Grove's ordered map ({@code GroveSortedMap<String, byte[]>}, keys in UTF-8 byte order). */
public final class GroveSortedDb extends MapDb {
    @Override
    YcsbStore open(Properties properties) {
        GroveSortedMap<String, byte[]> map = GroveSortedMap.builder(Serializers.strings(), Serializers.bytes())
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
                List<Map.Entry<String, byte[]>> records = new ArrayList<>(count);
                for (Map.Entry<String, byte[]> e : map.tailMap(startKey, true).entrySet()) {
                    if (records.size() == count) {
                        break;
                    }
                    records.add(e);
                }
                return records;
            }

            @Override
            public void close() {
                map.close();
            }
        };
    }
}
