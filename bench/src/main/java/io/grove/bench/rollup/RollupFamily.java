package io.grove.bench.rollup;

import io.grove.bench.Family;
import io.grove.bench.ThreadContext;
import io.grove.bench.WorkerConfig;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The rollup family (Druid's incremental index, which Oak was built for): events ({@link RollupEvents}) are
 * aggregated into rows keyed by (time bucket, dimension values), and time-range queries group the rows of a few
 * buckets by one dimension.
 *
 * <p>Prefill: every event of the stream once, in time order, on one thread (the first pass, which creates every
 * row; its time is the run's {@code prefillSeconds}). Then {@code ingest} aggregates a uniformly drawn event of the
 * stream into its row again (a row that exists: in-place aggregation), and {@code query} groups the rows of
 * {@value #WINDOW} consecutive buckets by one dimension (both drawn from the operation's key).
 *
 * <p>Checks: a query whose groups count fewer events than its buckets received, or, when nothing but the prefill
 * ingested, other than exactly those, is a mismatch; after the run the index's total count and total sum must equal
 * the events ingested and their metrics' sum ({@link #verify}).
 */
public final class RollupFamily implements Family<RollupIndex> {
    public static final String NAME = "rollup";
    public static final RollupFamily INSTANCE = new RollupFamily();
    static final int INGEST = 0;
    static final int QUERY = 1;
    /** Buckets (hours) per query. */
    static final int WINDOW = 4;
    private static final List<String> OPERATIONS = List.of("ingest", "query");

    /** Every thread's counts, for {@link #verify}. */
    private final List<RollupThread> threads = new CopyOnWriteArrayList<>();
    private final ThreadLocal<RollupThread> thread = ThreadLocal.withInitial(() -> {
        RollupThread t = new RollupThread();
        threads.add(t);
        return t;
    });
    /** The stream of the running worker (one scenario per JVM), set by {@link #prepare}. */
    private volatile RollupEvents events;

    /** A family with counts of its own; the runner uses {@link #INSTANCE}. */
    RollupFamily() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<String> operations() {
        return OPERATIONS;
    }

    @Override
    public void prepare(WorkerConfig config) {
        events = new RollupEvents(config.keys());
    }

    @Override
    public void prefill(RollupIndex index, WorkerConfig config) {
        RollupEvents stream = events;
        RollupThread t = thread.get();
        for (int e = 0; e < stream.count; e++) {
            ingest(index, stream, e, t);
        }
    }

    private static void ingest(RollupIndex index, RollupEvents stream, int e, RollupThread t) {
        index.ingest(stream, e, t);
        t.ingested++;
        t.metricSum += stream.metric(e);
    }

    @Override
    public void perform(RollupIndex index, int op, int key, ThreadContext c) {
        RollupThread t = thread.get();
        RollupEvents stream = events;
        if (op == INGEST) {
            ingest(index, stream, key, t);
            return;
        }
        int from = key % (RollupEvents.BUCKETS - WINDOW + 1);
        int d = (key / (RollupEvents.BUCKETS - WINDOW + 1)) % RollupEvents.DIMENSIONS;
        long rows = index.query(from, from + WINDOW, d, t);
        long counted = t.groupedCount(d);
        long expected = stream.eventsIn(from, from + WINDOW);
        if (counted < expected || (counted != expected && ingested() == stream.count)) {
            c.mismatches++;
        }
        if (rows == 0) {
            c.anomalies++;
        }
        c.sink += rows + t.groups[0];
    }

    /** Events ingested so far by every thread (exact once the threads have stopped). */
    private long ingested() {
        return threads.stream().mapToLong(t -> t.ingested).sum();
    }

    /**
     * Events lost or counted twice: the difference between the index's total count and the events ingested, plus 1
     * if the total sum differs from the sum of their metrics.
     */
    @Override
    public long verify(RollupIndex index, WorkerConfig config) {
        long[] totals = index.totals();
        long metricSum = threads.stream().mapToLong(t -> t.metricSum).sum();
        return Math.abs(totals[0] - ingested()) + (totals[1] == metricSum ? 0 : 1);
    }
}
