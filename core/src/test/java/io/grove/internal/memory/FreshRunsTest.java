package io.grove.internal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.Reclamation;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * {@link Pool#allocateFresh}: the slices of one call lie one after another in the order asked for, also while another
 * thread takes fresh memory at the same time; the call stops where the memory limit leaves no fresh memory.
 */
class FreshRunsTest {
    private static final int BLOCK = 1 << 20;

    /** The granules a slice of {@code length} bytes takes in a pool of {@code reclamation}. */
    private static long capacity(Reclamation reclamation, int length) {
        long granules = Math.max(2, SliceHeader.granulesFor(length));
        return reclamation == Reclamation.NOVA ? FreeLists.roundedCapacity(granules) : granules;
    }

    @Test
    void theSlicesOfOneCallLieOneAfterAnotherInOrderAcrossRuns() {
        for (Reclamation reclamation : Reclamation.values()) {
            try (Pool pool = new Pool(BLOCK, 8L * BLOCK, reclamation)) {
                pool.allocate(24); // the runs start after a slice allocated before
                int count = 300; // about 240 KB: several runs
                int[] lengths = new int[count];
                for (int i = 0; i < count; i++) {
                    lengths[i] = 100 + (i * 37) % 1_500;
                }
                long[] refs = new long[count];
                assertEquals(count, pool.allocateFresh(lengths, count, refs));
                for (int i = 0; i < count; i++) {
                    assertTrue(pool.isLive(refs[i]), reclamation + ": slice " + i);
                    assertEquals(lengths[i], pool.length(refs[i]), reclamation + ": slice " + i);
                    assertEquals(0L, pool.segment(refs[i]).get(ValueLayout.JAVA_LONG_UNALIGNED,
                            pool.payloadOffset(refs[i]) + lengths[i] - 8), reclamation + ": fresh memory is zero");
                    if (i > 0) {
                        assertEquals(Pool.granuleOf(refs[i - 1]) + capacity(reclamation, lengths[i - 1]),
                                Pool.granuleOf(refs[i]), reclamation + ": slice " + i + " follows slice " + (i - 1));
                    }
                }
            }
        }
    }

    /**
     * Two threads take runs of 500 slices of 100 bytes (62.5 KB: one run each) at once, 300 times each: every call's
     * slices lie one after another. Slices taken one by one from the bump pointer interleave here.
     */
    @Test
    void twoThreadsTakingFreshMemoryAtOnceNeverInterleaveTheirSlices() throws Exception {
        int calls = 300;
        int count = 500;
        try (Pool pool = new Pool(BLOCK, 64L * BLOCK, Reclamation.NOVA)) {
            int[] lengths = new int[count];
            Arrays.fill(lengths, 100);
            long step = capacity(Reclamation.NOVA, 100);
            CountDownLatch start = new CountDownLatch(2);
            List<String> failures = Collections.synchronizedList(new ArrayList<>());
            Runnable taker = () -> {
                long[] refs = new long[count];
                start.countDown();
                try {
                    start.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                for (int call = 0; call < calls; call++) {
                    if (pool.allocateFresh(lengths, count, refs) != count) {
                        failures.add("call " + call + " ran out of memory");
                        return;
                    }
                    for (int i = 1; i < count; i++) {
                        if (Pool.granuleOf(refs[i]) != Pool.granuleOf(refs[i - 1]) + step) {
                            failures.add("call " + call + ": slice " + i + " does not follow slice " + (i - 1));
                            break;
                        }
                    }
                    for (long ref : refs) {
                        pool.deletePrivate(ref);
                    }
                }
            };
            Thread a = Thread.ofPlatform().start(taker);
            Thread b = Thread.ofPlatform().start(taker);
            a.join();
            b.join();
            assertEquals(List.of(), failures.subList(0, Math.min(5, failures.size())));
        }
    }

    @Test
    void aCallStopsWhereTheMemoryLimitLeavesNoFreshMemory() {
        try (Pool pool = new Pool(BLOCK, 2L * BLOCK, Reclamation.NOVA)) {
            int count = 3_000; // about 3 MB
            int[] lengths = new int[count];
            Arrays.fill(lengths, 1_000);
            long[] refs = new long[count];
            int allocated = pool.allocateFresh(lengths, count, refs);
            assertTrue(allocated > 1_500 && allocated <= 2_048, allocated + " slices of 1,000 bytes in 2 MiB");
            for (int i = 0; i < allocated; i++) {
                assertEquals(1_000, pool.length(refs[i]));
            }
            assertEquals(0L, refs[allocated], "nothing written beyond the slices allocated");
            assertEquals(0, pool.allocateFresh(lengths, 1, new long[1]), "no fresh memory left");
            pool.deletePrivate(refs[0]);
            assertEquals(1_000, pool.length(pool.allocate(1_000)), "the pool goes on with memory it can reuse");
        }
    }

    @Test
    void aBadLengthAllocatesNothing() {
        try (Pool pool = new Pool(BLOCK, 2L * BLOCK, Reclamation.NOVA)) {
            long[] refs = new long[3];
            assertThrows(IllegalArgumentException.class, () -> pool.allocateFresh(new int[] {8, 8, -1}, 3, refs));
            assertThrows(IllegalArgumentException.class,
                    () -> pool.allocateFresh(new int[] {8, pool.maxSliceSize() + 1}, 2, refs));
            assertEquals(0, pool.footprint().liveSlices());
        }
    }
}
