package io.grove.internal.hash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.Reclamation;
import io.grove.internal.memory.Pool;
import io.grove.serial.Serializers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A bounded map whose entries lie in its cells: the evictions that make room for a replacement shift the cells of
 * the replaced entry's run, so the replacement finds its entry again instead of trusting the reference it had.
 */
class BoundedCellsTest {
    /**
     * Two entries of one segment and one home, A then B (so B lies in the cell after A's), fill the whole byte
     * bound; B is replaced by a larger value, for which the segment evicts A, its only other entry, and the removal
     * shifts B into A's cell. B then holds the new value, once, and A is reported evicted. With the reference taken
     * before the eviction, the new entry went into B's old cell, emptied by the shift, and B kept its old value.
     */
    @Test
    void aReplacementWhoseEvictionShiftsTheEntryReplacesItWhereItMoved() {
        List<Long> evicted = new ArrayList<>();
        try (Pool pool = new Pool(8 << 20, 1 << 28, Reclamation.NOVA)) {
            OffHeapHashMap<Long, byte[]> map = boundedToOneKibibyte(pool, evicted);
            long[] keys = keysOfOneHome(map, 2);
            long a = keys[0];
            long b = keys[1];
            map.put(a, new byte[480]); // 24 + 8 + 480 = 512 bytes each: the two take the whole bound
            map.put(b, new byte[480]);
            byte[] larger = new byte[600];
            larger[599] = 7;

            map.put(b, larger);
            assertArrayEquals(larger, map.get(b));
            assertNull(map.get(a));
            assertEquals(List.of(a), evicted);
            assertOnlyEntryLeftInASoundTable(pool, map);
        }
    }

    /**
     * Three entries of one segment and one home, A1, A2 and B, fill the byte bound; B is replaced by a value so much
     * larger that the segment evicts both others, each eviction shifting B one cell back: the entry spared is the
     * one being replaced wherever it moved (it is named by its identity, not by its cell). When it was named by its
     * cell, the second sweep met B in A1's cell before the hot A2 came down to 0, and evicted it.
     */
    @Test
    void theEntryBeingReplacedIsSparedByEveryEvictionThatMovesIt() {
        List<Long> evicted = new ArrayList<>();
        try (Pool pool = new Pool(8 << 20, 1 << 28, Reclamation.NOVA)) {
            OffHeapHashMap<Long, byte[]> map = boundedToOneKibibyte(pool, evicted);
            long[] keys = keysOfOneHome(map, 3);
            for (long k : keys) {
                map.put(k, new byte[300]); // 332 bytes each, 996 in all
            }
            map.get(keys[1]);
            map.get(keys[1]); // A2 hot: after A1's eviction the sweep passes B (moved) before A2 comes to 0
            long b = keys[2];
            byte[] larger = new byte[700]; // 732 bytes: 1,024 - 732 leaves room for no other entry
            larger[0] = 9;

            map.put(b, larger);
            assertArrayEquals(larger, map.get(b));
            assertEquals(2, evicted.size());
            assertTrue(evicted.containsAll(List.of(keys[0], keys[1])), "evicted " + evicted);
            assertOnlyEntryLeftInASoundTable(pool, map);
        }
    }

    /**
     * A map on {@code pool} bounded to 1,024 bytes of entries, with cells for values of up to 700 bytes, whose
     * evictions go into {@code evicted}.
     */
    private static OffHeapHashMap<Long, byte[]> boundedToOneKibibyte(Pool pool, List<Long> evicted) {
        OffHeapHashMap.Bounds<Long, byte[]> bounds = new OffHeapHashMap.Bounds<>(Long.MAX_VALUE, 1024,
                (k, v) -> evicted.add(k), false);
        return new OffHeapHashMap<>(pool, false, Serializers.longs(), Serializers.bytes(), 16, bounds,
                OffHeapHashMap.cellBytesFor(Long.BYTES, 700));
    }

    /** Checks that {@code map} holds one entry and its table passes {@link TableCheck}, then closes it. */
    private static void assertOnlyEntryLeftInASoundTable(Pool pool, OffHeapHashMap<Long, byte[]> map) {
        assertEquals(1, map.size());
        assertEquals(List.of(), TableCheck.check(pool, map.directory()).problems());
        map.close();
    }

    /** {@code n} keys whose hashes give one segment and one home cell in {@code map}'s table. */
    private static long[] keysOfOneHome(OffHeapHashMap<Long, byte[]> map, int n) {
        HashTable table = map.table;
        java.util.Map<Long, List<Long>> byPlace = new java.util.HashMap<>();
        for (long k = 0; ; k++) {
            Scratch scratch = map.begin(k);
            long hash = scratch.keyHash();
            scratch.release();
            int s = table.segmentOf(hash);
            long place = (long) s << 32 | SlotLayout.homeOf(hash, (1L << table.slotBits(s)) - 1);
            List<Long> same = byPlace.computeIfAbsent(place, p -> new ArrayList<>());
            same.add(k);
            if (same.size() == n) {
                assertTrue(table.slotBits(s) > 0);
                return same.stream().mapToLong(Long::longValue).toArray();
            }
        }
    }
}
