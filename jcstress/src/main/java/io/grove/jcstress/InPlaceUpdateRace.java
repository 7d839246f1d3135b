package io.grove.jcstress;

import io.grove.ZeroCopyMap;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * The steps of the in-place-update race that each map's test runs ({@link HashMapInPlaceUpdateTest},
 * {@link SortedMapInPlaceUpdateTest}, {@link HashMapPutInPlaceTest}): a 16-byte value of zeros, an update that sets
 * both words to -1 in place (or a put of a 16-byte value of -1 words, which the hash map copies over the old value
 * in place), a copying read of both words. Each test state takes its own key from {@link #KEYS} in one map per JVM.
 */
final class InPlaceUpdateRace {
    static final AtomicLong KEYS = new AtomicLong();

    private InPlaceUpdateRace() {}

    static void insert(Map<Long, byte[]> map, long key) {
        map.put(key, new byte[16]);
    }

    static void update(ZeroCopyMap<Long, byte[]> zc, long key) {
        zc.computeIfPresent(key, value -> value.putLong(0, -1).putLong(8, -1));
    }

    static void put(Map<Long, byte[]> map, long key) {
        byte[] ones = new byte[16];
        Arrays.fill(ones, (byte) -1);
        map.put(key, ones);
    }

    static void copy(Map<Long, byte[]> map, long key, JJ_Result r) {
        ByteBuffer value = ByteBuffer.wrap(map.get(key));
        r.r1 = value.getLong(0);
        r.r2 = value.getLong(8);
    }
}
