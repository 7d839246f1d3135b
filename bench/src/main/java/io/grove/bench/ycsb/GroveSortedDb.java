package io.grove.bench.ycsb;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import java.util.Properties;

/** YCSB binding: Grove's ordered map ({@code GroveSortedMap<String, byte[]>}, keys in UTF-8 byte order). */
public final class GroveSortedDb extends MapDb {
    @Override
    YcsbStore open(Properties properties) {
        GroveSortedMap<String, byte[]> map = GroveSortedMap.builder(Serializers.strings(), Serializers.bytes())
                .build();
        return new ConcurrentMapStore(map, map.zc()::put, map.zc()::remove, map::close);
    }
}
