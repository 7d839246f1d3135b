package io.grove.internal.hash;

import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The slot array of a segment and the codec of its slots: the only place that knows their bits.
 *
 * <pre>
 * slot array (payload of a slice): 2^bits slots of 8 bytes, open addressing with linear probing.
 * slot:  63   62                                34 33                                      0
 *       +---+------------------------------------+------------------------------------------+
 *       | 1 |  tag: bits 0-28 of the key's hash  |  granule of the entry's slice (34 bits)  |
 *       +---+------------------------------------+------------------------------------------+
 * empty slot: 0
 * </pre>
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

    static long get(MemorySegment block, long array, long i) {
        return (long) LONG.get(block, array + i * Long.BYTES);
    }

    static void set(MemorySegment block, long array, long i, long slot) {
        LONG.set(block, array + i * Long.BYTES, slot);
    }

    /** Release: the stores before it (the entry it links) are ordered before it, even in a process killed here. */
    static void setRelease(MemorySegment block, long array, long i, long slot) {
        LONG.setRelease(block, array + i * Long.BYTES, slot);
    }

    /** The bytes of an array of {@code 2^bits} slots. */
    static int bytesFor(int bits) {
        return Long.BYTES << bits;
    }
}
