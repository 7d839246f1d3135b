package io.grove.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.testing.LinearizabilityGraph.Verdict;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link LinearizabilityGraph} must accept every linearizable history (a cycle is a proof of a violation), and
 * check large ones in seconds. The histories here are linearizable by construction: each operation of each
 * thread gets an interval and a linearization point inside it, the operations are applied to a sequential model
 * (a {@link TreeMap}) in the order of their points, and each is recorded with the result the model gave. The
 * intervals overlap widely (an operation lasts up to {@code latency} ticks, the gap between two of a thread's
 * operations is at most a tenth of that), so the rules of the checker see concurrent writes, reads of absent
 * after removals, batches and snapshots in every order. A false cycle fails the test with its seed and the
 * cycle's explanation.
 */
class LinearizabilityGraphRandomTest {
    private static final int SEEDS = 300;
    private static final int LARGE_OPERATIONS = 200_000;
    private static final long LARGE_CHECK_CAP_MILLIS = TimeUnit.SECONDS.toMillis(20);

    @Test
    void acceptsRandomLinearizableHistoriesWithBatchesAndSnapshots() {
        long base = Long.getLong("grove.seed", System.nanoTime());
        for (int i = 0; i < SEEDS; i++) {
            long seed = base + i;
            SplittableRandom random = new SplittableRandom(seed);
            int threads = random.nextInt(2, 9);
            int keys = random.nextInt(2, 41);
            int operations = random.nextInt(10, 2_000);
            long latency = random.nextLong(1, 200);
            History h = generate(seed, threads, keys, operations, latency);
            LinearizabilityGraph.check(h).assertNoViolation("seed " + seed + " (rerun with -Dgrove.seed=" + seed
                    + "): " + threads + " threads, " + keys + " keys, " + operations + " operations, latency "
                    + latency);
        }
    }

    @Test
    void checksALinearizableHistoryOf200000OperationsInSeconds() {
        long seed = Long.getLong("grove.seed", System.nanoTime());
        History h = generate(seed, 8, 100, LARGE_OPERATIONS, 1_000);
        Verdict v = LinearizabilityGraph.check(h);
        v.assertNoViolation("seed " + seed);
        System.out.println("LinearizabilityGraphRandomTest, seed " + seed + ": " + v.figures());
        assertTrue(v.figures().millis() < LARGE_CHECK_CAP_MILLIS, () -> "checking took over "
                + LARGE_CHECK_CAP_MILLIS + " ms: " + v.figures());
    }

    /** One generated operation: what it does, its interval and linearization point, what it returned. */
    private static final class Operation {
        final int thread;
        final History.Kind kind;
        final long invoked;
        final long point;
        final long responded;
        final long[] keys;
        final long[] values;
        /** For a snapshot: per read, a scan's {@code to} (exclusive), or -1 for a get of {@code keys[i]}. */
        final long[] scanTo;
        final List<Object> results = new ArrayList<>();

        Operation(int thread, History.Kind kind, long invoked, long point, long responded, long[] keys,
                long[] values, long[] scanTo) {
            this.thread = thread;
            this.kind = kind;
            this.invoked = invoked;
            this.point = point;
            this.responded = responded;
            this.keys = keys;
            this.values = values;
            this.scanTo = scanTo;
        }
    }

