package io.grove.internal.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.Reclamation;
import io.grove.internal.memory.Pool;
import io.grove.serial.Serializers;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** {@link TableCheck} finds nothing in sound tables and each kind of damage in a damaged one. */
class TableCheckTest {
    private static final int CELL = SlotLayout.SLOT_CELL;

    private static final OffHeapHashMap.Bounds<Long, String> UNBOUNDED =
            new OffHeapHashMap.Bounds<>(Long.MAX_VALUE, Long.MAX_VALUE, null, false);

    /** Small blocks, and a memory limit low enough for a table of 16 segments ({@link HashTable#segmentBits}). */
    private static Pool pool() {
        return new Pool(1 << 16, 1 << 21, Reclamation.NOVA);
    }

    /** A table of 16 segments after random operations (mid-growth in some segments). */
    private static OffHeapHashMap<Long, String> filled(Pool pool) {
        OffHeapHashMap<Long, String> map = new OffHeapHashMap<>(pool, false, Serializers.longs(),
                Serializers.strings(), 16, UNBOUNDED);
        Random random = new Random(5);
        for (int step = 0; step < 5_000; step++) {
            long key = random.nextInt(3_000);
            if (random.nextInt(4) == 0) {
                map.remove(key);
            } else {
                map.put(key, "value " + step);
            }
        }
        return map;
    }

