package io.grove.internal.hash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The tag array of a segment and the codec of its tags: the only place that knows their bits.
 *
 * <pre>
 * tag array (payload of a slice): 2^bits tags of 1 byte, tag i for slot i of the segment's slot array.
 * tag:   7   6                          0
 *      +---+----------------------------+
 *      | 1 | bits 29-35 of the key's hash |
 *      +---+----------------------------+
 * empty slot: 0
 * </pre>
 *
 * <p>A lookup probes the tags, which are an eighth of the slots' bytes and so stay in the processor's cache longer
 * than the slots, and reads a slot only where the tag matches its key's: a lookup of an absent key reads no slot
 * (unless 7 hash bits collide: one occupied slot in 128), and a lookup of a present one reads the one slot that links
 * it. One byte rather than two because the tags must stay cached for a probe to cost nothing: at 1M entries two-byte
 * tags took 4 MiB and missed on a fifth of the gets' samples, and section 6's prototype ran 10-20% faster with
 * 1.25 MB of one-byte tags than with 2.7-4 MB of two-byte ones (the experiment note "lookup path", section 9); the
 * slot's own 29-bit tag still keeps a wrong candidate from costing an entry miss. The bits are not
 * those of the slot's own tag ({@link SlotLayout}: bits 0-28, the home) nor the segment's (the top 24), so
 * that they filter at every array size. A tag is zero exactly where its slot is empty; a tag never says anything
 * the slot and its entry do not, so a recovery rebuilds the tags from the entries ({@code TableRecovery}).
 */
final class TagLayout {
    static final byte EMPTY = 0;
    private static final int SHIFT = 29;
    private static final int OCCUPIED = 0x80;

    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle().withInvokeExactBehavior();

    private TagLayout() {}

    /** The tag of a key with this hash. */
    static byte tagOf(long hash) {
        return (byte) (OCCUPIED | ((int) (hash >>> SHIFT) & 0x7F));
    }

    static byte get(MemorySegment block, long array, long i) {
        return (byte) BYTE.get(block, array + i);
    }

    static void set(MemorySegment block, long array, long i, byte tag) {
        BYTE.set(block, array + i, tag);
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
        return 1 << bits;
    }
}
