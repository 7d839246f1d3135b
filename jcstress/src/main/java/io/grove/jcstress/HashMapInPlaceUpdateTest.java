package io.grove.jcstress;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * A copying {@code get} of the hash map racing with an in-place update of the same value, which sets both of its
 * words from 0 to -1 ({@code zc().computeIfPresent}). The get is an optimistic read validated by its segment's
 * version; the two words are off heap, where Lincheck's model checker does not look. Each state has its own key in
 * one map per JVM; the arbiter removes it.
 */
@JCStressTest
@Outcome(id = {"0, 0", "-1, -1"}, expect = Expect.ACCEPTABLE, desc = "the copy saw the value before or after the update")
@Outcome(expect = Expect.FORBIDDEN, desc = "the copy mixed the value before and after the update")
@State
public class HashMapInPlaceUpdateTest {
    private static final GroveHashMap<Long, byte[]> MAP = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
            .memoryLimit(256L << 20).build();
    private static final AtomicLong KEYS = new AtomicLong();

    private final long key = KEYS.getAndIncrement();

    public HashMapInPlaceUpdateTest() {
        MAP.put(key, new byte[16]);
    }

    @Actor
    public void update() {
        MAP.zc().computeIfPresent(key, value -> value.putLong(0, -1).putLong(8, -1));
    }

    @Actor
    public void copy(JJ_Result r) {
        ByteBuffer value = ByteBuffer.wrap(MAP.get(key));
        r.r1 = value.getLong(0);
        r.r2 = value.getLong(8);
    }

    @Arbiter
    public void removeKey() {
        MAP.remove(key);
    }
}
