package io.grove.hash.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.testing.CounterReaders;
import io.grove.testing.StressRun;
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
            int bitsBefore = Internals.totalSlotBits(map);
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
            CounterReaders.add(run, threads.factory("counter-reader"), READERS, 0, KEYS, k -> k,
                    k -> CounterReaders.readByGet(map, k),
                    k -> CounterReaders.readByHandle(map.zc(), k, Serializers.longs()::read), expected, writersLeft,
                    MIN_READS, reads);
            run.runAndCheck(method + " counters with " + threads, () -> "increments " + increments.get() + " of "
                    + expected * KEYS + ", reads " + reads.get());
            for (long k = 0; k < KEYS; k++) {
                assertEquals(expected, map.get(k), "counter " + k + " after " + n + " threads x " + m + " increments");
            }
            if (Internals.totalSlotBits(map) == bitsBefore) {
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
}
