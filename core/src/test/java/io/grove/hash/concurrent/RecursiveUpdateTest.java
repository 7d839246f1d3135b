package io.grove.hash.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A function the map runs under a segment's lock (compute and its kin, zero-copy in-place updates) that uses the
 * map on a key of the same segment would wait for its own thread for ever: it used to spin on the lock (or, for a
 * read of the key being updated in place, on the key's stamp). Like {@link ConcurrentHashMap}, the map detects
 * this and throws {@code IllegalStateException("Recursive update ...")}, leaving itself unchanged and unlocked.
 * Reads of other keys from inside a function stay allowed.
 */
class RecursiveUpdateTest {
    private static final Duration LIMIT = Duration.ofSeconds(10);

    @Test
    void concurrentHashMapThrowsTheSameForANestedUpdateOfTheSameKey() {
        ConcurrentHashMap<Long, Long> chm = new ConcurrentHashMap<>();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> chm.computeIfAbsent(1L, k -> chm.computeIfAbsent(1L, j -> 2L)));
        assertTrue(e.getMessage().startsWith("Recursive update"), e.getMessage());
    }

    @Test
    void aFunctionThatUpdatesTheSameSegmentThrowsAndChangesNothing() {
        assertTimeoutPreemptively(LIMIT, () -> {
            try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                    .build()) {
                map.put(1L, 10L);
                long neighbour = sameSegmentAs(map, 1L);
                Map<String, Executable> cases = new LinkedHashMap<>();
                cases.put("computeIfAbsent -> computeIfAbsent of the same key",
                        () -> map.computeIfAbsent(2L, k -> map.computeIfAbsent(2L, j -> 3L)));
                cases.put("compute -> put of a key of the same segment",
                        () -> map.compute(1L, (k, v) -> map.put(neighbour, 5L)));
                cases.put("merge -> remove of the same key", () -> map.merge(1L, 1L, (a, b) -> map.remove(1L)));
                cases.put("computeIfPresent -> zc put", () -> map.computeIfPresent(1L, (k, v) -> {
                    map.zc().put(neighbour, 7L);
                    return v;
                }));
                cases.put("zc computeIfPresent -> get of the key being updated",
                        () -> map.zc().computeIfPresent(1L, view -> map.get(1L)));
                cases.put("zc computeIfPresent -> a handle's read of the value being updated",
                        () -> map.zc().computeIfPresent(1L, view -> map.zc().get(1L).getLong(0)));
                io.grove.view.Handle held = map.zc().get(1L);
                cases.put("zc computeIfPresent -> read of a handle obtained before, on the value being updated",
                        () -> map.zc().computeIfPresent(1L, view -> held.read(v -> v.getLong(0))));
                cases.put("zc putIfAbsentComputeIfPresent -> put of the same key",
                        () -> map.zc().putIfAbsentComputeIfPresent(1L, 0L, view -> map.put(1L, 9L)));
                for (Map.Entry<String, Executable> c : cases.entrySet()) {
                    IllegalStateException e = assertThrows(IllegalStateException.class, c.getValue(), c.getKey());
                    assertTrue(e.getMessage().startsWith("Recursive update"), c.getKey() + ": " + e.getMessage());
                    assertEquals(Map.of(1L, 10L), Map.copyOf(map), c.getKey() + " changed the map");
                }
                // the locks were released: the keys can be updated again
                map.put(neighbour, 1L);
                map.put(2L, 2L);
                assertEquals(Map.of(1L, 10L, neighbour, 1L, 2L, 2L), Map.copyOf(map));
            }
        });
    }

    @Test
    void aFunctionMayReadOtherKeysOfItsSegment() {
        assertTimeoutPreemptively(LIMIT, () -> {
            try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                    .build()) {
                long neighbour = sameSegmentAs(map, 1L);
                map.put(1L, 10L);
                map.put(neighbour, 20L);
                assertEquals(30L, map.compute(1L, (k, v) -> v + map.get(neighbour)));
                // Serializers.longs() stores a long with its sign bit flipped
                map.zc().computeIfPresent(1L, view -> view.putLong(0, map.get(neighbour) ^ Long.MIN_VALUE));
                assertEquals(20L, map.get(1L));
            }
        });
    }

    /** A key other than {@code key} that lands in the same segment (found through the map's own hashing). */
    private static long sameSegmentAs(GroveHashMap<Long, Long> map, long key) {
        int segment = Internals.segmentOfLongKey(map, key);
        for (long k = key + 1; ; k++) {
            if (Internals.segmentOfLongKey(map, k) == segment) {
                return k;
            }
        }
    }
}
