package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.MemoryFootprint;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import io.grove.testing.KeyChurn;
import io.grove.testing.StressRun;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * No leak under a churn of ever-increasing keys: each thread inserts ever-new, ever-greater keys in its own part
 * of the key space and removes each one a fixed number of inserts later, so the live set stays the same size
 * while it moves to the right: the chunks at the right end keep splitting, those at the left end keep emptying and
 * must be merged away, and far more bytes pass through the map than its pool's memory limit allows. Values vary in
 * size, some are replaced and some resized in place, so Nova reuses memory across size classes.
 *
 * <p>Checked at quiescent points, after a short warm-up and after a churn 25 times as long, with the same live
 * set: the pool's live slices and live bytes grew by at most a tenth (a leak of one key or value per thousand
 * inserts grows them by more), its reserved memory did not grow at all, and the map's heap footprint (its chunks
 * and index) grew by at most a quarter (chunks emptied at the left end and never merged away grow it without
 * bound). A larger off-heap leak fails earlier with the pool's out-of-memory exception ({@value #MEMORY_LIMIT}
 * bytes, while about 100 MB pass through the map). After {@code clear()} and {@code close()} the shared pool
 * holds no live slice.
 */
class FootprintChurnStressTest {
    private static final int LIVE_TOTAL = 4_096;
    private static final long WARM_UP_INSERTS = 40_000;
    private static final long CHURN_INSERTS = 1_000_000;
    private static final long MEMORY_LIMIT = 16L << 20;

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void churnOfIncreasingKeysKeepsTheFootprintBounded(StressRun.Threads threads) throws Exception {
        MemoryPool pool = MemoryPool.builder().memoryLimit(MEMORY_LIMIT).build();
        try (pool) {
            GroveSortedMap<Long, byte[]> map = GroveSortedMap.builder(Serializers.longs(), Serializers.bytes())
                    .chunkSize(8).pool(pool).build();
            MemoryFootprint empty = map.footprint();
            int n = threads.count;
            int window = Math.max(8, LIVE_TOTAL / n);
            long[] nextKey = new long[n];

            churn(map, threads, window, nextKey, WARM_UP_INSERTS / n, "warm-up");
            MemoryFootprint warm = map.footprint();
            long warmHeap = map.heapFootprint();
            assertEquals((long) n * window, map.size(), "size after warm-up");

            churn(map, threads, window, nextKey, CHURN_INSERTS / n, "churn");
            MemoryFootprint after = map.footprint();
            long afterHeap = map.heapFootprint();
            String figures = "empty " + empty + "\nwarm " + warm + ", heap " + warmHeap + "\nafter " + after
                    + ", heap " + afterHeap + "\nsize " + map.size();
            System.out.println("sorted map footprint with " + threads + ":\n" + figures);
            assertEquals((long) n * window, map.size(), figures);
            assertTrue(after.liveSlices() <= warm.liveSlices() * 11 / 10, "live slices grew: " + figures);
            assertTrue(after.liveBytes() <= warm.liveBytes() * 11 / 10, "live bytes grew: " + figures);
            assertTrue(after.reservedBytes() <= warm.reservedBytes(), "reserved memory grew: " + figures);
            assertTrue(afterHeap <= warmHeap * 5 / 4, "heap footprint (chunks) grew: " + figures);

            map.clear();
            assertEquals(0, map.size(), "size after clear");
            map.close();
            assertEquals(0, pool.footprint().liveSlices(), "the closed map left slices in the shared pool: "
                    + pool.footprint());
        }
    }

    private static void churn(GroveSortedMap<Long, byte[]> map, StressRun.Threads threads, int window, long[] nextKey,
            long inserts, String phase) throws Exception {
        KeyChurn.churn(map, map.zc(), threads, window, nextKey, inserts, phase,
                () -> map.footprint() + ", heap " + map.heapFootprint());
    }
}
