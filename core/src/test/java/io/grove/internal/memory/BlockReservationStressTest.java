package io.grove.internal.memory;

import io.grove.GroveOutOfMemoryException;
import io.grove.Reclamation;
import io.grove.testing.StressRun;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Fresh memory carved from new blocks by many threads at once (Blocks invariant 2): smallest blocks (64 KiB) and
 * slices of up to 20 KiB, so the bump pointer crosses a block boundary every few allocations and hands the
 * skipped tail of the old block to the free lists — possibly before the thread that bumped into that block has
 * reserved it. Every slice is written and read back; nothing is deleted, so all memory comes from the bump
 * pointer until the limit.
 */
class BlockReservationStressTest {
    private static final int BLOCK = 1 << 16;
    private static final long LIMIT = 2048L * BLOCK;
    private static final int MAX_SLICE = 20 * 1024;

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void blocksAreReservedBeforeTheirMemoryIsUsed(StressRun.Threads threads) throws Exception {
        long seed = Long.getLong("grove.seed", System.nanoTime());
        String what = "block reservation, seed " + seed + " (rerun with -Dgrove.seed=" + seed + "), " + threads;
        for (int round = 0; round < 5; round++) {
            Pool pool = new Pool(BLOCK, LIMIT, Reclamation.NOVA);
            try {
                AtomicLong slices = new AtomicLong();
                StressRun run = new StressRun();
                run.workers(threads.factory("allocator"), threads.count, index -> {
                    SplittableRandom random = new SplittableRandom(seed + index);
                    for (long i = 0; run.proceed(i); i++) {
                        int size = 8 + random.nextInt(MAX_SLICE);
                        long ref;
                        try {
                            ref = pool.allocate(size);
                        } catch (GroveOutOfMemoryException full) {
                            return; // the limit: this worker is done
                        }
                        long at = pool.payloadOffset(ref) + size - Long.BYTES;
                        pool.segment(ref).set(ValueLayout.JAVA_LONG_UNALIGNED, at, ref);
                        if (pool.segment(ref).get(ValueLayout.JAVA_LONG_UNALIGNED, at) != ref) {
                            throw new AssertionError("slice " + ref + " lost its last word");
                        }
                        slices.incrementAndGet();
                    }
                });
                run.runAndCheck(what + ", round " + round, () -> slices.get() + " slices");
            } finally {
                pool.close();
            }
        }
    }
}
