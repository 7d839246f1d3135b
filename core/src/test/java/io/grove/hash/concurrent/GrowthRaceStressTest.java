package io.grove.hash.concurrent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import io.grove.view.Handle;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Lock-free lookups racing with the growth of their own segment. The other stress tests grow many segments and
 * read keys spread over all of them, so a reader is rarely probing a run at the moment its segment is rehashed;
 * here every insert lands in one segment, and the readers look only at {@value #HOT} hot keys whose hashes also
 * agree in their low 12 bits, so that they share one home slot, and lie in one run of slots, at every size up to
 * 4,096 slots: a reader spends most of its time probing that run. Meanwhile a writer inserts 3,056 other keys into
 * the segment, which doubles from 16 to 4,096 slots, and every doubling rehashes the hot run into a new array;
 * between inserts, the writer makes locked calls that change nothing (a {@code putIfAbsent} of a present key, a
 * {@code computeIfPresent} of an absent one). A hot key is never removed, so every lookup ({@code get},
 * {@code containsKey}, {@code zc().get}) must find it with its value. Each round starts over with a fresh map, so
 * that the segment grows again.
 *
 * <p>The keys are chosen with {@link Internals} (the map's own hash and segment choice) on a map of the same pool
 * settings as the test's, which fix the number of segments.
 */
class GrowthRaceStressTest {
    private static final int HOT = 16;
    private static final int KEYS = 3_072;
    private static final long HOME_MASK = (1L << 12) - 1;
    private static final int ROUNDS = 200;
    private static final int READERS = 2;
    private static final long[] SAME_SEGMENT = new long[KEYS];
    private static final int SEGMENT;

    static {
        try (MemoryPool pool = newPool();
                GroveHashMap<Long, Long> probe = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                        .expectedSize(1).pool(pool).build()) {
            SEGMENT = Internals.segmentOfLongKey(probe, 0);
            long home = Internals.hashOfLongKey(0) & HOME_MASK;
            int hot = 0;
            int other = HOT;
            for (long k = 0; hot < HOT || other < KEYS; k++) {
                if (Internals.segmentOfLongKey(probe, k) != SEGMENT) {
                    continue;
                }
                if ((Internals.hashOfLongKey(k) & HOME_MASK) == home) {
                    if (hot < HOT) {
                        SAME_SEGMENT[hot++] = k;
                    }
                } else if (other < KEYS) {
                    SAME_SEGMENT[other++] = k;
                }
            }
        }
    }

    @Test
    void lookupsOfHotKeysNeverMissWhileTheirSegmentGrows() throws Exception {
        try (MemoryPool pool = newPool()) {
            AtomicReference<GroveHashMap<Long, Long>> current = new AtomicReference<>(newRound(pool));
            AtomicLong round = new AtomicLong();
            AtomicLongArray readerRound = new AtomicLongArray(READERS);
            AtomicLong reads = new AtomicLong();
            AtomicLong inserts = new AtomicLong();
            AtomicLong minBits = new AtomicLong(Long.MAX_VALUE);
            AtomicLong roundsDone = new AtomicLong();
            StressRun run = new StressRun();
            run.workers(Thread.ofPlatform().daemon(true).name("growth-writer").factory(), 1, index -> {
                long i = 0;
                for (int r = 0; r < ROUNDS && run.proceed(i); r++) {
                    GroveHashMap<Long, Long> map = current.get();
                    for (int j = HOT; j < KEYS && run.proceed(i); j++, i++) {
                        map.put(SAME_SEGMENT[j], SAME_SEGMENT[j]);
                        // locked operations that change nothing: they take the lock the growth takes
                        Long present = map.putIfAbsent(SAME_SEGMENT[HOT], -1L);
                        if (present == null || present != SAME_SEGMENT[HOT]) {
                            throw new AssertionError("putIfAbsent of a present key returned " + present);
                        }
                        if (j + 1 < KEYS && map.computeIfPresent(SAME_SEGMENT[j + 1], (key, v) -> -1L) != null) {
                            throw new AssertionError("computeIfPresent found a key not inserted yet");
                        }
                    }
                    minBits.accumulateAndGet(Internals.slotBits(map, SEGMENT), Math::min);
                    // next round: publish a fresh map, wait until no reader can still be in the old one, close it
                    current.set(newRound(pool));
                    long next = round.incrementAndGet();
                    for (int reader = 0; reader < READERS; reader++) {
                        while (readerRound.get(reader) < next && !run.stopping()) {
                            Thread.onSpinWait();
                        }
                    }
                    map.close();
                    roundsDone.incrementAndGet();
                }
                inserts.addAndGet(i);
                round.set(Long.MAX_VALUE); // tells the readers to stop
            });
            run.workers(Thread.ofPlatform().daemon(true).name("growth-reader").factory(), READERS, index -> {
                long i = 0;
                while (run.proceed(i)) {
                    long r = round.get();
                    if (r == Long.MAX_VALUE) {
                        break;
                    }
                    GroveHashMap<Long, Long> map = current.get();
                    readerRound.set(index - 1, r); // worker 0 is the writer
                    long k = SAME_SEGMENT[(int) (i % HOT)];
                    switch ((int) (i % 3)) {
                        case 0 -> {
                            Long v = map.get(k);
                            if (v == null || v != k) {
                                throw new AssertionError("round " + r + ": get(" + k + ") returned " + v
                                        + " while the segment grew (2^" + Internals.slotBits(map, SEGMENT)
                                        + " slots, " + Internals.count(map, SEGMENT) + " entries)");
                            }
                        }
                        case 1 -> {
                            if (!map.containsKey(k)) {
                                throw new AssertionError("round " + r + ": containsKey(" + k + ") was false");
                            }
                        }
                        default -> {
                            Handle h = map.zc().get(k);
                            if (h == null) {
                                throw new AssertionError("round " + r + ": zc().get(" + k + ") returned null");
                            }
                        }
                    }
                    i++;
                }
                reads.addAndGet(i);
            });
            run.runAndCheck("lookups during growth", () -> "rounds " + roundsDone.get() + " of " + ROUNDS
                    + ", inserts " + inserts.get() + ", reads " + reads.get());
            current.get().close();
            assertTrue(minBits.get() >= 12, "a round ended with only 2^" + minBits.get() + " slots");
            assertTrue(reads.get() > 10L * ROUNDS, "too few reads to mean anything: " + reads.get());
        }
    }

    private static MemoryPool newPool() {
        return MemoryPool.builder().blockSize(1 << 20).memoryLimit(256L << 20).build();
    }

    /** A fresh map holding the hot keys, each mapped to itself. */
    private static GroveHashMap<Long, Long> newRound(MemoryPool pool) {
        GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .expectedSize(1).pool(pool).build();
        for (int j = 0; j < HOT; j++) {
            map.put(SAME_SEGMENT[j], SAME_SEGMENT[j]);
        }
        return map;
    }
}
