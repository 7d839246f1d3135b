package io.grove.hash.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.MemoryFootprint;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import io.grove.testing.KeyChurn;
import io.grove.testing.StressRun;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * No leak under churn: threads insert ever-new keys and remove each one a fixed number of inserts later, so the
 * live set stays bounded while far more bytes pass through the map than its memory limit allows. Values vary in
 * size (and some are replaced, some grown in place), so Nova reuses memory across size classes.
 *
 * <p>Checked at quiescent points through {@code footprint()}: the number of live slices is exactly one per entry
 * (an entry holds its key and value) plus the table's own slices, which never change in number (a segment that grows
 * swaps its slot array for one twice the size); live bytes and reserved bytes after a long churn are no more than
 * after a short one (plus the slot arrays that grew meanwhile); after {@code clear()} only the table's slices
 * remain; after {@code close()} the shared pool the map drew on holds no live slice. A leak of one slice per
 * thousand operations, or any growth of reserved memory, fails the test; a larger leak fails earlier with the
 * pool's out-of-memory exception ({@value #MEMORY_LIMIT} bytes, while about 100 MB pass through the map).
 */
class FootprintChurnStressTest {
    private static final int LIVE_PER_THREAD_TOTAL = 4_096;
    private static final long WARM_UP_INSERTS = 40_000;
    private static final long CHURN_INSERTS = 1_000_000;
    private static final long MEMORY_LIMIT = 16L << 20;

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void churnOfNewKeysKeepsTheFootprintBounded(StressRun.Threads threads) throws Exception {
        MemoryPool pool = MemoryPool.builder().memoryLimit(MEMORY_LIMIT).build();
        try (pool) {
            GroveHashMap<Long, byte[]> map = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
                    .expectedSize(1).pool(pool).build();
            MemoryFootprint empty = map.footprint();
            long tableSlices = empty.liveSlices();
            int n = threads.count;
            int window = Math.max(8, LIVE_PER_THREAD_TOTAL / n);
            long[] nextKey = new long[n];

            churn(map, threads, window, nextKey, WARM_UP_INSERTS / n, "warm-up");
            MemoryFootprint warm = map.footprint();
            int warmBits = Internals.totalSlotBits(map);
            assertEquals(tableSlices + map.size(), warm.liveSlices(), "after warm-up: " + warm);

            churn(map, threads, window, nextKey, CHURN_INSERTS / n, "churn");
            MemoryFootprint after = map.footprint();
            int grownBits = Internals.totalSlotBits(map) - warmBits;
            String figures = "empty " + empty + "\nwarm " + warm + "\nafter " + after + "\nsize " + map.size()
                    + ", slot doublings during churn " + grownBits;
            System.out.println("footprint with " + threads + ":\n" + figures);
            assertEquals(tableSlices + map.size(), after.liveSlices(), figures);
            assertEquals((long) n * window, map.size(), figures);
            assertTrue(after.reservedBytes() <= warm.reservedBytes(), "reserved memory grew: " + figures);
            // live bytes: the same number of entries of the same size distribution, plus any slot and tag arrays
            // that doubled meanwhile (at most 8 + 2 bytes per slot of the whole table after the churn)
            long slotBytes = 0;
            for (int s = 0; s < Internals.segmentCount(map); s++) {
                slotBytes += 10L << Internals.slotBits(map, s);
            }
            assertTrue(after.liveBytes() <= warm.liveBytes() * 5 / 4 + (grownBits > 0 ? slotBytes : 0),
                    "live bytes grew: " + figures);

            map.clear();
            MemoryFootprint cleared = map.footprint();
            assertEquals(tableSlices, cleared.liveSlices(), "after clear: " + cleared);
            assertTrue(cleared.liveBytes() <= empty.liveBytes() + slotBytes, "after clear: " + cleared);

            map.close();
            assertEquals(0, pool.footprint().liveSlices(), "the closed map left slices in the shared pool: "
                    + pool.footprint());
        }
    }

    private static void churn(GroveHashMap<Long, byte[]> map, StressRun.Threads threads, int window, long[] nextKey,
            long inserts, String phase) throws Exception {
        KeyChurn.churn(map, map.zc(), threads, window, nextKey, inserts, phase,
                () -> String.valueOf(map.footprint()));
    }
}
