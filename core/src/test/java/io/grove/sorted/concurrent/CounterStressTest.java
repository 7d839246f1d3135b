package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.CounterReaders;
import io.grove.testing.StressRun;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Counters through {@code zc().putIfAbsentComputeIfPresent} while the chunks around them split and merge: N
 * threads each add 1 to every counter M times, all in the same key order so that they collide; the first
 * increment of a counter inserts it. Every counter must end at exactly N×M: a lost update (an increment applied to
 * a copy of the value that a rebalance or a resize then dropped, or an insert that overwrote a counter already
 * inserted) or a doubled one (a computer run twice after a failed attempt) shows.
 *
 * <p>The counters are the even keys 0, 2, ..., in a map of chunks of four entries; two churn threads insert and
 * remove the odd keys between them all the time, so the chunks holding the counters are split, compacted and
 * merged while the increments run (in place on the value, which a rebalance must not copy or lose). In
 * {@link Mode#RESIZING} every increment also grows the value to 16 bytes and shrinks it back, so the value may
 * move to a new slice in the middle of the update while a rebalance copies the entry. Two readers watch the
 * counters meanwhile, through {@code get} and through zero-copy handles: a counter must never be seen to go down
 * or above N×M.
 */
class CounterStressTest {
    private static final int COUNTERS = 32;
    private static final long TOTAL_INCREMENTS = 400_000;
    private static final int CHURNERS = 2;
    private static final int READERS = 2;
    private static final long MIN_READS = 20_000;
    private static final long MIN_CHURN = 20_000;

    enum Mode { IN_PLACE, RESIZING }

    static Stream<Arguments> cases() {
        return Stream.of(StressRun.Threads.values())
                .flatMap(t -> Stream.of(Mode.values()).map(m -> Arguments.of(t, m)));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void countersEndAtExactlyThreadsTimesIncrements(StressRun.Threads threads, Mode mode) throws Exception {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).memoryLimit(64L << 20).build()) {
            int n = threads.count;
            long m = Math.max(2, TOTAL_INCREMENTS / ((long) n * COUNTERS));
            long expected = n * m;
            AtomicLong increments = new AtomicLong();
            AtomicLong reads = new AtomicLong();
            AtomicLong churned = new AtomicLong();
            AtomicLong writersLeft = new AtomicLong(n);
            StressRun run = new StressRun();
            run.workers(threads.factory("counter"), n, index -> {
                long i = 0;
                try {
                    for (long round = 0; round < m; round++) {
                        for (long c = 0; c < COUNTERS && run.proceed(i); c++, i++) {
                            increment(map, mode, 2 * c);
                        }
                    }
                } finally {
                    increments.addAndGet(i);
                    writersLeft.decrementAndGet();
                }
            });
            run.workers(threads.factory("counter-churn"), CHURNERS, index -> {
                SplittableRandom random = new SplittableRandom(index);
                long i = 0;
                for (; (writersLeft.get() > 0 || i < MIN_CHURN) && run.proceed(i); i++) {
                    long k = 2L * random.nextInt(COUNTERS) + 1;
                    if (random.nextBoolean()) {
                        map.put(k, -k);
                    } else {
                        map.remove(k);
                    }
                }
                churned.addAndGet(i);
            });
            // not Serializers.longs().read for handles: a handle may see a RESIZING update's 16-byte step, whose
            // first eight bytes are still the old count
            CounterReaders.add(run, threads.factory("counter-reader"), READERS, 100, COUNTERS, c -> 2 * c,
                    k -> CounterReaders.readByGet(map, k), k -> CounterReaders.readByHandle(map.zc(), k,
                            handle -> handle.read(view -> view.getLong(0) ^ Long.MIN_VALUE)),
                    expected, writersLeft, MIN_READS, reads);
            run.runAndCheck(mode + " counters with " + threads, () -> "increments " + increments.get() + " of "
                    + expected * COUNTERS + ", churn operations " + churned.get() + ", reads " + reads.get());
            for (long c = 0; c < COUNTERS; c++) {
                assertEquals(expected, map.get(2 * c), "counter " + 2 * c + " after " + n + " threads x " + m
                        + " increments");
            }
            for (var e : map.entrySet()) {
                long k = e.getKey();
                if (k < 0 || k >= 2 * COUNTERS || ((k & 1) == 1 && e.getValue() != -k)) {
                    throw new AssertionError("unexpected entry after the run: " + e);
                }
            }
        }
    }

    private static void increment(GroveSortedMap<Long, Long> map, Mode mode, long k) {
        int[] calls = new int[1];
        boolean inserted = map.zc().putIfAbsentComputeIfPresent(k, 1L, view -> {
            calls[0]++;
            // the longs serializer stores a value with its sign bit flipped, which order keeps for + 1
            long encoded = view.getLong(0);
            if (mode == Mode.RESIZING) {
                view.resize(16).putLong(8, encoded);
                view.resize(8);
            }
            view.putLong(0, encoded + 1);
        });
        if (inserted == (calls[0] == 1) || calls[0] > 1) {
            throw new AssertionError("putIfAbsentComputeIfPresent on " + k + " returned " + inserted
                    + " and ran its computer " + calls[0] + " times");
        }
    }
}
