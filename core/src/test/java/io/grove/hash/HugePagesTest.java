package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.testing.HugePages;
import java.io.IOException;
import java.nio.file.Path;
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
        long hugeBefore = HugePages.anonymousBytes();
        Map<Long, byte[]> reference = new HashMap<>();
        try (GroveHashMap<Long, byte[]> map = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
                .hugePages().expectedSize(ENTRIES).memoryLimit(512L << 20).build()) {
            long hugeFilled = HugePages.fillThenRemoveHalf(map, reference, ENTRIES, i -> i);
            reference.forEach((k, v) -> assertArrayEquals(v, map.get(k), "key " + k));
            HugePages.assertGrew(hugeBefore, hugeFilled);
        }
    }

    @Test
    void hugePagesAreForTheMapsOwnPoolInMemory() {
        HugePages.assertRefusedOnSharedPool(
                pool -> GroveHashMap.builder(Serializers.longs(), Serializers.longs()).hugePages().pool(pool).build());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GroveHashMap.builder(Serializers.longs(), Serializers.longs()).hugePages()
                        .file(Path.of("unused.grove")).build());
        assertTrue(e.getMessage().contains("page cache"), e.getMessage());
    }
}
