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
 * Histories of the sorted map's single-key operations (put, remove, get) under contention, alone and mixed with
 * atomic batches, checked by {@link LinearizabilityGraph}: it must find no cycle (for a batch, a read of one of its
 * writes orders the whole batch before the read). Eight platform threads, and separately 64 virtual threads, each
 * record their operations on 20 or 200 keys of a map of chunks of four entries, so that puts, removes and batches
 * split and merge chunks all the time while other threads read and write the same keys; every put writes a value
 * of its own, so every read names the write it saw. A batch has 1 to {@value #MAX_BATCH} operations (a put or a
 * removal) on distinct random keys. {@value #OPERATIONS} single-key operations per run, or
 * {@value #OPERATIONS_WITH_BATCHES} operations of which a quarter are batches; the check of such a history takes
 * 0.1 to 1 s.
 *
 * <p>Not vacuous: the workers count the rebalances they see complete (the map's chunk array replaced, see
 * {@link Internals#chunks}) and the run must see at least {@value #MIN_REBALANCES}, and a run with batches must
 * apply at least a tenth of its operations as batches; the checker's power on the same kind of history is shown
 * by {@code ModelMapLinearizabilityTest}, whose broken models give cycles within a history of 8,000 operations, and
 * here by a batch made visible key by key (committing after the install instead of before): cycles in both runs
 * with batches on 20 keys in each of two checks by hand, and in one of the two on 200 keys in the second.
 */
class SortedMapHistoryStressTest {
    private static final int OPERATIONS = 120_000;
    private static final int OPERATIONS_WITH_BATCHES = 60_000;
    private static final int VIRTUAL_THREADS = 64;
    private static final int PLATFORM_THREADS = 8;
    private static final int MIN_REBALANCES = 20;
    private static final int MAX_BATCH = 12;
    private static final int SAMPLE_EVERY = 64;

    static Stream<Arguments> cases() {
        return Stream.of(false, true).flatMap(batches -> Stream.of(StressRun.Threads.PLATFORM_MORE_THAN_CORES,
                StressRun.Threads.VIRTUAL).flatMap(t -> Stream.of(20, 200)
                        .map(keys -> Arguments.of(t, keys, batches))));
    }

    @ParameterizedTest(name = "{0}, {1} keys, batches {2}")
    @MethodSource("cases")
    void historiesHaveNoCycle(StressRun.Threads threads, int keys, boolean withBatches) throws Exception {
        int n = threads.virtual ? VIRTUAL_THREADS : PLATFORM_THREADS;
        int operations = withBatches ? OPERATIONS_WITH_BATCHES : OPERATIONS;
        String what = threads + " on " + keys + " keys" + (withBatches ? " with batches" : "");
        // of 20: with batches 5 batches, 4 puts, 3 removes, 8 gets; without, 8 puts, 5 removes, 7 gets
        int batchBelow = withBatches ? 5 : 0;
        int putBelow = withBatches ? 9 : 8;
        int removeBelow = withBatches ? 12 : 13;
        History history = new History(n);
        AtomicLong rebalances = new AtomicLong();
        AtomicLong batches = new AtomicLong();
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).memoryLimit(64L << 20).build()) {
            StressRun run = new StressRun();
            run.workers(threads.factory("history"), n, index -> {
                History.Recorder r = history.recorder(index);
                SplittableRandom random = new SplittableRandom(index * 0x9E3779B97F4A7C15L + System.nanoTime());
                long[] batchKeys = new long[MAX_BATCH];
                long[] batchValues = new long[MAX_BATCH];
                Object[] chunks = Internals.chunks(map);
                long seen = 0;
                long applied = 0;
                for (long i = 0; i < operations / n && run.proceed(i); i++) {
                    long k = random.nextInt(keys);
                    int choice = random.nextInt(20);
                    long invoked = System.nanoTime();
                    if (choice < batchBelow) {
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
                    } else if (choice < putBelow) {
                        long v = r.newValue();
                        Long previous = map.put(k, v);
                        r.put(invoked, System.nanoTime(), k, v, previous);
                    } else if (choice < removeBelow) {
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
            run.runAndCheck("history of " + what, () -> history.events() + " operations, " + batches + " batches, "
                    + rebalances + " rebalances seen");
        }
        Verdict v = LinearizabilityGraph.check(history);
        v.assertNoViolation(what);
        System.out.println("checked: " + v.figures());
        assertTrue(rebalances.get() >= MIN_REBALANCES, () -> "vacuous run: " + rebalances
                + " rebalances seen, " + MIN_REBALANCES + " needed");
        assertTrue(!withBatches || batches.get() >= operations / 10, () -> "vacuous run: only " + batches
                + " batches");
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
