package io.grove.build;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.GroveSortedMap;
import io.grove.ZeroCopyMap;
import io.grove.serial.Serializers;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * "No garbage on hot paths" (the project's rules), checked by the bytes the JVM counts as allocated by this thread,
 * not by time: replacing values with the zero-copy {@code put} allocates nothing per operation once warm, in both
 * maps. Replacing a value deletes the old slice, so this also covers Nova's release lists, whose batch arrays are
 * recycled. Keys and values are boxed before the measurement.
 */
class NoGarbageOnPutTest {
    private static final int KEYS = 50_000;
    private static final int PUTS = 1_000_000;
    /** Allowed average: well below one object per operation (any per-put allocation is at least 16 bytes). */
    private static final double MAX_BYTES_PER_PUT = 1.0;

    @Test
    void hashMapPutAllocatesNothingPerOperation() {
        try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .expectedSize(2 * KEYS).build()) {
            assertNoGarbage("GroveHashMap.zc().put", map.zc());
        }
    }

    @Test
    void sortedMapPutAllocatesNothingPerOperation() {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .build()) {
            assertNoGarbage("GroveSortedMap.zc().put", map.zc());
        }
    }

    private static void assertNoGarbage(String what, ZeroCopyMap<Long, Long> map) {
        Long[] boxed = new Long[KEYS];
        for (int i = 0; i < KEYS; i++) {
            boxed[i] = 1_000L + i;
            map.put(boxed[i], boxed[i]);
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        double perPut = Double.NaN;
        for (int round = 0; round < 3; round++) { // the first rounds warm the JIT up
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < PUTS; i++) {
                int k = i % KEYS;
                map.put(boxed[k], boxed[(k + round + 1) % KEYS]);
            }
            perPut = (threads.getCurrentThreadAllocatedBytes() - before) / (double) PUTS;
        }
        double measured = perPut;
        assertTrue(measured < MAX_BYTES_PER_PUT, () -> what + " allocated " + measured + " bytes per put");
    }
}
