package io.grove.internal.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HashMapSmokeTest {
    @Test
    void basicOperationsAgreeWithHashMapThroughGrowth() {
        try (GroveHashMap<Long, String> map = GroveHashMap.builder(Serializers.longs(), Serializers.strings())
                .memoryLimit(64L << 20).build()) {
            Map<Long, String> model = new HashMap<>();
            SplittableRandom random = new SplittableRandom(1);
            for (int i = 0; i < 200_000; i++) {
                long k = random.nextInt(20_000);
                String v = "v" + random.nextInt(1000);
                switch (random.nextInt(6)) {
                    case 0, 1 -> assertEquals(model.put(k, v), map.put(k, v));
                    case 2 -> assertEquals(model.remove(k), map.remove(k));
                    case 3 -> assertEquals(model.get(k), map.get(k));
                    case 4 -> assertEquals(model.putIfAbsent(k, v), map.putIfAbsent(k, v));
                    default -> assertEquals(model.merge(k, v, String::concat), map.merge(k, v, String::concat));
                }
            }
            assertEquals(model.size(), map.size());
            assertEquals(model, new HashMap<>(map));
            assertEquals(model, map);
            map.clear();
            assertTrue(map.isEmpty());
            assertNull(map.get(5L));
            assertFalse(map.containsKey(5L));
        }
    }

    @Test
    void zeroCopyInPlaceUpdateAndGrowth() {
        try (GroveHashMap<String, Long> map = GroveHashMap.builder(Serializers.strings(), Serializers.longs())
                .build()) {
            assertTrue(map.zc().putIfAbsentComputeIfPresent("a", 1L, v -> v.putLong(0, v.getLong(0) + 1)));
            assertFalse(map.zc().putIfAbsentComputeIfPresent("a", 1L, v -> v.putLong(0, v.getLong(0) + 1)));
            assertEquals(2L, map.get("a"));
            assertEquals(2L, Serializers.longs().read(map.zc().get("a")));
            assertTrue(map.zc().computeIfPresent("a", v -> v.resize(16).putLong(8, 7)));
            assertEquals(16, map.zc().get("a").size());
            assertEquals(7L, map.zc().get("a").getLong(8));
            assertTrue(map.zc().remove("a"));
            assertNull(map.zc().get("a"));
        }
    }
}
