package io.grove.bench.ordered;

import io.grove.bench.Family;
import io.grove.bench.ThreadContext;
import io.grove.bench.WorkerConfig;
import java.util.List;

/**
 * The ordered-map family (Oak, §5, with the method of Oak's performance evaluation): put,
 * putIfAbsentComputeIfPresent, zero-copy get, get with copy and scans of 10,000 pairs over a key range of which half
 * is ingested first.
 *
 * <p>Scans start at a uniformly random key at least {@link #scanMargin} keys from the end they move towards, so
 * that every scan finds its 10,000 pairs in a range at least half full; a scan that finds fewer, an entry out of
 * order or a value of another key counts as an anomaly or a mismatch (so "bad" in the table).
 */
public final class OrderedFamily implements Family<OrderedKv> {
    public static final String NAME = "ordered";
    public static final OrderedFamily INSTANCE = new OrderedFamily();

    static final int PUT = 0;
    static final int UPSERT = 1;
    static final int ZC_GET = 2;
    static final int GET_COPY = 3;
    static final int SCAN_ASC_SET = 4;
    static final int SCAN_ASC_STREAM = 5;
    static final int SCAN_DESC_SET = 6;
    static final int SCAN_DESC_STREAM = 7;
    private static final List<String> OPERATIONS = List.of("put", "upsert", "zc-get", "get-copy", "scan-asc-set",
            "scan-asc-stream", "scan-desc-set", "scan-desc-stream");

    /** Per-thread buffers; a thread-local so that the shared {@link ThreadContext} needs no field for them. */
    private static final ThreadLocal<OrderedThread> THREAD = ThreadLocal.withInitial(OrderedThread::new);

    private OrderedFamily() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<String> operations() {
        return OPERATIONS;
    }

    /**
     * The ingestion stage of Oak's performance evaluation: one thread inserts uniformly random keys of the range
     * with {@code putIfAbsent} until half of the range is present (the same keys, in the same order, for every
     * contender).
     */
    @Override
    public void prefill(OrderedKv kv, WorkerConfig config) {
        range = config.keys();
        OrderedThread t = THREAD.get();
        ThreadContext random = new ThreadContext(0x5EED_0F0AL, 1);
        int keys = config.keys();
        int inserted = 0;
        while (inserted < keys / 2) {
            if (kv.putIfAbsent(ThreadContext.below(random.nextLong(), keys), t)) {
                inserted++;
            }
        }
    }

    @Override
    public void perform(OrderedKv kv, int op, int key, ThreadContext c) {
        OrderedThread t = THREAD.get();
        switch (op) {
            case PUT -> kv.put(key, t);
            case UPSERT -> kv.upsert(key, t);
            case ZC_GET -> kv.zeroCopyGet(key, t, c);
            case GET_COPY -> kv.copyGet(key, t, c);
            case SCAN_ASC_SET -> scan(kv, key, false, false, t, c);
            case SCAN_ASC_STREAM -> scan(kv, key, false, true, t, c);
            case SCAN_DESC_SET -> scan(kv, key, true, false, t, c);
            case SCAN_DESC_STREAM -> scan(kv, key, true, true, t, c);
            default -> throw new IllegalArgumentException("no ordered-map operation " + op);
        }
    }

    private static void scan(OrderedKv kv, int key, boolean descending, boolean stream, OrderedThread t,
            ThreadContext c) {
        int from = scanStart(key, descending);
        t.startScan(descending);
        kv.scan(from, descending, stream, t, c);
        if (t.scanned != OrderedKv.SCAN_PAIRS) {
            c.anomalies++;
        }
        c.mismatches += t.scanMismatches;
        c.anomalies += t.scanOutOfOrder;
        c.sink += t.scanSink;
    }

    /** Key range of the running worker (one scenario per JVM), set by {@link #prefill}. */
    private static volatile int range = Integer.MAX_VALUE;

    /** Where a scan starts for the drawn {@code key}: uniform over the keys at least the margin from the end. */
    static int scanStart(int key, boolean descending) {
        int r = range;
        int margin = scanMargin(r);
        int start = (int) ((long) key * (r - margin) / r);
        return descending ? start + margin : start;
    }

    /**
     * Keys a scan may need to find 10,000 pairs in a range at least half full: 2.5 x 10,000 (the count of present
     * keys among 25,000 of a half-full range is 12,500 ± 80), or half the range if it is smaller.
     */
    static int scanMargin(int keys) {
        return Math.min(25_000, keys / 2);
    }

    @Override
    public long verify(OrderedKv kv, WorkerConfig config) {
        return kv.verify();
    }
}
