package io.grove.internal.hash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The tag array of a segment and the codec of its tags: the only place that knows their bits.
 *
 * <pre>
 * tag array (payload of a slice): 2^bits tags of 2 bytes, tag i for slot i of the segment's slot array.
 * tag:  15   14                                   0
 *      +---+-------------------------------------+
 *      | 1 | bits 29-43 of the key's hash         |
 *      +---+-------------------------------------+
 * empty slot: 0
 * </pre>
 *
 * <p>A lookup probes the tags, which are a quarter of the slots' bytes and so stay in the processor's cache where
 * the slots do not, and reads a slot only where the tag matches its key's: a lookup of an absent key reads no slot
 * (unless 15 hash bits collide), and a lookup of a present one reads the one slot that links it. The bits are not
 * those of the slot's own tag ({@link SlotLayout}: bits 0-28, the home) nor the segment's (the top 12 at most), so
 * that they filter at every array size. A tag is zero exactly where its slot is empty; a tag never says anything
 * the slot and its entry do not, so a recovery rebuilds the tags from the entries ({@code TableRecovery}).
 */
final class TagLayout {
    static final short EMPTY = 0;
    private static final int SHIFT = 29;
    private static final int OCCUPIED = 0x8000;

    private static final VarHandle SHORT = ValueLayout.JAVA_SHORT.varHandle().withInvokeExactBehavior();

    private TagLayout() {}

    /** The tag of a key with this hash. */
    static short tagOf(long hash) {
        return (short) (OCCUPIED | ((int) (hash >>> SHIFT) & 0x7FFF));
    }

    static short get(MemorySegment block, long array, long i) {
        return (short) SHORT.get(block, array + i * Short.BYTES);
    }

    static void set(MemorySegment block, long array, long i, short tag) {
        SHORT.set(block, array + i * Short.BYTES, tag);
    }

    /**
     * The first empty slot from slot {@code from} on (cyclically) of an array of {@code mask + 1} tags, which has
     * one: where linear probing puts a new entry whose home is {@code from}.
     */
    static long firstEmptyFrom(MemorySegment block, long array, long mask, long from) {
        long i = from;
        while (get(block, array, i) != EMPTY) {
            i = (i + 1) & mask;
        }
        return i;
    }

    /** The bytes of an array of {@code 2^bits} tags. */
    static int bytesFor(int bits) {
        return Short.BYTES << bits;
    }
}
