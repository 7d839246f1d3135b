package io.grove.internal.hash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.MemoryPool;
import io.grove.internal.file.FileHeader;
import io.grove.internal.memory.Pool;
import io.grove.serial.Serializers;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table in a file whose entries lie in its cells ({@code inlineEntries}): {@link TableRecovery} repairs each
 * state a process killed in the middle of a cell's write leaves, built here by stopping the write half-way, and the
 * writers never leave a state it could not repair (a replacement of another size does not write over the entry in
 * its cell). Afterwards {@link TableCheck} finds nothing and the map holds exactly its entries.
 */
class CellRecoveryTest {
    private static final OffHeapHashMap.Bounds<Long, String> UNBOUNDED =
            new OffHeapHashMap.Bounds<>(Long.MAX_VALUE, Long.MAX_VALUE, null, false);

    @TempDir
    Path dir;
    private OffHeapHashMap<Long, String> map;
    private Pool pool;
    private HashTable table;
    private int cellBytes;

    @BeforeEach
    void openMapInAFile() {
        int cells = (int) OffHeapHashMap.cellBytesFor(Long.BYTES, 24);
        FileHeader header = new FileHeader(64L << 20, MemoryPool.Builder.DEFAULT_BLOCK_SIZE, cells, Long.MAX_VALUE,
                Long.MAX_VALUE, "longs", "strings", 0);
        map = OffHeapHashMap.inFile(dir.resolve("cells.grove"), header, Serializers.longs(), Serializers.strings(),
                16, UNBOUNDED, new OffHeapHashMap.Syncing(false, 0),
                GroveHashMap.Builder.DEFAULT_OTHER_PROCESS_WAIT.toNanos());
        pool = map.pool();
        table = map.table;
        cellBytes = table.cellBytes();
        assertEquals(cells, cellBytes);
    }

    @AfterEach
    void close() {
        map.close();
    }

    private TableRecovery.Result repair() {
        TableRecovery.Result result = TableRecovery.repair(pool, map.directory(), cellBytes, Long.MAX_VALUE,
                Long.MAX_VALUE);
        assertEquals(0, result.taglessSegments().length);
        assertEquals(List.of(), TableCheck.check(pool, map.directory()).problems(), "after the repair");
        return result;
    }

    private MemorySegment arrayBlock() {
        return pool.segment(slots());
    }

    private long arrayOffset() {
        return pool.payloadOffset(slots());
    }

    private long slots() {
        return SegmentLayout.slots(table.block(0), table.offset(0));
    }

    /**
     * Puts keys 0, 1, ... (values "v0", "v1", ...: in their cells) until segment 0 has an occupied cell followed by
     * a displaced entry (one not in its home cell, so a removal of the first shifts it back); returns the first
     * cell's index.
     */
    private long fillUntilARunHasADisplacedEntry(Map<Long, String> reference) {
        for (long k = 0; ; k++) {
            map.put(k, "v" + k);
            reference.put(k, "v" + k);
            long mask = (1L << table.slotBits(0)) - 1;
            for (long i = 0; i <= mask; i++) {
                long slot = SlotLayout.get(arrayBlock(), arrayOffset(), i, cellBytes);
                long next = SlotLayout.get(arrayBlock(), arrayOffset(), (i + 1) & mask, cellBytes);
                if (slot != SlotLayout.EMPTY && next != SlotLayout.EMPTY
                        && SlotLayout.home(next, mask) != ((i + 1) & mask)) {
                    assertTrue(SlotLayout.isInline(slot) && SlotLayout.isInline(next), "entries in their cells");
                    return i;
                }
            }
        }
    }

    /**
     * The state of a removal of cell {@code i}'s entry killed while its shift copied the first {@code bytes} bytes
     * of the next cell over it: the mutation begun, and the key of the removed entry, which the copy overwrote, out of
     * {@code reference}.
     */
    private void cutOffShift(long i, long bytes, Map<Long, String> reference) {
        long mask = (1L << table.slotBits(0)) - 1;
        MemorySegment ab = arrayBlock();
        long ao = arrayOffset();
        Long removed = map.readKey(HashTable.entryAt(pool, slots(), i, SlotLayout.get(ab, ao, i, cellBytes),
                cellBytes), map.scratchForIteration());
        SegmentLayout.beginMutation(table.block(0), table.offset(0));
        MemorySegment.copy(ab, SlotLayout.cellAt(ao, (i + 1) & mask, cellBytes), ab, SlotLayout.cellAt(ao, i,
                cellBytes), bytes);
        reference.remove(removed);
    }

