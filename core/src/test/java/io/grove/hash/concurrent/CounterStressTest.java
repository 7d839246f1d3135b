package io.grove.hash.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import java.util.ConcurrentModificationException;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Counters: N threads each add 1 to every key M times, all in the same key order so that they collide, through
 * one of three atomic read-modify-write paths: {@code zc().putIfAbsentComputeIfPresent} with an in-place +1,
 * {@code merge(k, 1L, Long::sum)}, or {@code compute}. Every key must end at exactly N×M: a lost or doubled
 * update shows. Two extra readers watch the counters meanwhile (and go on until each made {@value #MIN_READS}
 * reads), through {@code get} and through zero-copy handles: a counter must never be seen to go down or above
 * N×M. 256 keys in a map built with {@code expectedSize(1)} make the fuller segments grow while the counters
 * run.
 */
class CounterStressTest {
    private static final int KEYS = 256;
    private static final long TOTAL_INCREMENTS = 2_000_000;
    private static final int READERS = 2;
    private static final long MIN_READS = 20_000;

    enum Method { ZERO_COPY_IN_PLACE, MERGE, COMPUTE }

    static Stream<Arguments> cases() {
        return Stream.of(StressRun.Threads.values())
                .flatMap(t -> Stream.of(Method.values()).map(m -> Arguments.of(t, m)));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void countersEndAtExactlyThreadsTimesIncrements(StressRun.Threads threads, Method method) throws Exception {
        try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .expectedSize(1).memoryLimit(64L << 20).build()) {
            int bitsBefore = Internals.totalBucketBits(map);
            int n = threads.count;
            long m = Math.max(2, TOTAL_INCREMENTS / ((long) n * KEYS));
            long expected = n * m;
            AtomicLong increments = new AtomicLong();
            AtomicLong reads = new AtomicLong();
            AtomicLong writersLeft = new AtomicLong(n);
            StressRun run = new StressRun();
            run.workers(threads.factory("counter"), n, index -> {
                long i = 0;
                try {
                    for (long round = 0; round < m; round++) {
                        for (long k = 0; k < KEYS && run.proceed(i); k++, i++) {
                            increment(map, method, k);
                        }
                    }
                } finally {
                    increments.addAndGet(i);
                    writersLeft.decrementAndGet();
                }
            });
            run.workers(threads.factory("counter-reader"), READERS, index -> {
                SplittableRandom random = new SplittableRandom(index);
                long[] lastSeen = new long[KEYS];
                long i = 0;
                while ((writersLeft.get() > 0 || i < MIN_READS) && run.proceed(i)) {
                    int k = random.nextInt(KEYS);
                    long seen = (i & 1) == 0 ? readByGet(map, k) : readByHandle(map, k);
                    if (seen < lastSeen[k] || seen > expected) {
                        throw new AssertionError("counter " + k + " read " + seen + " after " + lastSeen[k]
                                + " (at most " + expected + ")");
                    }
                    lastSeen[k] = seen;
                    i++;
                }
                reads.addAndGet(i);
            });
            run.runAndCheck(method + " counters with " + threads, () -> "increments " + increments.get() + " of "
                    + expected * KEYS + ", reads " + reads.get());
            for (long k = 0; k < KEYS; k++) {
                assertEquals(expected, map.get(k), "counter " + k + " after " + n + " threads x " + m + " increments");
            }
            if (Internals.totalBucketBits(map) == bitsBefore) {
                throw new AssertionError("no segment grew: the test assumes growth during the run");
            }
        }
    }

    private static void increment(GroveHashMap<Long, Long> map, Method method, long k) {
        switch (method) {
            case ZERO_COPY_IN_PLACE ->
                    map.zc().putIfAbsentComputeIfPresent(k, 1L, view -> view.putLong(0, view.getLong(0) + 1));
            case MERGE -> map.merge(k, 1L, Long::sum);
            case COMPUTE -> map.compute(k, (key, old) -> old == null ? 1L : old + 1);
        }
    }

    private static long readByGet(GroveHashMap<Long, Long> map, long k) {
        Long v = map.get(k);
        return v == null ? 0 : v;
    }

    private static long readByHandle(GroveHashMap<Long, Long> map, long k) {
        while (true) {
            Handle handle = map.zc().get(k);
            if (handle == null) {
                return 0;
            }
            try {
                return Serializers.longs().read(handle);
            } catch (ConcurrentModificationException replaced) {
                // merge and compute replace the value's slice: look again
            }
        }
    }
}
