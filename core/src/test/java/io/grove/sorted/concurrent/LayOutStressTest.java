package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.ZeroCopySortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import io.grove.view.Handle;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A map that lays out its pairs for scans ({@link GroveSortedMap.Builder#layOutForScans()}) under scans, in-place
 * updates and inserts, with no replacement and no removal: so no handle may ever fail, and every update counts.
 * Keys 0, 2, .. are inserted in random order into chunks of 64; each value is 24 bytes: its key, then a counter
 * twice. Scanners read zero-copy streams (ascending and descending, from random keys) and check each element's key
 * and value as they go, sometimes pausing between taking an element and reading it so that a layout can move the
 * pair under the stream's handles ({@code Moves}); updaters increment both counters of random keys in place
 * ({@code zc().computeIfPresent}) and insert odd keys, which makes scanned chunks worth laying out again; a few
 * threads hold {@code zc().get} handles across other work and read them again. Checked: every read succeeds, a value
 * holds its own key and two equal counters, streams come out in order without repeats, and at the end each key's
 * counter equals the increments acknowledged for it (a layout that copied a value while an update wrote the old
 * one would lose increments) and every inserted key is present. The run must have laid chunks out.
 */
class LayOutStressTest {
    private static final int KEYS = 4_000;
    private static final int SCAN = 300;
    private static final long UPDATES = 60_000;
    private static final long SCANS = 600;
    /** Half the updates go to keys below this, a few chunks, so that layouts of those chunks meet updates. */
    private static final long HOT = 256;

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void layoutsLoseNothingAndNeverFailAHandle(StressRun.Threads threads) throws Exception {
        try (GroveSortedMap<Long, byte[]> map = GroveSortedMap.builder(Serializers.longs(), Serializers.bytes())
                .chunkSize(64).layOutForScans().build()) {
            List<Long> keys = new ArrayList<>();
            for (long k = 0; k < KEYS; k++) {
                keys.add(2 * k);
            }
            Collections.shuffle(keys, new Random(5));
            for (long k : keys) {
                map.put(k, value(k, 0));
            }
            Object[] initialChunks = Internals.chunks(map);
            AtomicLongArray increments = new AtomicLongArray(2 * KEYS);
            AtomicLongArray inserted = new AtomicLongArray(2 * KEYS);
            AtomicLong moves = new AtomicLong();
            AtomicLong elements = new AtomicLong();
            AtomicLong laidOut = new AtomicLong();
            int scanners = Math.max(2, threads.count / 4);
            int holders = Math.max(1, threads.count / 16);
            int updaters = threads.count - scanners - holders;
            StressRun run = new StressRun();
            run.workers(threads.factory("layout-scan"), scanners, index -> {
                SplittableRandom random = new SplittableRandom(index);
                for (long n = 0; n < SCANS / scanners + 1 && run.proceed(n); n++) {
                    scan(map, random, elements, moves);
                    if (Thread.currentThread().isVirtual()) {
                        LockSupport.parkNanos(1_000); // a scan is a long CPU-bound step: let the others run
                    }
                }
            });
            run.workers(threads.factory("layout-update"), updaters, index -> {
                SplittableRandom random = new SplittableRandom(100 + index);
                for (long n = 0; n < UPDATES / updaters && run.proceed(n); n++) {
                    long k = random.nextLong(random.nextBoolean() ? HOT : 2L * KEYS);
                    if (k % 2 == 1 && random.nextInt(4) == 0) {
                        if (map.zc().putIfAbsent(k, value(k, 0))) {
                            inserted.set((int) k, 1);
                        }
                    } else if (map.zc().computeIfPresent(k, v -> {
                        long count = v.getLong(8);
                        v.putLong(8, count + 1);
                        v.putLong(16, count + 1);
                    })) {
                        increments.incrementAndGet((int) k);
                    }
                }
            });
            run.workers(threads.factory("layout-hold"), holders, index -> {
                SplittableRandom random = new SplittableRandom(200 + index);
                for (long n = 0; n < 200 && run.proceed(n); n++) {
                    long k = 2 * random.nextLong(KEYS);
                    Handle held = map.zc().get(k);
                    LockSupport.parkNanos(100_000);
                    check(k, held);
                }
            });
            run.runAndCheck("layouts under " + threads, () -> "elements " + elements.get() + ", moved under a "
                    + "handle " + moves.get());

            for (long k = 0; k < 2L * KEYS; k++) {
                byte[] v = map.get(k);
                boolean present = k % 2 == 0 || inserted.get((int) k) == 1;
                assertEquals(present, v != null, "key " + k);
                if (v != null) {
                    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(v);
                    assertEquals(k, b.getLong(0));
                    assertEquals(increments.get((int) k), b.getLong(8), "increments of key " + k);
                    assertEquals(b.getLong(8), b.getLong(16), "a torn counter of key " + k);
                }
            }
            for (Object chunk : Internals.chunks(map)) {
                boolean initial = false;
                for (Object c : initialChunks) {
                    initial |= c == chunk;
                }
                laidOut.addAndGet(initial ? 0 : 1);
            }
            assertTrue(laidOut.get() > 0, "no chunk was rebuilt by the run");
            assertTrue(Internals.laidOutChunks(map) > 0, "no chunk of the map is laid out");
        }
    }

    private static byte[] value(long key, long count) {
        return java.nio.ByteBuffer.allocate(24).putLong(key).putLong(count).putLong(count).array();
    }

    /** One stream of up to {@value #SCAN} pairs from a random key, ascending or descending, each checked. */
    private static void scan(GroveSortedMap<Long, byte[]> map, SplittableRandom random, AtomicLong elements,
            AtomicLong moves) {
        long from = random.nextLong(2L * KEYS);
        boolean descending = random.nextBoolean();
        ZeroCopySortedMap<Long, byte[]> view = descending ? map.zc().descendingMap().tailMap(from, true)
                : map.zc().tailMap(from, true);
        Iterator<Map.Entry<Handle, Handle>> stream = view.entryStream().limit(SCAN).iterator();
        long last = descending ? Long.MAX_VALUE : Long.MIN_VALUE;
        for (int i = 0; stream.hasNext(); i++) {
            Map.Entry<Handle, Handle> e = stream.next();
            long refBefore = ((io.grove.internal.view.StreamHandle) e.getValue()).reference();
            if (i % 16 == 0) {
                LockSupport.parkNanos(50_000); // let a layout move the pair under the handles
            }
            long k = Serializers.longs().read(e.getKey());
            assertTrue(descending ? k < last : k > last, () -> "out of order or repeated: " + k + " after a key");
            last = k;
            check(k, e.getValue());
            if (((io.grove.internal.view.StreamHandle) e.getValue()).reference() != refBefore) {
                moves.incrementAndGet();
            }
            elements.incrementAndGet();
        }
    }

    /** Reads a value through a handle: its key and two equal counters, read in one consistent state. */
    private static void check(long key, Handle value) {
        long[] read = value.read(v -> new long[] {v.getLong(0), v.getLong(8), v.getLong(16)});
        assertEquals(key, read[0], "a value holding another key");
        assertEquals(read[1], read[2], "a torn value of key " + key);
    }
}
