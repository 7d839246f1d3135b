package io.grove.bench.batches;

import io.grove.bench.Contender;
import io.grove.bench.Family;
import io.grove.bench.Placement;
import io.grove.bench.Scenario;
import io.grove.bench.WorkerConfig;
import java.util.function.Function;

/**
 * The contenders of the batch family: Grove's ordered map with atomic batches (without and with snapshots),
 * {@code ConcurrentSkipListMap}
 * applying a batch's operations one by one (not atomic: the speed reference), and the same under striped locks
 * taken in order (atomic: the lock-based baseline).
 *
 * @param opener builds the empty store inside the worker JVM
 */
public record BatchContender(String name, Placement placement, String description,
        Function<WorkerConfig, BatchStore> opener) implements Contender<BatchStore> {
    public static final BatchContender GROVE = new BatchContender("grove-sorted", Placement.OFF_HEAP,
            "GroveSortedMap<byte[], byte[]>: batch() applied atomically (claims, one commit store); gets and puts"
                    + " through zc(); off-heap limit = budget - small heap",
            config -> new GroveBatches(config.offHeapLimit(), false));
    public static final BatchContender GROVE_SNAPSHOTS = new BatchContender("grove-snapshots", Placement.OFF_HEAP,
            "GroveSortedMap<byte[], byte[]> built with snapshots(): as grove-sorted, plus snapshot scans and gets"
                    + " (snapshot() per operation, entries read zero-copy through its zc()); off-heap limit = budget -"
                    + " small heap",
            config -> new GroveBatches(config.offHeapLimit(), true));
    public static final BatchContender CSLM = new BatchContender("cslm", Placement.ON_HEAP,
            "ConcurrentSkipListMap<ByteKey, byte[]> on heap; a batch is its puts and removes one by one, NOT atomic"
                    + " (speed reference); -Xmx = budget",
            config -> new CslmBatches(false));
    public static final BatchContender LOCKED = new BatchContender("locked", Placement.ON_HEAP,
            "ConcurrentSkipListMap<ByteKey, byte[]> under 64 striped read-write locks: a batch write-locks its keys'"
                    + " stripes in order (atomic), a get read-locks its stripe; -Xmx = budget",
            config -> new CslmBatches(true));

    /** The map built without snapshots cannot run the snapshot operations, whichever thread has them. */
    @Override
    public String notApplicable(Scenario scenario) {
        return this == GROVE && BatchFamily.runs(scenario, op -> op.contains("snap-"))
                ? "built without snapshots: see grove-snapshots" : null;
    }

    @Override
    public Family<BatchStore> family() {
        return BatchFamily.INSTANCE;
    }

    @Override
    public BatchStore open(WorkerConfig config) {
        return opener.apply(config);
    }
}
