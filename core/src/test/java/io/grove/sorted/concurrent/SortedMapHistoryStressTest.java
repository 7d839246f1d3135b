package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSnapshot;
import io.grove.GroveSortedMap;
import io.grove.WriteBatch;
import io.grove.ZeroCopySortedReads;
import io.grove.serial.Serializers;
import io.grove.testing.History;
import io.grove.testing.LinearizabilityGraph;
import io.grove.testing.LinearizabilityGraph.Verdict;
import io.grove.testing.StressRun;
import io.grove.view.Handle;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Histories of the sorted map's single-key operations (put, remove, get) under contention, alone, mixed with atomic
 * batches, and mixed with batches and snapshots, checked by {@link LinearizabilityGraph}: it must find no cycle (for a
 * batch, a read of one of its writes orders the whole batch before the read; a snapshot is one atomic read of the whole
 * map inside the interval of its acquisition). A snapshot operation opens a snapshot, reads a key with {@code get},
 * another through a zero-copy handle, and scans a range of up to {@value #MAX_SCAN} keys (ascending or descending,
 * through its map view or its zero-copy stream), then closes it. Eight platform threads, and separately 64 virtual
 * threads, each record their operations on 3, 20 or 200 keys of a map of chunks of four entries, so that puts, removes
 * and batches split and merge chunks all the time while other threads read and write the same keys; every put writes a
 * value of its own, so every read names the write it saw. A batch has 1 to {@value #MAX_BATCH} operations (a put or a
 * removal) on distinct random keys. {@value #OPERATIONS} single-key operations per run, or
 * {@value #OPERATIONS_WITH_BATCHES} operations of which a quarter are batches; the check of such a history takes 0.1 to
 * 1 s.
 *
 * <p>Not vacuous: the workers count the rebalances they see complete (the map's chunk array replaced, see
 * {@link Internals#chunks}) and the run must see at least {@value #MIN_REBALANCES}, and a run with batches must
 * apply at least a tenth of its operations as batches; the checker's power on the same kind of history is shown
 * by {@code ModelMapLinearizabilityTest}, whose broken models give cycles within a history of 8,000 operations, and
 * here by a batch made visible key by key (committing after the install instead of before): cycles in both runs
 * with batches on 20 keys in each of two checks by hand, and in one of the two on 200 keys in the second. The 3 keys
 * make races on one key frequent: with a put on a tombstone stamped before plain readers had to wait for it (the
 * stamping mark of {@code ValueHeader} taken out), 64 virtual threads on 3 keys with batches and snapshots gave a
 * cycle (a snapshot saw the put, a later get read the key absent) in the 15th run of that case; on 20 keys, with a
 * busy process beside the test, in the 207th run, then in the 7th.
 */
class SortedMapHistoryStressTest {
    private static final int OPERATIONS = 120_000;
    private static final int OPERATIONS_WITH_BATCHES = 60_000;
    private static final int VIRTUAL_THREADS = 64;
    private static final int PLATFORM_THREADS = 8;
    private static final int MIN_REBALANCES = 20;
    private static final int MAX_BATCH = 12;
    private static final int SAMPLE_EVERY = 64;
    /** The most keys a snapshot's scan covers. */
    private static final int MAX_SCAN = 16;

    /** What a history holds besides single-key operations. */
    enum Mix {
        SINGLE_KEY, BATCHES, BATCHES_AND_SNAPSHOTS
    }

    static Stream<Arguments> cases() {
        return Stream.of(Mix.values()).flatMap(mix -> Stream.of(StressRun.Threads.PLATFORM_MORE_THAN_CORES,
                StressRun.Threads.VIRTUAL).flatMap(t -> Stream.of(3, 20, 200)
                        .map(keys -> Arguments.of(t, keys, mix))));
    }

    @ParameterizedTest(name = "{0}, {1} keys, {2}")
    @MethodSource("cases")
    void historiesHaveNoCycle(StressRun.Threads threads, int keys, Mix mix) throws Exception {
        int n = threads.virtual ? VIRTUAL_THREADS : PLATFORM_THREADS;
        boolean withBatches = mix != Mix.SINGLE_KEY;
        boolean withSnapshots = mix == Mix.BATCHES_AND_SNAPSHOTS;
        int operations = withBatches ? OPERATIONS_WITH_BATCHES : OPERATIONS;
        String what = threads + " on " + keys + " keys, " + mix;
        // of 20: with batches and snapshots 4 batches, 3 snapshots, 4 puts, 3 removes, 6 gets; with batches
        // 5 batches, 4 puts, 3 removes, 8 gets; without, 8 puts, 5 removes, 7 gets
        int batchBelow = withSnapshots ? 4 : withBatches ? 5 : 0;
        int snapshotBelow = withSnapshots ? 7 : batchBelow;
        int putBelow = withSnapshots ? 11 : withBatches ? 9 : 8;
        int removeBelow = withSnapshots ? 14 : withBatches ? 12 : 13;
        History history = new History(n);
        AtomicLong rebalances = new AtomicLong();
        AtomicLong batches = new AtomicLong();
        AtomicLong snapshots = new AtomicLong();
        GroveSortedMap.Builder<Long, Long> builder = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).memoryLimit(64L << 20);
        try (GroveSortedMap<Long, Long> map = (withSnapshots ? builder.snapshots() : builder).build()) {
            StressRun run = new StressRun();
            run.workers(threads.factory("history"), n, index -> {
                History.Recorder r = history.recorder(index);
                SplittableRandom random = new SplittableRandom(index * 0x9E3779B97F4A7C15L + System.nanoTime());
                long[] batchKeys = new long[MAX_BATCH];
                long[] batchValues = new long[MAX_BATCH];
                long[] scanKeys = new long[MAX_SCAN];
                long[] scanValues = new long[MAX_SCAN];
                Object[] chunks = Internals.chunks(map);
                long seen = 0;
                long applied = 0;
                long taken = 0;
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
                    } else if (choice < snapshotBelow) {
                        try (GroveSnapshot<Long, Long> snapshot = map.snapshot()) {
                            long id = r.snapshot(invoked, System.nanoTime());
                            r.snapshotGet(id, k, snapshot.get(k));
                            long other = random.nextInt(keys);
                            Handle handle = snapshot.zc().get(other);
                            r.snapshotGet(id, other, handle == null ? null : decode(handle));
                            long from = random.nextInt(keys);
                            long to = Math.min(keys, from + 1 + random.nextInt(MAX_SCAN));
                            boolean descending = random.nextBoolean();
                            int count = 0;
                            if (random.nextBoolean()) {
                                NavigableMap<Long, Long> range = snapshot.subMap(from, true, to, false);
                                for (Map.Entry<Long, Long> e :
                                        (descending ? range.descendingMap() : range).entrySet()) {
                                    int at = descending ? MAX_SCAN - 1 - count : count; // kept in ascending order
                                    scanKeys[at] = e.getKey();
                                    scanValues[at] = e.getValue();
                                    count++;
                                }
                            } else {
                                ZeroCopySortedReads<Long, Long> range = snapshot.zc().subMap(from, true, to, false);
                                Iterator<Map.Entry<Handle, Handle>> entries =
                                        (descending ? range.descendingMap() : range).entryStream().iterator();
                                while (entries.hasNext()) {
                                    Map.Entry<Handle, Handle> e = entries.next();
                                    int at = descending ? MAX_SCAN - 1 - count : count;
                                    scanKeys[at] = decode(e.getKey());
                                    scanValues[at] = decode(e.getValue());
                                    count++;
                                }
                            }
                            if (descending) {
                                System.arraycopy(scanKeys, MAX_SCAN - count, scanKeys, 0, count);
                                System.arraycopy(scanValues, MAX_SCAN - count, scanValues, 0, count);
                            }
                            r.snapshotScan(id, from, to, scanKeys, scanValues, count);
                        }
                        taken++;
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
                snapshots.addAndGet(taken);
            });
            run.runAndCheck("history of " + what, () -> history.events() + " operations, " + batches + " batches, "
                    + snapshots + " snapshots, " + rebalances + " rebalances seen");
        }
        Verdict v = LinearizabilityGraph.check(history);
        v.assertNoViolation(what);
        System.out.println("checked: " + v.figures());
        assertTrue(rebalances.get() >= MIN_REBALANCES, () -> "vacuous run: " + rebalances
                + " rebalances seen, " + MIN_REBALANCES + " needed");
        assertTrue(!withBatches || batches.get() >= operations / 10, () -> "vacuous run: only " + batches
                + " batches");
        assertTrue(!withSnapshots || snapshots.get() >= operations / 10, () -> "vacuous run: only " + snapshots
                + " snapshots");
    }

    /** The long a handle on a value holds (the serializer flips the sign bit). */
    private static long decode(Handle handle) {
        return handle.getLong(0) ^ Long.MIN_VALUE;
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
