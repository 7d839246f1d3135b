package io.grove.sorted;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.HugePages;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * An ordered map whose own pool asks for huge pages holds and orders what a map in ordinary memory does, and the
 * kernel does back it with huge pages when the system's setting allows them (read from {@code /sys}:
 * {@code madvise} or {@code always}; with {@code never} only the map's contents are checked).
 */
class SortedHugePagesTest {
    private static final int ENTRIES = 200_000;

    @Test
    void aMapOnHugePagesHoldsItsEntriesInOrderAndGetsHugePages() throws IOException {
        long hugeBefore = HugePages.anonymousBytes();
        TreeMap<Long, byte[]> reference = new TreeMap<>();
        try (GroveSortedMap<Long, byte[]> map = GroveSortedMap.builder(Serializers.longs(), Serializers.bytes())
                .hugePages().memoryLimit(512L << 20).build()) {
            long hugeFilled = HugePages.fillThenRemoveHalf(map, reference, ENTRIES,
                    i -> (i * 7_919) % ENTRIES); // every key once, out of order
            var expected = reference.entrySet().iterator();
            for (Map.Entry<Long, byte[]> e : map.entrySet()) {
                Map.Entry<Long, byte[]> want = expected.next();
                assertEquals(want.getKey(), e.getKey());
                assertArrayEquals(want.getValue(), e.getValue(), "key " + e.getKey());
            }
            assertTrue(!expected.hasNext(), "the map's scan ended early");
            HugePages.assertGrew(hugeBefore, hugeFilled);
        }
    }

    @Test
    void hugePagesAreForTheMapsOwnPool() {
        HugePages.assertRefusedOnSharedPool(pool -> GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .hugePages().pool(pool).build());
    }
}