    /**
     * A linearizable history of {@code operations} operations by {@code threads} threads on keys 0 to
     * {@code keys - 1}: puts, removes, gets, batches of one to four keys (a quarter of them removals), snapshots
     * read by one to three gets or scans.
     */
    static History generate(long seed, int threads, int keys, int operations, long latency) {
        SplittableRandom random = new SplittableRandom(seed);
        History h = new History(threads);
        long[] clock = new long[threads];
        List<Operation> all = new ArrayList<>(operations);
        for (int i = 0; i < operations; i++) {
            int t = random.nextInt(threads);
            History.Recorder r = h.recorder(t);
            long invoked = clock[t] + random.nextLong(latency / 10 + 1) + 1;
            long point = invoked + random.nextLong(latency);
            long responded = point + random.nextLong(latency);
            clock[t] = responded;
            int choice = random.nextInt(10);
            Operation op;
            if (choice < 3) {
                op = new Operation(t, History.Kind.PUT, invoked, point, responded,
                        new long[] {random.nextInt(keys)}, new long[] {r.newValue()}, null);
            } else if (choice < 5) {
                op = new Operation(t, History.Kind.REMOVE, invoked, point, responded,
                        new long[] {random.nextInt(keys)}, null, null);
            } else if (choice < 7) {
                op = new Operation(t, History.Kind.GET, invoked, point, responded,
                        new long[] {random.nextInt(keys)}, null, null);
            } else if (choice < 9) {
                int n = Math.min(keys, random.nextInt(1, 5));
                long[] ks = random.longs(0, keys).distinct().limit(n).toArray();
                long[] vs = new long[n];
                for (int j = 0; j < n; j++) {
                    vs[j] = random.nextInt(4) == 0 ? History.ABSENT : r.newValue();
                }
                op = new Operation(t, History.Kind.BATCH, invoked, point, responded, ks, vs, null);
            } else {
                int n = random.nextInt(1, 4);
                long[] ks = new long[n];
                long[] scanTo = new long[n];
                for (int j = 0; j < n; j++) {
                    ks[j] = random.nextInt(keys);
                    scanTo[j] = random.nextBoolean() ? -1 : ks[j] + random.nextInt(keys + 1);
                }
                op = new Operation(t, History.Kind.SNAPSHOT, invoked, point, responded, ks, null, scanTo);
            }
            all.add(op);
        }
        apply(all);
        for (Operation op : all) {
            record(h.recorder(op.thread), op);
        }
        return h;
    }

    /** Applies the operations to the sequential model in the order of their points, keeping their results. */
    private static void apply(List<Operation> all) {
        TreeMap<Long, Long> model = new TreeMap<>();
        List<Operation> byPoint = new ArrayList<>(all);
        byPoint.sort(Comparator.comparingLong(op -> op.point));
        for (Operation op : byPoint) {
            switch (op.kind) {
                case PUT -> op.results.add(model.put(op.keys[0], op.values[0]));
                case REMOVE -> op.results.add(model.remove(op.keys[0]));
                case GET -> op.results.add(model.get(op.keys[0]));
                case BATCH -> {
                    for (int j = 0; j < op.keys.length; j++) {
                        if (op.values[j] == History.ABSENT) {
                            model.remove(op.keys[j]);
                        } else {
                            model.put(op.keys[j], op.values[j]);
                        }
                    }
                }
                case SNAPSHOT -> {
                    for (int j = 0; j < op.keys.length; j++) {
                        op.results.add(op.scanTo[j] == -1 ? model.get(op.keys[j])
                                : new TreeMap<>(model.subMap(op.keys[j], op.scanTo[j])));
                    }
                }
                default -> throw new IllegalStateException(op.kind.toString());
            }
        }
    }

    private static void record(History.Recorder r, Operation op) {
        switch (op.kind) {
            case PUT -> r.put(op.invoked, op.responded, op.keys[0], op.values[0], (Long) op.results.get(0));
            case REMOVE -> r.remove(op.invoked, op.responded, op.keys[0], (Long) op.results.get(0));
            case GET -> r.get(op.invoked, op.responded, op.keys[0], (Long) op.results.get(0));
            case BATCH -> r.batch(op.invoked, op.responded, op.keys, op.values, op.keys.length);
            case SNAPSHOT -> {
                long id = r.snapshot(op.invoked, op.responded);
                for (int j = 0; j < op.keys.length; j++) {
                    if (op.scanTo[j] == -1) {
                        r.snapshotGet(id, op.keys[j], (Long) op.results.get(j));
                    } else {
                        @SuppressWarnings("unchecked") // a scan's result, put by apply
                        Map<Long, Long> seen = (Map<Long, Long>) op.results.get(j);
                        long[] ks = seen.keySet().stream().mapToLong(Long::longValue).toArray();
                        long[] vs = seen.values().stream().mapToLong(Long::longValue).toArray();
                        r.snapshotScan(id, op.keys[j], op.scanTo[j], ks, vs, ks.length);
                    }
                }
            }
            default -> throw new IllegalStateException(op.kind.toString());
        }
    }
}
