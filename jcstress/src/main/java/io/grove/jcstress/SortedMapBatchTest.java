package io.grove.jcstress;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * An atomic batch of the ordered map that puts 1 at two keys, racing with two gets of them in key order (the
 * order in which the batch installs its values). The batch claims both values in their off-heap headers and
 * commits with one store; the reader resolves a claimed header through the batch's status, all where Lincheck's
 * model checker does not look. A read that sees the batch at the first key must see it at the second. Each state
 * takes its own two keys in one map per JVM; the arbiter removes them. With the commit moved after the install (a
 * batch made visible key by key) the forbidden outcome shows up in quick mode: checked by hand when it was written.
 */
@JCStressTest
@Outcome(id = {"0, 0", "0, 1", "1, 1"}, expect = Expect.ACCEPTABLE,
        desc = "the reads saw the batch at neither key, or from some moment between them on")
@Outcome(id = "1, 0", expect = Expect.FORBIDDEN, desc = "the first key showed the batch, then the second did not")
@State
public class SortedMapBatchTest {
    private static final GroveSortedMap<Long, Long> MAP = GroveSortedMap.builder(Serializers.longs(),
            Serializers.longs()).memoryLimit(256L << 20).build();
    private static final AtomicLong KEYS = new AtomicLong();

    private final long first = 2 * KEYS.getAndIncrement();
    private final long second = first + 1;

    public SortedMapBatchTest() {
        MAP.put(first, 0L);
        MAP.put(second, 0L);
    }

    @Actor
    public void batch() {
        MAP.batch().put(first, 1L).put(second, 1L).apply();
    }

    @Actor
    public void read(JJ_Result r) {
        r.r1 = MAP.get(first);
        r.r2 = MAP.get(second);
    }

    @Arbiter
    public void removeKeys() {
        MAP.remove(first);
        MAP.remove(second);
    }
}
