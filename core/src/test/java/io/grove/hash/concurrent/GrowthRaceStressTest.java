package io.grove.hash.concurrent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import io.grove.testing.PaddedLongs;
import io.grove.testing.StressRun;
import io.grove.view.Handle;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
 * settings and layout as the test's, which fix the number of segments.
 *
 * <p>The test runs on both layouts ({@link Layout}): entries in slices, and entries in the cells of the segment's
 * array ({@code inlineEntries}), which the growth copies to the new array while readers probe them.
 */
class GrowthRaceStressTest {
    private static final int HOT = 16;
    private static final int KEYS = 3_072;
    private static final long HOME_MASK = (1L << 12) - 1;
    private static final int ROUNDS = 200;
    private static final int READERS = 2;
    /** The hot keys that the inline layout's readers read with {@code zc().get}. */
    private static final int ZC_HOT = 4;
    /** Values of the inline layout: a fifth of the keys (which map to themselves) do not fit their cells. */
    private static final PaddedLongs PADDED = new PaddedLongs(16, v -> v % 5 == 0);

    /** How the map lays its entries out. */
    enum Layout {
        /** Every entry in its own slice. */
        SLICES,
        /**
         * {@code inlineEntries(8, 8)} with {@link #PADDED} values: most entries in their cells, which the growth
         * copies, and some apart. Every fourth hot key has a padded value, so the hot run holds both kinds. The
         * readers' {@code zc().get}, which moves an entry out of its cell, reads only the first {@code ZC_HOT} of
         * the hot keys, so that the others stay in their cells.
         */
        INLINE_CELLS;

        GroveHashMap<Long, Long> build(MemoryPool pool) {
            GroveHashMap.Builder<Long, Long> builder = GroveHashMap.builder(Serializers.longs(),
                    this == SLICES ? Serializers.longs() : PADDED).expectedSize(1).pool(pool);
            return (this == SLICES ? builder : builder.inlineEntries(Long.BYTES, Long.BYTES)).build();
        }

        int zcHot() {
            return this == SLICES ? HOT : ZC_HOT;
        }
    }

    /**
     * The keys of one segment ({@code segment}): first the {@value #HOT} hot keys, then the others; found once per
     * layout.
     */
    private static final class Aim {
        final int segment;
        final long[] sameSegment;

        private Aim(int segment, long[] sameSegment) {
            this.segment = segment;
            this.sameSegment = sameSegment;
        }

        static Aim of(Layout layout) {
            long[] keys = new long[KEYS];
            try (MemoryPool pool = newPool();
                    GroveHashMap<Long, Long> probe = layout.build(pool)) {
                int segment = Internals.segmentOfLongKey(probe, 0);
                long home = Internals.hashOfLongKey(0) & HOME_MASK;
                int hot = 0;
                int other = HOT;
                for (long k = 0; hot < HOT || other < KEYS; k++) {
                    if (Internals.segmentOfLongKey(probe, k) != segment) {
                        continue;
                    }
                    if ((Internals.hashOfLongKey(k) & HOME_MASK) == home) {
                        if (hot < HOT && PADDED.isPadded(k) == (hot % 4 == 3)) {
                            keys[hot++] = k;
                        }
                    } else if (other < KEYS) {
                        keys[other++] = k;
                    }
                }
                return new Aim(segment, keys);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Layout.class)
    void lookupsOfHotKeysNeverMissWhileTheirSegmentGrows(Layout layout) throws Exception {
        Aim aim = Aim.of(layout);
        long[] sameSegment = aim.sameSegment;
        int segment = aim.segment;
        int zcHot = layout.zcHot();
        try (MemoryPool pool = newPool()) {
            AtomicReference<GroveHashMap<Long, Long>> current = new AtomicReference<>(newRound(pool, layout, aim));
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
                        map.put(sameSegment[j], sameSegment[j]);
                        // locked operations that change nothing: they take the lock the growth takes
                        Long present = map.putIfAbsent(sameSegment[HOT], -1L);
                        if (present == null || present != sameSegment[HOT]) {
                            throw new AssertionError("putIfAbsent of a present key returned " + present);
                        }
                        if (j + 1 < KEYS && map.computeIfPresent(sameSegment[j + 1], (key, v) -> -1L) != null) {
                            throw new AssertionError("computeIfPresent found a key not inserted yet");
                        }
                    }
                    minBits.accumulateAndGet(Internals.slotBits(map, segment), Math::min);
                    // next round: publish a fresh map, wait until no reader can still be in the old one, close it
                    current.set(newRound(pool, layout, aim));
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
                    int op = (int) (i % 3);
                    long k = sameSegment[(int) (op == 2 ? i % zcHot : i % HOT)];
                    switch (op) {
                        case 0 -> {
                            Long v = map.get(k);
                            if (v == null || v != k) {
                                throw new AssertionError("round " + r + ": get(" + k + ") returned " + v
                                        + " while the segment grew (2^" + Internals.slotBits(map, segment)
                                        + " slots, " + Internals.count(map, segment) + " entries)");
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
    private static GroveHashMap<Long, Long> newRound(MemoryPool pool, Layout layout, Aim aim) {
        GroveHashMap<Long, Long> map = layout.build(pool);
        for (int j = 0; j < HOT; j++) {
            map.put(aim.sameSegment[j], aim.sameSegment[j]);
        }
        return map;
    }
}
