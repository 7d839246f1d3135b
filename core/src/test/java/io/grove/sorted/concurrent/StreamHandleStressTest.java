package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.ZeroCopySortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import io.grove.view.Handle;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The reused handles of zero-copy entry streams while writers replace values, remove keys, put them back and update
 * values in place, in chunks of 64 that rebalances keep replacing, so that the slices a stream's handles point to are
 * deleted and reused under them. A stream's handles validate their reads against the entry they were pointed from and
 * remember the last stamp they confirmed ({@code SliceHandle.Origin}): this test checks that neither lets a read return
 * another entry's bytes or a torn value. Each value is 24 bytes: its key, a counter and the counter's complement,
 * written in place in two steps; other in-place writes put a key no value holds and are undone. Scanners read streams
 * from random keys, ascending and descending, pausing now and then between taking an element and reading it and between
 * two reads of one value. Checked: every read either throws {@link ConcurrentModificationException} or returns the
 * entry's own bytes (a value holding its own key, a counter with its complement), keys come out in order without
 * repeats; the run must have made reads fail (slices went under handles) and read most elements whole. Runs on a
 * default map and on one that lays out its pairs for scans.
 */
class StreamHandleStressTest {
    private static final int KEYS = 2_000;
    private static final int SCAN = 200;
    private static final long WRITES = 60_000;
    private static final long SCANS = 400;

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void streamHandlesNeverReadAnotherEntrysBytes(StressRun.Threads threads) throws Exception {
        run(threads, false);
    }

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void streamHandlesOfALaidOutMapNeverReadAnotherEntrysBytes(StressRun.Threads threads) throws Exception {
        run(threads, true);
    }

    private static void run(StressRun.Threads threads, boolean layOut) throws Exception {
        try (GroveSortedMap<Long, byte[]> map = ValueChurn.filledMap(KEYS, layOut)) {
            AtomicLong whole = new AtomicLong();
            AtomicLong failed = new AtomicLong();
            StressRun run = new StressRun();
            ValueChurn.scannersAndWriters(run, threads, "stream", map, KEYS, SCANS, WRITES,
                    random -> scan(map, random, whole, failed));
            run.runAndCheck("stream handles under writes (" + (layOut ? "laid out, " : "") + threads + ")",
                    () -> "elements read whole " + whole.get() + ", reads failed " + failed.get());
            assertTrue(failed.get() > 0, "no read failed: no slice went under a stream's handle");
            assertTrue(whole.get() > failed.get(), "most elements should be read whole: " + whole.get() + " read, "
                    + failed.get() + " failed");
        }
    }

    /** One stream of up to {@value #SCAN} pairs from a random key, ascending or descending, each read checked. */
    private static void scan(GroveSortedMap<Long, byte[]> map, SplittableRandom random, AtomicLong whole,
            AtomicLong failed) {
        long from = random.nextLong(KEYS);
        boolean descending = random.nextBoolean();
        ZeroCopySortedMap<Long, byte[]> view = descending ? map.zc().descendingMap().tailMap(from, true)
                : map.zc().tailMap(from, true);
        Iterator<Map.Entry<Handle, Handle>> stream = view.entryStream().limit(SCAN).iterator();
        long last = descending ? Long.MAX_VALUE : Long.MIN_VALUE;
        while (stream.hasNext()) {
            Map.Entry<Handle, Handle> e = stream.next();
            pause(random);
            try {
                long k = Serializers.longs().read(e.getKey());
                long previous = last;
                assertTrue(descending ? k < last : k > last, () -> "out of order or repeated: " + k + " after "
                        + previous);
                last = k;
                assertEquals(k, e.getValue().getLong(0), "a value holding another key");
                pause(random); // the next reads start from the stamp the first one confirmed
                assertEquals(k, e.getValue().getLong(0), "a second read of key " + k + "'s first word got another key");
                boolean slow = random.nextInt(4) == 0; // reads long enough for a writer to run between its words
                long[] read = e.getValue().read(v -> {
                    long count = v.getLong(8);
                    if (slow) {
                        ValueChurn.spin();
                    }
                    return new long[] {v.getLong(0), count, v.getLong(16)};
                });
                assertEquals(k, read[0], "a second read of key " + k + "'s value got another key");
                assertEquals(read[1], ~read[2], "a torn value of key " + k);
                assertEquals(k, Serializers.longs().read(e.getKey()), "a second read of a key got another key");
                whole.incrementAndGet();
            } catch (ConcurrentModificationException gone) {
                failed.incrementAndGet();
            }
        }
    }

    /** Now and then lets the writers run between two reads of a stream's element. */
    private static void pause(SplittableRandom random) {
        if (random.nextInt(8) == 0) {
            LockSupport.parkNanos(20_000);
        }
    }
}
