package io.grove.jcstress;

import io.grove.GroveSnapshot;
import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJJJ_Result;

/**
 * An atomic batch that puts 1 at two keys of an ordered map that takes snapshots, racing with a reader that reads
 * the second key plainly ({@code r1}), then both keys in a snapshot it opens ({@code r2}, {@code r3}), then the
 * first key plainly again ({@code r4}). The batch reads its commit time and stamps both values while its status is
 * {@code COMMITTING}, all in off-heap headers and a status word Lincheck's model checker does not see. Allowed: the
 * snapshot sees the whole batch or none of it; a snapshot opened after a plain read saw the batch sees it; a plain
 * read after a snapshot that saw the batch sees it. Each state takes its own two keys in one map per JVM; the
 * arbiter removes them. With readers not waiting while a batch is {@code COMMITTING} (taking it for pending) the
 * outcome {@code 0, 0, 1, 1} (a snapshot with half the batch) shows up in quick mode: checked by hand when it was
 * written.
 */
@JCStressTest
@Outcome(id = {"0, 0, 0, 0", "0, 0, 0, 1", "0, 1, 1, 1", "1, 1, 1, 1"}, expect = Expect.ACCEPTABLE,
        desc = "the snapshot saw all of the batch or none, in order with the plain reads around it")
@Outcome(expect = Expect.FORBIDDEN, desc = "the snapshot saw part of the batch, or contradicted a plain read")
@State
public class SortedMapSnapshotTest {
    private static final GroveSortedMap<Long, Long> MAP = GroveSortedMap.builder(Serializers.longs(),
            Serializers.longs()).memoryLimit(256L << 20).snapshots().build();
    private static final AtomicLong KEYS = new AtomicLong();

    private final long first = 2 * KEYS.getAndIncrement();
    private final long second = first + 1;

    public SortedMapSnapshotTest() {
        MAP.put(first, 0L);
        MAP.put(second, 0L);
    }

    @Actor
    public void batch() {
        MAP.batch().put(first, 1L).put(second, 1L).apply();
    }

    @Actor
    public void read(JJJJ_Result r) {
        r.r1 = MAP.get(second);
        try (GroveSnapshot<Long, Long> snapshot = MAP.snapshot()) {
            r.r2 = snapshot.get(first);
            r.r3 = snapshot.get(second);
        }
        r.r4 = MAP.get(first);
    }

    @Arbiter
    public void removeKeys() {
        MAP.remove(first);
        MAP.remove(second);
    }
}
