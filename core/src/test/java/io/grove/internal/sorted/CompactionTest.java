package io.grove.internal.sorted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import org.junit.jupiter.api.Test;

/**
 * When removals compact a chunk ({@link Rebalancer#shouldCompact}): rarely enough that a small map under
 * put/remove churn is not rebuilt over and over, often enough that removed keys do not pile up and a map whose
 * keys are all removed keeps none. A rebuild shows as a new chunk array in the index.
 */
class CompactionTest {

    private static Chunk[] chunks(GroveSortedMap<?, ?> map) {
        return ((OffHeapSortedMap<?, ?>) map).map.index.snapshot();
    }

    @Test
    void putRemoveChurnOfAFewKeysNeverRebuildsTheChunk() {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .build()) {
            for (long k = 0; k < 3; k++) {
                map.put(k, k);
            }
            Chunk[] before = chunks(map);
            for (int i = 0; i < 100_000; i++) {
                long k = i % 3;
                assertEquals(k, map.remove(k));
                map.put(k, k);
            }
            assertSame(before, chunks(map), "the chunk was rebuilt");
            assertEquals(6, map.footprint().liveSlices());
        }
    }

    @Test
    void churnOfNewKeysInASmallMapRebuildsOncePerFullSmallChunk() {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .build()) {
            int steps = 10_000;
            int rebuilds = 0;
            Chunk[] last = chunks(map);
            for (long k = 0; k < steps; k++) {
                map.put(k, k);
                if (k >= 2) {
                    map.remove(k - 2);
                }
                if (chunks(map) != last) {
                    rebuilds++;
                    last = chunks(map);
                    assertTrue(last[0].capacity <= Rebalancer.MIN_CAPACITY, "a chunk of " + last[0].capacity
                            + " entries for at most 2 live ones");
                }
            }
            // each rebuild makes a chunk of 16 entries holding the 2 live ones: the next one is 14 inserts away
            assertTrue(rebuilds <= steps / 14 + 1, rebuilds + " rebuilds in " + steps + " steps");
            assertTrue(map.footprint().liveSlices() <= 4 + Rebalancer.MIN_CAPACITY, map.footprint().toString());
        }
    }

    @Test
    void removingEveryKeyLeavesNoKeyAndOneSmallChunk() {
        for (int chunkSize : new int[] {4, 8, 64, GroveSortedMap.Builder.DEFAULT_CHUNK_SIZE}) {
            try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                    .chunkSize(chunkSize).build()) {
                long emptyHeap = map.heapFootprint();
                for (int round = 0; round < 3; round++) {
                    for (long k = 0; k < 10_000; k++) {
                        map.put(k * 7919 % 10_000, k); // scattered, so inserts land inside chunks
                    }
                    for (long k = 0; k < 10_000; k++) {
                        map.remove(round == 1 ? 9_999 - k : k * 104_729 % 10_000);
                    }
                    String where = "chunkSize " + chunkSize + ", round " + round;
                    assertEquals(0, map.footprint().liveSlices(), where);
                    assertEquals(1, chunks(map).length, where);
                    assertEquals(emptyHeap, map.heapFootprint(), where);
                }
            }
        }
    }

    @Test
    void removedKeysStayFewerThanLiveOnesPlusTheMinimum() {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(256).build()) {
            for (long k = 0; k < 100_000; k++) {
                map.put(k * 7919 % 100_000, k);
            }
            for (long k = 0; k < 100_000; k++) {
                if (k % 1000 != 0) {
                    map.remove(k);
                }
                if (k % 10_000 == 0) {
                    long dead = map.footprint().liveSlices() - 2L * map.size();
                    long bound = map.size() + (long) Rebalancer.MIN_CAPACITY * chunks(map).length;
                    assertTrue(dead <= bound, dead + " removed keys kept, more than " + bound + " after " + k);
                }
            }
            assertEquals(100, map.size());
            // chunks left with one entry each are merged: a few chunks, each with a small array
            assertTrue(chunks(map).length <= 4, chunks(map).length + " chunks for 100 entries");
            assertTrue(map.heapFootprint() < 16 * 1024, map.heapFootprint() + " heap bytes for 100 entries");
        }
    }
}
