package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.History;
import io.grove.testing.LinearizabilityGraph;
import io.grove.testing.LinearizabilityGraph.Verdict;
import io.grove.testing.StressRun;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Histories of the sorted map's single-key operations (put, remove, get) under contention, checked by
 * {@link LinearizabilityGraph}: it must find no cycle. Eight platform threads, and separately 64 virtual threads,
 * each record their operations on 20 or 200 keys of a map of chunks of four entries, so that puts and removes
 * split and merge chunks all the time while other threads read and write the same keys; every put writes a value
 * of its own, so every read names the write it saw. {@value #OPERATIONS} operations per run; the check of such a
 * history takes 0.3 to 1 s.
 *
 * <p>Not vacuous: the workers count the rebalances they see complete (the map's chunk array replaced, see
 * {@link Internals#chunks}) and the run must see at least {@value #MIN_REBALANCES}; and the checker's power on
 * the same kind of history is shown by {@code ModelMapLinearizabilityTest}, whose broken models give cycles
 * within a history of 8,000 operations.
 */
class SortedMapHistoryStressTest {
    private static final int OPERATIONS = 120_000;
    private static final int VIRTUAL_THREADS = 64;
    private static final int PLATFORM_THREADS = 8;
    private static final int MIN_REBALANCES = 20;
    private static final int SAMPLE_EVERY = 64;

    static Stream<Arguments> cases() {
        return Stream.of(StressRun.Threads.PLATFORM_MORE_THAN_CORES, StressRun.Threads.VIRTUAL)
                .flatMap(t -> Stream.of(20, 200).map(keys -> Arguments.of(t, keys)));
    }

    @ParameterizedTest(name = "{0}, {1} keys")
    @MethodSource("cases")
    void historiesOfPutsRemovesAndGetsHaveNoCycle(StressRun.Threads threads, int keys) throws Exception {
        int n = threads.virtual ? VIRTUAL_THREADS : PLATFORM_THREADS;
        History history = new History(n);
        AtomicLong rebalances = new AtomicLong();
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).memoryLimit(64L << 20).build()) {
            StressRun run = new StressRun();
            run.workers(threads.factory("history"), n, index -> {
                History.Recorder r = history.recorder(index);
                SplittableRandom random = new SplittableRandom(index * 0x9E3779B97F4A7C15L + System.nanoTime());
                Object[] chunks = Internals.chunks(map);
                long seen = 0;
                for (long i = 0; i < OPERATIONS / n && run.proceed(i); i++) {
                    long k = random.nextInt(keys);
                    int choice = random.nextInt(20);
                    long invoked = System.nanoTime();
                    if (choice < 8) {
                        long v = r.newValue();
                        Long previous = map.put(k, v);
                        r.put(invoked, System.nanoTime(), k, v, previous);
                    } else if (choice < 13) {
                        Long previous = map.remove(k);
                        r.remove(invoked, System.nanoTime(), k, previous);
                    } else {
                        Long value = map.get(k);
                        r.get(invoked, System.nanoTime(), k, value);
                    }
                    if (i % SAMPLE_EVERY == 0 && Internals.chunks(map) != chunks) {
                        chunks = Internals.chunks(map);
                        seen++;
                    }
                }
                rebalances.addAndGet(seen);
            });
            run.runAndCheck("history of " + threads + " on " + keys + " keys", () -> history.events()
                    + " operations, " + rebalances + " rebalances seen");
        }
        Verdict v = LinearizabilityGraph.check(history);
        v.assertNoViolation(threads + " on " + keys + " keys");
        System.out.println("checked: " + v.figures());
        assertTrue(rebalances.get() >= MIN_REBALANCES, () -> "vacuous run: " + rebalances
                + " rebalances seen, " + MIN_REBALANCES + " needed");
    }
}