    /**
     * A removal killed in the middle of its shift's first copy: the removed entry's cell holds all of the next entry
     * but its value's last byte, and that byte of its own, a torn cell whose check word does not match (its slot, key
     * and check word are the next entry's); the next entry is whole in its own cell. The repair drops the torn cell and
     * keeps every other entry. Without the check of the cell's check word the torn cell would stay, linking a key with
     * bytes no one wrote.
     */
    @Test
    void aCellTornByACutOffShiftIsDropped() {
        Map<Long, String> reference = new HashMap<>();
        long i = fillUntilARunHasADisplacedEntry(reference);
        long mask = (1L << table.slotBits(0)) - 1;
        long next = SlotLayout.cellAt(arrayOffset(), (i + 1) & mask, cellBytes);
        cutOffShift(i, SlotLayout.usedBytes(arrayBlock(), next) - 1, reference);
        long torn = HashTable.entryAt(pool, slots(), i, SlotLayout.get(arrayBlock(), arrayOffset(), i, cellBytes),
                cellBytes);
        MemorySegment eb = pool.segment(torn);
        long eo = pool.payloadOffset(torn);
        assertNotEquals(EntryLayout.storedCheck(eb, eo), EntryLayout.check(eb, eo, pool.lengthUnchecked(torn)),
                "the half-copied cell is torn");

        TableRecovery.Result result = repair();
        assertEquals(1, result.unsoundDropped());
        assertEquals(1, result.mutationsEnded());
        assertEquals(reference, new HashMap<>(map));
        map.put(-1L, "after");
        assertEquals("after", map.get(-1L));
    }

    /**
     * A removal killed after its shift's first copy was whole and before the copied cell was overwritten or emptied:
     * one entry in two cells, alike to the identity. The repair empties the later copy.
     */
    @Test
    void aCellCopiedByACutOffShiftIsRemovedOnce() {
        Map<Long, String> reference = new HashMap<>();
        long i = fillUntilARunHasADisplacedEntry(reference);
        long mask = (1L << table.slotBits(0)) - 1;
        cutOffShift(i, SlotLayout.usedBytes(arrayBlock(), SlotLayout.cellAt(arrayOffset(), (i + 1) & mask,
                cellBytes)), reference);

        TableRecovery.Result result = repair();
        assertEquals(1, result.duplicatesRemoved());
        assertEquals(0, result.unsoundDropped() + result.repeatedKeysDropped());
        assertEquals(reference, new HashMap<>(map));
        assertEquals(reference.size(), map.size());
    }

    /**
     * In a file, a put of a value of another length on an entry in its cell links the new entry apart and leaves the
     * cell's bytes as they were, so that a process killed at any point of it leaves the old entry or the new one
     * whole (the copy of a new entry over the old one in its cell, as a table in memory does, can be cut off with
     * neither whole: a random kill rarely falls in it, so this checks the writes instead); the next put of another
     * length moves the entry back into its cell, whose bytes nothing links meanwhile.
     */
    @Test
    void aReplacementOfAnotherLengthDoesNotWriteOverTheEntryInItsCell() {
        map.put(5L, "short");
        int s = segmentOf(5L);
        long i = cellOf(s);
        MemorySegment ab = pool.segment(SegmentLayout.slots(table.block(s), table.offset(s)));
        long cell = SlotLayout.cellAt(pool.payloadOffset(SegmentLayout.slots(table.block(s), table.offset(s))), i,
                cellBytes);
        byte[] before = ab.asSlice(cell + SlotLayout.INLINE_LENGTH, cellBytes - SlotLayout.INLINE_LENGTH)
                .toArray(ValueLayout.JAVA_BYTE);

        map.put(5L, "longer");
        assertEquals("longer", map.get(5L));
        assertFalse(SlotLayout.isInline(ab.get(ValueLayout.JAVA_LONG, cell)), "the new entry is apart");
        assertArrayEquals(before, ab.asSlice(cell + SlotLayout.INLINE_LENGTH, cellBytes - SlotLayout.INLINE_LENGTH)
                .toArray(ValueLayout.JAVA_BYTE), "the cell's entry was written over");

        map.put(5L, "longest");
        assertEquals("longest", map.get(5L));
        assertTrue(SlotLayout.isInline(ab.get(ValueLayout.JAVA_LONG, cell)), "back in its cell");
    }

    private int segmentOf(long key) {
        Scratch scratch = map.begin(key);
        try {
            return table.segmentOf(scratch.keyHash());
        } finally {
            scratch.release();
        }
    }

    /** The index of the only occupied cell of segment {@code s}. */
    private long cellOf(int s) {
        long slots = SegmentLayout.slots(table.block(s), table.offset(s));
        long found = -1;
        for (long i = 0; i < 1L << table.slotBits(s); i++) {
            if (SlotLayout.get(pool.segment(slots), pool.payloadOffset(slots), i, cellBytes) != SlotLayout.EMPTY) {
                assertEquals(-1, found, "one entry in the segment");
                found = i;
            }
        }
        return found;
    }

    /**
     * A put of a value of the same length, written in place in its cell, killed half-way (stamp odd, the value
     * half-written): the before-image the put recorded in the file is put back, and the entry is sound.
     */
    @Test
    void anInPlacePutCutOffInACellIsPutBack() {
        map.put(9L, "nine");
        int s = segmentOf(9L);
        long i = cellOf(s);
        long slots = SegmentLayout.slots(table.block(s), table.offset(s));
        long e = HashTable.entryAt(pool, slots, i, SlotLayout.get(pool.segment(slots), pool.payloadOffset(slots), i,
                cellBytes), cellBytes);
        assertTrue(HashTable.isInline(e));
        int start = EntryLayout.valueOffset(table.keyLength(e));
        table.saveBeforeImage(s, e, start);
        table.beginValueWrite(e);
        pool.segment(e).set(ValueLayout.JAVA_BYTE, pool.payloadOffset(e) + start, (byte) 'N');

        TableRecovery.Result result = repair();
        assertEquals(1, result.restoredValues());
        assertEquals("nine", map.get(9L));
    }
}
