package io.grove.internal.sorted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Quick checks of the ordered map's internals: rebalances keep every entry, scans stay ordered both ways. */
class SortedMapSmokeTest {

    @Test
    void randomOperationsWithTinyChunksMatchTreeMap() {
        try (GroveSortedMap<Integer, Integer> map =
                GroveSortedMap.builder(Serializers.ints(), Serializers.ints()).chunkSize(4).build()) {
            TreeMap<Integer, Integer> model = new TreeMap<>();
            Random random = new Random(42);
            for (int step = 0; step < 50_000; step++) {
                int key = random.nextInt(500);
                int op = random.nextInt(4);
                String where = "step " + step + " key " + key + " op " + op;
                switch (op) {
                    case 0, 1 -> assertEquals(model.put(key, step), map.put(key, step), where);
                    case 2 -> assertEquals(model.remove(key), map.remove(key), where);
                    default -> assertEquals(model.get(key), map.get(key), where);
                }
                if (step % 5000 == 0) {
                    assertEquals(model, map, where);
                    assertEquals(new ArrayList<>(model.descendingKeySet()), new ArrayList<>(map.descendingKeySet()));
                    assertEquals(new ArrayList<>(model.keySet()), new ArrayList<>(map.keySet()), where);
                }
            }
            assertEquals(model.size(), map.size());
            assertEquals(model, map);
            assertEquals(new ArrayList<>(model.descendingMap().entrySet()),
                    new ArrayList<>(map.descendingMap().entrySet()));
            assertEquals(model.subMap(100, true, 300, false), map.subMap(100, true, 300, false));
            assertEquals(new ArrayList<>(model.subMap(100, false, 300, true).descendingKeySet()),
                    new ArrayList<>(map.subMap(100, false, 300, true).descendingKeySet()));
            assertEquals(model.ceilingKey(250), map.ceilingKey(250));
            assertEquals(model.floorKey(250), map.floorKey(250));
            assertEquals(model.higherKey(250), map.higherKey(250));
            assertEquals(model.lowerKey(250), map.lowerKey(250));
            assertEquals(model.firstKey(), map.firstKey());
            assertEquals(model.lastKey(), map.lastKey());
        }
    }

    @Test
    void removingEverythingCompactsKeys() {
        try (GroveSortedMap<Integer, Integer> map =
                GroveSortedMap.builder(Serializers.ints(), Serializers.ints()).chunkSize(8).build()) {
            for (int round = 0; round < 20; round++) {
                for (int i = 0; i < 1000; i++) {
                    map.put(round * 1000 + i, i);
                }
                for (int i = 0; i < 1000; i++) {
                    map.remove(round * 1000 + i);
                }
            }
            assertTrue(map.isEmpty());
            assertNull(map.get(5));
            long live = map.footprint().liveSlices();
            assertTrue(live < 200, "live slices after churn: " + live);
        }
    }

    @Test
    void zeroCopyScansBothWays() {
        try (GroveSortedMap<Integer, Integer> map =
                GroveSortedMap.builder(Serializers.ints(), Serializers.ints()).chunkSize(4).build()) {
            for (int i = 0; i < 100; i++) {
                map.put(i, i * 10);
            }
            List<Integer> down = new ArrayList<>();
            map.zc().descendingMap().entryStream()
                    .forEach(e -> down.add(e.getKey().getInt(0) + e.getValue().getInt(0)));
            assertEquals(100, down.size());
            assertEquals(99 * 11, down.get(0));
            assertTrue(map.zc().computeIfPresent(7, v -> v.resize(8).putInt(4, 5)));
            assertEquals(8, map.zc().get(7).size());
        }
    }
}
