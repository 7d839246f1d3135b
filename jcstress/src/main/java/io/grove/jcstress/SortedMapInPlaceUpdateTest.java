package io.grove.jcstress;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * A copying {@code get} of the ordered map racing with an in-place update of the same value
 * ({@link InPlaceUpdateRace}). The get is an optimistic read validated by the value's header (its lock and
 * version); the two words are off heap, where Lincheck's model checker does not look. The arbiter removes the
 * state's key.
 */
@JCStressTest
@Outcome(id = {"0, 0", "-1, -1"}, expect = Expect.ACCEPTABLE,
        desc = "the copy saw the value before or after the update")
@Outcome(expect = Expect.FORBIDDEN, desc = "the copy mixed the value before and after the update")
@State
public class SortedMapInPlaceUpdateTest {
    private static final GroveSortedMap<Long, byte[]> MAP = GroveSortedMap.builder(Serializers.longs(),
            Serializers.bytes()).memoryLimit(256L << 20).build();

    private final long key = InPlaceUpdateRace.KEYS.getAndIncrement();

    public SortedMapInPlaceUpdateTest() {
        InPlaceUpdateRace.insert(MAP, key);
    }

    @Actor
    public void update() {
        InPlaceUpdateRace.update(MAP.zc(), key);
    }

    @Actor
    public void copy(JJ_Result r) {
        InPlaceUpdateRace.copy(MAP, key, r);
    }

    @Arbiter
    public void removeKey() {
        MAP.remove(key);
    }
}
