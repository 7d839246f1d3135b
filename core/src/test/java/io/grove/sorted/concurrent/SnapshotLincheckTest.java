package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSnapshot;
import io.grove.view.Handle;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of snapshot reads among atomic batches, gets, puts and removes, in Lincheck's stress mode: the
 * operations of {@link BatchLincheckTest} on a map built to take snapshots, plus two that read on a snapshot of
 * their own: a get of two keys (one copying, one through a zero-copy handle) and a scan of the three keys' range
 * with the fillers between them, each a read of one instant that must match a sequential run of {@link Spec}. A
 * snapshot that saw half a batch, or a value written after it was taken, or missed one written before, has no such
 * run.
 */
public class SnapshotLincheckTest extends BatchLincheckTest {
    private static final AtomicLong SNAPSHOT_READS = new AtomicLong();

    @Override
    boolean takesSnapshots() {
        return true;
    }

    @Operation
    public String snapshotGets(@Param(name = "key") int a, @Param(name = "key") int b) {
        try (GroveSnapshot<Long, Long> snapshot = map.snapshot()) {
            Handle handle = snapshot.zc().get(key(b));
            SNAPSHOT_READS.incrementAndGet();
            return snapshot.get(key(a)) + "," + (handle == null ? null : handle.getLong(0) ^ Long.MIN_VALUE);
        }
    }

    @Operation
    public List<Map.Entry<Long, Long>> snapshotScan() {
        SNAPSHOT_READS.incrementAndGet();
        return map.withSnapshot(s -> new ArrayList<>(s.subMap(key(1), true, key(3), true).entrySet()));
    }

    @Test
    @Override
    void stress() {
        stress(SnapshotLincheckTest.class, Spec.class);
        assertTrue(SNAPSHOT_READS.get() > 0, "no snapshot read ran");
    }

    /** {@link BatchLincheckTest.Spec} with the snapshot reads, each a read of the model. */
    public static class Spec extends BatchLincheckTest.Spec {
        public String snapshotGets(int a, int b) {
            return model.get(key(a)) + "," + model.get(key(b));
        }

        public List<Map.Entry<Long, Long>> snapshotScan() {
            return new ArrayList<>(model.subMap(key(1), true, key(3), true).entrySet());
        }
    }
}
