package io.grove.internal.hash;

import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The slot array of a segment and the codec of its slots: the only place that knows their bits.
 *
 * <pre>
 * slot array (payload of a slice): 2^bits cells of C bytes, open addressing with linear probing; C is fixed for
 * the table: 8 (a cell is a slot) unless the map stores entries inline (then a multiple of 16).
 * slot:  63   62                                34 33                                      0
 *       +---+------------------------------------+------------------------------------------+
 *       | 1 |  tag: bits 0-28 of the key's hash  |  granule of the entry's slice (34 bits)  |
 *       +---+------------------------------------+------------------------------------------+
 * empty slot: 0
 * cell of C > 8 bytes, 16-byte aligned:
 * byte offset 0            8                     16                                      C
 *            +------------+---------------------+---------------------------------------+
 *            | slot       | length (long)       | entry (EntryLayout), if the slot says  |
 *            +------------+---------------------+---------------------------------------+
 * </pre>
 *
 * <p>Cells. A cell starts with its slot. A slot whose granule field is all ones ({@link #isInline}) says that its
 * entry lies in the cell itself: the entry's payload length in the next 8 bytes, at the place and in the bits where a
 * slice header keeps a slice's length (its state word, {@code SliceHeader}: version 0, length in the low 34 bits),
 * then the entry as a slice's payload would hold it. An entry slice's header never lies in the last granule of the
 * pool's address range (a payload follows it), so no other slot has that granule. A slot naming a slice leaves the
 * rest of its cell unused: the entry did not fit, or a zero-copy handle moved it apart ({@code HashTable#spill}).
 *
 * <ul>
 *   <li>bit 63: set in every occupied slot, so that no occupied slot is 0 whatever its tag and granule.
 *   <li>tag: the low 29 bits of the key's 64-bit hash ({@link KeyHash}). An entry's home is
 *       {@code tag & (2^bits - 1)} (so a segment holds at most 2<sup>29</sup> slots); the segment is chosen by the
 *       hash's top bits, which the tag does not include. A lookup compares the tag before it touches an entry, so a
 *       wrong candidate costs an entry miss with probability 2<sup>-(29 - bits)</sup>; growth rehashes from the
 *       slots alone, without reading one entry.
 *   <li>granule: where the entry's slice header is ({@link Pool#granuleOf}); the reference, with the Nova version
 *       the slice has now, is rebuilt from the header ({@link Pool#currentReference}), which lies in the 16 bytes
 *       before the entry's payload, so on the line the lookup reads next.
 * </ul>
 * Invariant (linear probing without tombstones): an entry lies in the run of occupied slots that starts at its home,
 * i.e. no empty slot lies between its home and its slot (cyclically). Removal shifts the rest of the run back
 * ({@link HashTable}) instead of leaving a tombstone, so probe lengths do not grow with churn.
 */
final class SlotLayout {
    static final long EMPTY = 0;
    static final int TAG_BITS = 29;
    /** log2 of the most slots a segment's array may have: a home is taken from the tag's bits. */
    static final int MAX_BITS = TAG_BITS;
    private static final int TAG_SHIFT = 34;
    private static final long OCCUPIED = 1L << 63;
    private static final long TAG_MASK = (1L << TAG_BITS) - 1;
    private static final long GRANULE_MASK = (1L << TAG_SHIFT) - 1;
    /** The bytes of a cell that is only a slot. */
    static final int SLOT_CELL = Long.BYTES;
    /** Where an inline entry's length is in its cell, and where the entry starts. */
    static final int INLINE_LENGTH = 8;
    static final int INLINE_ENTRY = 16;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();

    private SlotLayout() {}

    /** The slot bits every slot of a key with this hash carries besides the granule: compare with {@link #tagOf}. */
    static long tagBits(long hash) {
        return OCCUPIED | (hash & TAG_MASK) << TAG_SHIFT;
    }

    static long slot(long hash, long granule) {
        return tagBits(hash) | granule;
    }

    /** The tag bits of an occupied slot, as {@link #tagBits} gives them. */
    static long tagOf(long slot) {
        return slot & ~GRANULE_MASK;
    }

    static long granule(long slot) {
        return slot & GRANULE_MASK;
    }

    /** The slot of an entry that lies in its cell, whose key's slot tag bits are {@code tagBits}. */
    static long inlineSlot(long tagBits) {
        return tagBits | GRANULE_MASK;
    }

    /** Whether an occupied slot's entry lies in its cell. */
    static boolean isInline(long slot) {
        return (slot & GRANULE_MASK) == GRANULE_MASK;
    }

    /** The home index of an occupied slot's entry in an array of {@code mask + 1} slots. */
    static long home(long slot, long mask) {
        return slot >>> TAG_SHIFT & mask;
    }

    /** The home index of a key with this hash in an array of {@code mask + 1} slots. */
    static long homeOf(long hash, long mask) {
        return hash & mask;
    }

    /** How many slots past its home slot {@code i} is, in an array of {@code mask + 1} slots. */
    static long distance(long home, long i, long mask) {
        return (i - home) & mask;
    }

    /** Where cell {@code i} of an array at {@code array} with cells of {@code cellBytes} bytes starts. */
    static long cellAt(long array, long i, int cellBytes) {
        return array + i * cellBytes;
    }

    static long get(MemorySegment block, long array, long i, int cellBytes) {
        return (long) LONG.get(block, cellAt(array, i, cellBytes));
    }

    static void set(MemorySegment block, long array, long i, int cellBytes, long slot) {
        LONG.set(block, cellAt(array, i, cellBytes), slot);
    }

    /** Release: the stores before it (the entry it links) are ordered before it, even in a process killed here. */
    static void setRelease(MemorySegment block, long array, long i, int cellBytes, long slot) {
        LONG.setRelease(block, cellAt(array, i, cellBytes), slot);
    }

    /** The payload length of the entry in the cell at {@code cell}, whose slot {@link #isInline}. */
    static int inlineLength(MemorySegment block, long cell) {
        return (int) (long) LONG.get(block, cell + INLINE_LENGTH);
    }

    static void setInlineLength(MemorySegment block, long cell, int length) {
        LONG.set(block, cell + INLINE_LENGTH, (long) length);
    }

    /**
     * The bytes of the cell at {@code cell} that hold something: the slot, and an inline entry's length and
     * payload; what a move of the cell copies.
     */
    static long usedBytes(MemorySegment block, long cell) {
        return isInline(get(block, cell)) ? INLINE_ENTRY + inlineLength(block, cell) : Long.BYTES;
    }

    private static long get(MemorySegment block, long cell) {
        return (long) LONG.get(block, cell);
    }

    /** The bytes of an array of {@code 2^bits} cells of {@code cellBytes} bytes. */
    static int bytesFor(int bits, int cellBytes) {
        return cellBytes << bits;
    }
}
