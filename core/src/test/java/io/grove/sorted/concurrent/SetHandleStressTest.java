package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.ZeroCopySortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import io.grove.view.Handle;
import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The handles a zero-copy set iterator hands out ({@code zc().entrySet()}), kept and read by several threads at once
 * while writers replace values, remove keys, put them back and update values in place, in chunks of 64 that rebalances
 * keep replacing, so that the slices of kept handles are deleted and reused under them. Such handles validate their
 * reads against the entry they were found in ({@code SliceHandle.Origin}), and may be read by any thread: this test
 * checks that no read returns another entry's bytes or a torn value. Values and writes as in
 * {@link StreamHandleStressTest} ({@link ValueChurn}): 24 bytes, the key, a counter and its complement, written in
 * place in two steps; other in-place writes put a key no value holds and are undone. Scanners iterate from random keys,
 * ascending and descending, read each element, and leave it in a board of 64 places shared by all of them; after each
 * element they also read an element some scanner left on the board, maybe long ago. Checked: every read either throws
 * {@link ConcurrentModificationException} or returns the entry's own bytes; keys come out in order without repeats;
 * reads of the board's elements failed (slices went under kept handles) and most succeeded. Runs on a default map and
 * on one that lays out its pairs for scans.
 */
class SetHandleStressTest {
    private static final int KEYS = 2_000;
    private static final int SCAN = 200;
    private static final int BOARD = 64;
    private static final long WRITES = 60_000;
    private static final long SCANS = 400;

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void keptSetHandlesNeverReadAnotherEntrysBytes(StressRun.Threads threads) throws Exception {
        run(threads, false);
    }

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void keptSetHandlesOfALaidOutMapNeverReadAnotherEntrysBytes(StressRun.Threads threads) throws Exception {
        run(threads, true);
    }

    private static void run(StressRun.Threads threads, boolean layOut) throws Exception {
        try (GroveSortedMap<Long, byte[]> map = ValueChurn.filledMap(KEYS, layOut)) {
            AtomicReferenceArray<Map.Entry<Handle, Handle>> board = new AtomicReferenceArray<>(BOARD);
            Counts counts = new Counts();
            StressRun run = new StressRun();
            ValueChurn.scannersAndWriters(run, threads, "set", map, KEYS, SCANS, WRITES,
                    random -> scan(map, random, board, counts));
            run.runAndCheck("kept set handles under writes (" + (layOut ? "laid out, " : "") + threads + ")",
                    () -> "own elements read whole " + counts.whole.get() + ", failed " + counts.failed.get()
                            + "; board elements read whole " + counts.boardWhole.get() + ", failed "
                            + counts.boardFailed.get());
            assertTrue(counts.boardFailed.get() > 0, "no read of a kept element failed: no slice went under one");
            assertTrue(counts.boardWhole.get() > counts.boardFailed.get(), "most kept elements should be read whole: "
                    + counts.boardWhole.get() + " read, " + counts.boardFailed.get() + " failed");
            assertTrue(counts.whole.get() > counts.failed.get(), "most elements should be read whole: "
                    + counts.whole.get() + " read, " + counts.failed.get() + " failed");
        }
    }

    private static final class Counts {
        final AtomicLong whole = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final AtomicLong boardWhole = new AtomicLong();
        final AtomicLong boardFailed = new AtomicLong();
    }

    /**
     * One set iteration of up to {@value #SCAN} pairs from a random key, ascending or descending: each element read
     * and left on the board, and an element of the board read after it.
     */
    private static void scan(GroveSortedMap<Long, byte[]> map, SplittableRandom random,
            AtomicReferenceArray<Map.Entry<Handle, Handle>> board, Counts counts) {
        long from = random.nextLong(KEYS);
        boolean descending = random.nextBoolean();
        ZeroCopySortedMap<Long, byte[]> view = descending ? map.zc().descendingMap().tailMap(from, true)
                : map.zc().tailMap(from, true);
        long last = descending ? Long.MAX_VALUE : Long.MIN_VALUE;
        int n = 0;
        for (Map.Entry<Handle, Handle> e : view.entrySet()) {
            if (++n > SCAN) {
                break;
            }
            pause(random);
            try {
                long k = Serializers.longs().read(e.getKey());
                long previous = last;
                assertTrue(descending ? k < last : k > last, () -> "out of order or repeated: " + k + " after "
                        + previous);
                last = k;
                check(e, k);
                counts.whole.incrementAndGet();
            } catch (ConcurrentModificationException gone) {
                counts.failed.incrementAndGet();
            }
            board.set(random.nextInt(BOARD), e);
            Map.Entry<Handle, Handle> kept = board.get(random.nextInt(BOARD));
            if (kept != null) {
                try {
                    check(kept, Serializers.longs().read(kept.getKey()));
                    counts.boardWhole.incrementAndGet();
                } catch (ConcurrentModificationException gone) {
                    counts.boardFailed.incrementAndGet();
                }
            }
        }
    }

    /** Reads key {@code k}'s element by a getter and by a reader: each must get the entry's own bytes, whole. */
    private static void check(Map.Entry<Handle, Handle> e, long k) {
        assertEquals(k, e.getValue().getLong(0), "a value holding another key");
        long[] read = e.getValue().read(v -> new long[] {v.getLong(0), v.getLong(8), v.getLong(16)});
        assertEquals(k, read[0], "a read of key " + k + "'s value got another key");
        assertEquals(read[1], ~read[2], "a torn value of key " + k);
        assertEquals(k, Serializers.longs().read(e.getKey()), "a second read of a key got another key");
    }

    /** Now and then lets the writers run between taking an element and reading it. */
    private static void pause(SplittableRandom random) {
        if (random.nextInt(8) == 0) {
            LockSupport.parkNanos(20_000);
        }
    }
}