    @Test
    void aSoundTableHasNoProblemAtAnyPointOfItsGrowth() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = new OffHeapHashMap<>(pool, false, Serializers.longs(),
                    Serializers.strings(), 16, UNBOUNDED);
            int bitsAtFirst = totalSlotBits(map);
            for (long k = 0; k < 4_000; k++) {
                map.put(k, "v" + k);
                if (k % 97 == 0) {
                    assertEquals(List.of(), TableCheck.check(pool, map.directory()).problems(), "after " + k);
                }
            }
            assertTrue(totalSlotBits(map) > bitsAtFirst + map.table.segmentCount(), "the segments did not grow");
            map.close();
        }
    }

    private static int totalSlotBits(OffHeapHashMap<Long, String> map) {
        int bits = 0;
        for (int s = 0; s < map.table.segmentCount(); s++) {
            bits += map.table.slotBits(s);
        }
        return bits;
    }

    /** The entry of the first occupied slot of segment 0: its slot index, reference, block and payload offset. */
    private record Entry(long slot, long ref, MemorySegment block, long offset) {}

    private static Entry firstEntry(Pool pool, HashTable table) {
        MemorySegment ab = slotArrayBlock(pool, table);
        long ao = slotArrayOffset(pool, table);
        for (long i = 0; ; i++) {
            long slot = SlotLayout.get(ab, ao, i, CELL);
            if (slot != SlotLayout.EMPTY) {
                long e = pool.currentReference(SlotLayout.granule(slot));
                return new Entry(i, e, pool.segment(e), pool.payloadOffset(e));
            }
        }
    }

    private static MemorySegment slotArrayBlock(Pool pool, HashTable table) {
        return pool.segment(SegmentLayout.slots(table.block(0), table.offset(0)));
    }

    private static long slotArrayOffset(Pool pool, HashTable table) {
        return pool.payloadOffset(SegmentLayout.slots(table.block(0), table.offset(0)));
    }

    /** The first empty slot of segment 0 after slot {@code from}. */
    private static long emptyAfter(Pool pool, HashTable table, long from) {
        long mask = (1L << table.slotBits(0)) - 1;
        for (long i = (from + 1) & mask; ; i = (i + 1) & mask) {
            if (SlotLayout.get(slotArrayBlock(pool, table), slotArrayOffset(pool, table), i, CELL)
                    == SlotLayout.EMPTY) {
                return i;
            }
        }
    }

    private static void assertFinds(String expected, Consumer<OffHeapHashMap<Long, String>> damage) {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = filled(pool);
            assertEquals(List.of(), TableCheck.check(pool, map.directory()).problems());
            damage.accept(map);
            List<String> problems = TableCheck.check(pool, map.directory()).problems();
            assertTrue(problems.stream().anyMatch(p -> p.contains(expected)),
                    () -> "expected a problem with '" + expected + "', got " + problems);
        }
    }

    @Test
    void aKeyThatIsNotTheSlotsIsFound() {
        assertFinds("the slot has tag", map -> {
            Entry e = firstEntry(map.pool(), map.table);
            e.block().set(ValueLayout.JAVA_BYTE, e.offset() + EntryLayout.KEY,
                    (byte) (e.block().get(ValueLayout.JAVA_BYTE, e.offset() + EntryLayout.KEY) ^ 1));
        });
    }

    private static void setTag(OffHeapHashMap<Long, String> map, long i, byte tag) {
        long tags = SegmentLayout.tags(map.table.block(0), map.table.offset(0));
        TagLayout.set(map.pool().segment(tags), map.pool().payloadOffset(tags), i, tag);
    }

    /** Gives slot {@code i} an occupied tag that is not its key's: the key's own with its lowest bit flipped. */
    private static void flipTag(OffHeapHashMap<Long, String> map, long i) {
        long tags = SegmentLayout.tags(map.table.block(0), map.table.offset(0));
        byte tag = TagLayout.get(map.pool().segment(tags), map.pool().payloadOffset(tags), i);
        setTag(map, i, (byte) (tag ^ 1));
    }

    @Test
    void aTagAtAnEmptySlotIsFound() {
        assertFinds("empty, but its tag is", map -> setTag(map, emptyAfter(map.pool(), map.table, 0), (byte) -1));
    }

    @Test
    void aTagThatIsNotTheKeysIsFound() {
        assertFinds("(lookups pass it by)", map -> flipTag(map, firstEntry(map.pool(), map.table).slot()));
        assertFinds("(empty: lookups stop before it)",
                map -> setTag(map, firstEntry(map.pool(), map.table).slot(), TagLayout.EMPTY));
    }

    @Test
    void anEntryTwoSlotsNameIsFound() {
        assertFinds("as another slot does", map -> {
            Entry e = firstEntry(map.pool(), map.table);
            MemorySegment ab = slotArrayBlock(map.pool(), map.table);
            long ao = slotArrayOffset(map.pool(), map.table);
            SlotLayout.set(ab, ao, emptyAfter(map.pool(), map.table, e.slot()), CELL,
                    SlotLayout.get(ab, ao, e.slot(), CELL));
        });
    }

    @Test
    void aWrongCountIsFound() {
        assertFinds("entries are linked", map -> SegmentLayout.setCount(map.table.block(0), map.table.offset(0),
                SegmentLayout.count(map.table.block(0), map.table.offset(0)) + 1));
    }

    @Test
    void aHeldLockAndAnUnfinishedMutationAreFound() {
        assertFinds("locked", map -> SegmentLayout.tryLock(map.table.block(1), map.table.offset(1), 1));
        assertFinds("odd version", map -> SegmentLayout.beginMutation(map.table.block(1), map.table.offset(1)));
    }

    @Test
    void anIntentLeftSetIsFound() {
        assertFinds("intents left set", map -> SegmentLayout.setAdding(map.table.block(1), map.table.offset(1),
                firstEntry(map.pool(), map.table).ref()));
        assertFinds("intents left set", map -> SegmentLayout.setRemoving(map.table.block(1), map.table.offset(1),
                firstEntry(map.pool(), map.table).ref()));
    }

    @Test
    void anUnfinishedInPlaceUpdateIsFound() {
        assertFinds("odd stamp", map -> {
            Entry e = firstEntry(map.pool(), map.table);
            io.grove.internal.view.SliceStamp.beginWrite(e.block(), EntryLayout.stampAt(e.offset()));
        });
    }

    @Test
    void aLinkToADeletedEntryIsFound() {
        assertFinds("is not a live slice", map -> {
            Entry e = firstEntry(map.pool(), map.table);
            map.pool().delete(e.ref());
        });
    }

    @Test
    void anEntryAfterAnEmptySlotOfItsRunIsFound() {
        assertFinds("lookups miss it", map -> {
            Entry e = firstEntry(map.pool(), map.table);
            MemorySegment ab = slotArrayBlock(map.pool(), map.table);
            long ao = slotArrayOffset(map.pool(), map.table);
            long slot = SlotLayout.get(ab, ao, e.slot(), CELL);
            SlotLayout.set(ab, ao, e.slot(), CELL, SlotLayout.EMPTY);
            SlotLayout.set(ab, ao, emptyAfter(map.pool(), map.table, e.slot() + 1), CELL, slot);
        });
    }
}
