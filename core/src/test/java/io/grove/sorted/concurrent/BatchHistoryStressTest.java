package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.WriteBatch;
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
 * Histories mixing atomic batches with single-key puts, removes and gets on the sorted map, checked by
 * {@link LinearizabilityGraph}, which also checks each batch's atomicity: a read of one of its writes orders
 * the whole batch before the read. Eight platform threads, and separately 64 virtual threads, on 20 or 200 keys of
 * a map of chunks of four entries, so that batches claim keys in chunks that split and merge under them; a batch
 * has 1 to 12 operations (a put of a value of its own, or a removal) on distinct random keys.
 *
 * <p>Not vacuous: each run must apply at least {@code OPERATIONS / 10} batches and see {@value #MIN_REBALANCES}
 * rebalances (counted as in {@link SortedMapHistoryStressTest}); a batch made visible key by key (committing after
 * the install instead of before) gave cycles in the two runs on 20 keys when this test was written.
 */
class BatchHistoryStressTest {
    private static final int OPERATIONS = 60_000;
    private static final int VIRTUAL_THREADS = 64;
    private static final int PLATFORM_THREADS = 8;
    private static final int MIN_REBALANCES = 20;
    private static final int MAX_BATCH = 12;
    private static final int SAMPLE_EVERY = 64;

    static Stream<Arguments> cases() {
        return Stream.of(StressRun.Threads.PLATFORM_MORE_THAN_CORES, StressRun.Threads.VIRTUAL)
                .flatMap(t -> Stream.of(20, 200).map(keys -> Arguments.of(t, keys)));
    }

    @ParameterizedTest(name = "{0}, {1} keys")
    @MethodSource("cases")
    void historiesWithBatchesHaveNoCycle(StressRun.Threads threads, int keys) throws Exception {
        int n = threads.virtual ? VIRTUAL_THREADS : PLATFORM_THREADS;
        History history = new History(n);
        AtomicLong rebalances = new AtomicLong();
        AtomicLong batches = new AtomicLong();
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).memoryLimit(64L << 20).build()) {
            StressRun run = new StressRun();
            run.workers(threads.factory("batch-history"), n, index -> {
                History.Recorder r = history.recorder(index);
                SplittableRandom random = new SplittableRandom(index * 0x9E3779B97F4A7C15L + System.nanoTime());
                long[] batchKeys = new long[MAX_BATCH];
                long[] batchValues = new long[MAX_BATCH];
                Object[] chunks = Internals.chunks(map);
                long seen = 0;
                long applied = 0;
                for (long i = 0; i < OPERATIONS / n && run.proceed(i); i++) {
                    long k = random.nextInt(keys);
                    int choice = random.nextInt(20);
                    long invoked = System.nanoTime();
                    if (choice < 5) {
                        int count = distinctKeys(random, keys, batchKeys, 1 + random.nextInt(MAX_BATCH));
                        WriteBatch<Long, Long> batch = map.batch();
                        for (int j = 0; j < count; j++) {
                            if (random.nextInt(4) == 0) {
                                batchValues[j] = History.ABSENT;
                                batch.remove(batchKeys[j]);
                            } else {
                                batchValues[j] = r.newValue();
                                batch.put(batchKeys[j], batchValues[j]);
                            }
                        }
                        invoked = System.nanoTime();
                        batch.apply();
                        r.batch(invoked, System.nanoTime(), batchKeys, batchValues, count);
                        applied++;
                    } else if (choice < 9) {
                        long v = r.newValue();
                        Long previous = map.put(k, v);
                        r.put(invoked, System.nanoTime(), k, v, previous);
                    } else if (choice < 12) {
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
                batches.addAndGet(applied);
            });
            run.runAndCheck("batch history of " + threads + " on " + keys + " keys", () -> history.events()
                    + " operations, " + batches + " batches, " + rebalances + " rebalances seen");
        }
        Verdict v = LinearizabilityGraph.check(history);
        v.assertNoViolation(threads + " on " + keys + " keys");
        System.out.println("checked: " + v.figures());
        assertTrue(rebalances.get() >= MIN_REBALANCES, () -> "vacuous run: " + rebalances
                + " rebalances seen, " + MIN_REBALANCES + " needed");
        assertTrue(batches.get() >= OPERATIONS / 10, () -> "vacuous run: only " + batches + " batches");
    }

    /** Fills {@code into} with {@code count} distinct keys below {@code keys} (fewer if there are not as many). */
    private static int distinctKeys(SplittableRandom random, int keys, long[] into, int count) {
        int n = Math.min(count, keys);
        int filled = 0;
        while (filled < n) {
            long k = random.nextInt(keys);
            boolean fresh = true;
            for (int j = 0; j < filled; j++) {
                fresh &= into[j] != k;
            }
            if (fresh) {
                into[filled++] = k;
            }
        }
        return n;
    }
}
