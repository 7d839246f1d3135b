package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import org.junit.jupiter.api.Test;

/**
 * {@code expectedSize} sizes the table without committing memory for entries that have not arrived, and is checked
 * against the memory limit. Before: {@code expectedSize(100_000_000)} reserved 1.1 GB before any put,
 * {@code expectedSize(1_000_000_000)} got the JVM killed by the kernel, and {@code Long.MAX_VALUE} overflowed into
 * the smallest table.
 */
class ExpectedSizeTest {
    private static final long MIB = 1L << 20;

    @Test
    void aLargeExpectedSizeCommitsLittleBeforeEntriesArrive() {
        try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .expectedSize(100_000_000).memoryLimit(4096 * MIB).build()) {
            long reserved = map.footprint().reservedBytes();
            assertTrue(reserved <= 48 * MIB, "reserved before any put: " + reserved);
            for (long k = 0; k < 100_000; k++) {
                map.put(k, k);
            }
            assertEquals(100_000, map.size());
            assertEquals(99_999L, map.get(99_999L));
        }
    }

    @Test
    void anExpectedSizeWhoseTableExceedsTheMemoryLimitIsRejected() {
        IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
                () -> GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                        .expectedSize(100_000_000).memoryLimit(512 * MIB).build());
        assertTrue(tooMany.getMessage().contains("expectedSize 100000000"), tooMany::getMessage);
        assertTrue(tooMany.getMessage().contains(String.valueOf(512 * MIB)), tooMany::getMessage);
        IllegalArgumentException overflow = assertThrows(IllegalArgumentException.class,
                () -> GroveHashMap.builder(Serializers.longs(), Serializers.longs()).expectedSize(Long.MAX_VALUE)
                        .build());
        assertTrue(overflow.getMessage().contains("expectedSize " + Long.MAX_VALUE), overflow::getMessage);
    }
}
