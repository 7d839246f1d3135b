package io.grove.bench.batches;

import io.grove.bench.Family;
import io.grove.bench.ThreadContext;
import io.grove.bench.WorkerConfig;
import java.util.List;

/**
 * The batch family (Jiffy §4.3 scaled to this machine): 16-byte keys and 100-byte values ({@link BatchCodec}), a
 * range of ids of which every second one is loaded first (1M entries over 2M ids). Operations: a batch of 10 or
 * 100 random ids, or of 100 consecutive ids from the operation's id, each a put or (one in two) a removal, so the
 * size stays near its start; a get; a single-key put; a scan of {@value #SCAN} entries from a random id in a
 * snapshot; a snapshot opened for one get. An operation counts once, whatever its batch size or scan length.
 *
 * <p>Checks: every value read must be a whole value of its key; after the run, every entry's (no writer running).
 */
public final class BatchFamily implements Family<BatchStore> {
    public static final String NAME = "batches";
    public static final BatchFamily INSTANCE = new BatchFamily();
    private static final List<String> OPERATIONS =
            List.of("batch-10", "batch-100", "batch-100-seq", "get", "put", "snap-scan", "snap-get");
    /** Entries a snapshot scan reads. */
    static final int SCAN = 100;

    /** The id range of the running worker (one scenario per JVM), set by {@link #prepare}. */
    private volatile int range;

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
            default -> {
                BatchCodec.setKey(t.key, key);
                store.snapshotGet(key, t, c);
            }
        }
    }

    @Override
    public long verify(BatchStore store, WorkerConfig config) {
        return store.verify();
    }
}
