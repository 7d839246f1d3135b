package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import io.grove.testing.HugePages;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A hash map whose own pool asks for huge pages holds what a map in ordinary memory holds, and the kernel does back
 * it with huge pages when the system's setting allows them (read from {@code /sys}: {@code madvise} or
 * {@code always}; with {@code never} only the map's contents are checked).
 */
class HugePagesTest {
    private static final int ENTRIES = 200_000;

    @Test
    void aMapOnHugePagesHoldsItsEntriesAndGetsHugePages() throws IOException {
        boolean allowed = HugePages.allowed();
        long hugeBefore = HugePages.anonymousBytes();
        Map<Long, byte[]> reference = new HashMap<>();
        try (GroveHashMap<Long, byte[]> map = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
                .hugePages().expectedSize(ENTRIES).memoryLimit(512L << 20).build()) {
            for (long k = 0; k < ENTRIES; k++) {
                byte[] value = new byte[200];
                Arrays.fill(value, (byte) k);
                map.put(k, value);
                reference.put(k, value);
            }
            long hugeFilled = HugePages.anonymousBytes();
            for (long k = 0; k < ENTRIES; k += 2) {
                assertArrayEquals(reference.remove(k), map.remove(k));
            }
            assertEquals(reference.size(), map.size());
            reference.forEach((k, v) -> assertArrayEquals(v, map.get(k), "key " + k));
            if (allowed) {
                assertTrue(hugeFilled >= hugeBefore + (20L << 20), "AnonHugePages " + hugeBefore + " -> " + hugeFilled
                        + " bytes while the map filled about 50 MB");
            }
        }
    }

    @Test
    void hugePagesAreForTheMapsOwnPoolInMemory() {
        try (MemoryPool pool = MemoryPool.builder().build()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> GroveHashMap.builder(Serializers.longs(), Serializers.longs()).hugePages().pool(pool)
                            .build());
            assertTrue(e.getMessage().contains("MemoryPool.Builder.hugePages"), e.getMessage());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GroveHashMap.builder(Serializers.longs(), Serializers.longs()).hugePages()
                        .file(Path.of("unused.grove")).build());
        assertTrue(e.getMessage().contains("page cache"), e.getMessage());
    }
}
