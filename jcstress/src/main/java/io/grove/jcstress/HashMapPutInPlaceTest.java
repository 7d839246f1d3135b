package io.grove.jcstress;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * A copying {@code get} of the hash map racing with a put of a value of the same size, which the map copies over the
 * old one in place under the entry's stamp ({@link InPlaceUpdateRace}). The two words are off heap, where Lincheck's
 * model checker does not look. The arbiter removes the state's key.
 */
@JCStressTest
@Outcome(id = {"0, 0", "-1, -1"}, expect = Expect.ACCEPTABLE,
        desc = "the copy saw the value before or after the put")
@Outcome(expect = Expect.FORBIDDEN, desc = "the copy mixed the value before and after the put")
@State
public class HashMapPutInPlaceTest {
    private static final GroveHashMap<Long, byte[]> MAP = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
            .memoryLimit(256L << 20).build();

    private final long key = InPlaceUpdateRace.KEYS.getAndIncrement();

    public HashMapPutInPlaceTest() {
        InPlaceUpdateRace.insert(MAP, key);
    }

    @Actor
    public void put() {
        InPlaceUpdateRace.put(MAP, key);
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
