package io.grove.bench.batches;

import io.grove.bench.Family;
import io.grove.bench.Registry;
import io.grove.bench.Scenario;
import io.grove.bench.ThreadContext;
import io.grove.bench.WorkerConfig;
import io.grove.bench.maps.ZipfTrace;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The batch family (Jiffy §4.3 scaled to this machine): 16-byte keys and 100-byte values ({@link BatchCodec}), a range
 * of ids of which every second one is loaded first (1M entries over 2M ids). Operations: a batch of 10 or 100 random
 * ids, or of 100 consecutive ids from the operation's id, or of 100 Zipfian ids (exponent {@value #ZIPF_EXPONENT}, hot
 * ids scattered over the key order), each a put or (one in two) a removal, so the size stays near its start; a get; a
 * single-key put; a scan of {@value #SCAN} entries, or {@value #LONG_SCAN}, from a random id in a snapshot; a snapshot
 * opened for one get; a scan of {@value #SCAN} entries of the map itself (weakly consistent). An operation counts once,
 * whatever its batch size or scan length.
 *
 * <p>Checks: every value read must be a whole value of its key; after the run, every entry's (no writer running).
 */
public final class BatchFamily implements Family<BatchStore> {
    public static final String NAME = "batches";
    public static final BatchFamily INSTANCE = new BatchFamily();
    private static final List<String> OPERATIONS =
            List.of("batch-10", "batch-100", "batch-100-seq", "get", "put", "snap-scan", "snap-get", "batch-100-zipf",
                    "long-snap-scan", "scan");
    /** The exponent of the Zipfian batches (Jiffy §4.3, YCSB's default). */
    static final double ZIPF_EXPONENT = 0.99;
    /** Ids drawn for the Zipfian batches, which read them from a random place on. */
    private static final int ZIPF_TRACE = 1 << 20;
    /** Entries a snapshot scan reads. */
    static final int SCAN = 100;
    /** Entries a long snapshot scan reads. */
    static final int LONG_SCAN = 10_000;

    /** The id range of the running worker (one scenario per JVM), set by {@link #prepare}. */
    private volatile int range;
    /** Zipfian ids for the running worker's scenario if it has Zipfian batches, set by {@link #prepare}. */
    private volatile int[] zipfIds;

    private BatchFamily() {}

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
        range = config.keys();
        if (runs(Registry.scenario(config.scenario()), "batch-100-zipf"::equals)) {
            zipfIds = zipfIds(config.keys(), config.seed());
        }
    }

    /** Whether a thread of {@code scenario} runs an operation that {@code op} accepts (the first may run its own). */
    static boolean runs(Scenario scenario, Predicate<String> op) {
        return Stream.of(scenario.mix(), scenario.mixOf(0)).flatMap(mix -> mix.keySet().stream()).anyMatch(op);
    }

    /**
     * {@value #ZIPF_TRACE} ids below {@code range} drawn with Zipf exponent {@value #ZIPF_EXPONENT} by rank, each
     * rank scrambled to an id (as YCSB's scrambled Zipfian does) so the hot ids lie all over the key order.
     */
    private static int[] zipfIds(int range, long seed) {
        int[] ids = ZipfTrace.generate(range, ZIPF_EXPONENT, ZIPF_TRACE, seed);
        for (int i = 0; i < ids.length; i++) {
            ids[i] = (int) Math.floorMod(BatchCodec.scramble(ids[i]), (long) range);
        }
        return ids;
    }

    @Override
    public void prefill(BatchStore store, WorkerConfig config) {
        BatchThread t = new BatchThread(config.seed());
        for (long id = 0; id < config.keys(); id += 2) {
            BatchCodec.setKey(t.key, id);
            BatchCodec.setValue(t.value, id, 0);
            store.put(t);
        }
    }

    @Override
    public void perform(BatchStore store, int op, int key, ThreadContext c) {
        if (c.state == null) {
            c.state = new BatchThread(c.nextLong());
        }
        BatchThread t = (BatchThread) c.state;
        int ids = range;
        switch (op) {
            case 0 -> {
                t.build(10, 0, false, ids);
                store.apply(t);
            }
            case 1 -> {
                t.build(100, 0, false, ids);
                store.apply(t);
            }
            case 2 -> {
                t.build(100, key, true, ids);
                store.apply(t);
            }
            case 3 -> {
                BatchCodec.setKey(t.key, key);
                if (!store.get(key, t, c)) {
                    c.misses++;
                }
            }
            case 4 -> {
                BatchCodec.setKey(t.key, key);
                BatchCodec.setValue(t.value, key, ++t.nextStamp);
                store.put(t);
            }
            case 5 -> {
                BatchCodec.setKey(t.key, key);
                store.snapshotScan(t, SCAN, c);
            }
            case 6 -> {
                BatchCodec.setKey(t.key, key);
                store.snapshotGet(key, t, c);
            }
            case 7 -> {
                t.build(100, zipfIds);
                store.apply(t);
            }
            case 8 -> {
                BatchCodec.setKey(t.key, key);
                store.snapshotScan(t, LONG_SCAN, c);
            }
            default -> {
                BatchCodec.setKey(t.key, key);
                store.scan(t, SCAN, c);
            }
        }
    }

    @Override
    public long verify(BatchStore store, WorkerConfig config) {
        return store.verify();
    }
}
