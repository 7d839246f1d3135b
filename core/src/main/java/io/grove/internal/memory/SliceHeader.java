package io.grove.internal.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The layout of the 16-byte header that precedes every slice (Nova, §3.2, with the magic number of
 * Nova's Appendix B). The only place that computes an offset inside a header.
 *
 * <pre>
 * byte offset  0               4               8                                                   16
 *             +---------------+---------------+----------------------------------------------------+
 *             | magic (int)   | capacity (int)| state (long)                                       |
 *             +---------------+---------------+----------------------------------------------------+
 * state:  63   62                         34 33  32                               0
 *        +---+-----------------------------+---+-----------------------------------+
 *        | D |     version (29 bits)        | F |   length in bytes (33 bits)       |
 *        +---+-----------------------------+---+-----------------------------------+
 * </pre>
 *
 * <ul>
 *   <li>magic: {@link #MAGIC} while the header is a header. When free neighbours are merged, the headers inside
 *       the merged slice get magic 0, so a stale reference to such a place fails even after the place is
 *       overwritten, except if the user's bytes there happen to repeat both the magic and the exact version
 *       (probability 2<sup>-61</sup> per access).
 *   <li>capacity: the slice's size in 16-byte granules, header included; it says how much memory returns to the
 *       free lists when the slice is freed, and may exceed what {@code length} needs.
 *   <li>state: the same bit positions as {@link Reference} for version and deleted bit; {@code length} is the
 *       payload length the slice was allocated with. Deletion is one CAS on this word. F (freed): set, with D, on
 *       a slice that is on a free list or on its way there, by the one CAS that frees a deleted slice
 *       ({@code SliceStates#tryFree}), so that a deleted slice named twice in release stripes is freed once; no
 *       length reaches it (a slice holds less than 2<sup>31</sup> bytes), so a length read as an {@code int} is
 *       the same with it or without.
 * </ul>
 *
 * <p>The payload follows the header, so it is 16-byte aligned. All header fields are in native byte order.
 */
public final class SliceHeader {
    public static final int SIZE = 16;
    static final int GRANULE = 16;
    static final int GRANULE_SHIFT = 4;

    /** A fixed random bit string; any value works that user data is unlikely to repeat. */
    static final int MAGIC = 0x5A3C_96E1;
    static final int MAGIC_OFFSET = 0;
    static final int CAPACITY_OFFSET = 4;
    static final int STATE_OFFSET = 8;
    static final long LENGTH_MASK = Reference.GRANULE_MASK;
    static final long FREED_BIT = 1L << 33;

    private static final VarHandle INT =
            ValueLayout.JAVA_INT.varHandle().withInvokeExactBehavior();
    private static final VarHandle LONG =
            ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();

    private SliceHeader() {}

    static long state(int version, long length) {
        return ((long) version << Reference.VERSION_SHIFT) | length;
    }

    static long lengthOf(long state) {
        return state & LENGTH_MASK;
    }

    static long asDeleted(long state) {
        return state | Reference.DELETED_BIT;
    }

    static boolean isDeleted(long state) {
        return (state & Reference.DELETED_BIT) != 0;
    }

    /** The state of a free slice whose last incarnation had {@code state}: deleted and freed. */
    static long asFreed(long state) {
        return state | Reference.DELETED_BIT | FREED_BIT;
    }

    static boolean isFreed(long state) {
        return (state & FREED_BIT) != 0;
    }

    /** Granules a slice of {@code length} payload bytes needs, header included. */
    static long granulesFor(long length) {
        return (length + SIZE + GRANULE - 1) >>> GRANULE_SHIFT;
    }

    /** Writes a whole fresh header; plain stores, published later by the release that shares the reference. */
    static void initialize(MemorySegment block, long header, long capacityGranules, long state) {
        INT.set(block, header + MAGIC_OFFSET, MAGIC);
        INT.set(block, header + CAPACITY_OFFSET, (int) capacityGranules);
        LONG.set(block, header + STATE_OFFSET, state);
    }

    /** Zero bytes copied over a payload to clear it, a chunk at a time. */
    private static final MemorySegment ZEROS = Arena.global().allocate(4096);

    /**
     * Zeroes the first {@code length} payload bytes of the slice whose header is at {@code header}: copies from
     * {@link #ZEROS} rather than filling a slice of the block, since {@code asSlice} creates a segment object,
     * which escape analysis did not always remove (40 bytes per put in a full test run, NoGarbageOnPutTest).
     */
    static void clearPayload(MemorySegment block, long header, long length) {
        long at = header + SIZE;
        for (long done = 0; done < length; done += ZEROS.byteSize()) {
            MemorySegment.copy(ZEROS, 0, block, at + done, Math.min(ZEROS.byteSize(), length - done));
        }
    }

    static int magic(MemorySegment block, long header) {
        return (int) INT.get(block, header + MAGIC_OFFSET);
    }

    static void clearMagic(MemorySegment block, long header) {
        INT.set(block, header + MAGIC_OFFSET, 0);
    }

    static long capacityGranules(MemorySegment block, long header) {
        return Integer.toUnsignedLong((int) INT.get(block, header + CAPACITY_OFFSET));
    }

    static void setCapacityGranules(MemorySegment block, long header, long granules) {
        INT.set(block, header + CAPACITY_OFFSET, (int) granules);
    }

    static long statePlain(MemorySegment block, long header) {
        return (long) LONG.get(block, header + STATE_OFFSET);
    }

    static long stateAcquire(MemorySegment block, long header) {
        return (long) LONG.getAcquire(block, header + STATE_OFFSET);
    }

    static long stateVolatile(MemorySegment block, long header) {
        return (long) LONG.getVolatile(block, header + STATE_OFFSET);
    }

    static void setStatePlain(MemorySegment block, long header, long state) {
        LONG.set(block, header + STATE_OFFSET, state);
    }

    static boolean casState(MemorySegment block, long header, long expected, long next) {
        return LONG.compareAndSet(block, header + STATE_OFFSET, expected, next);
    }

    /**
     * Whether the header at {@code header} is a live header of the incarnation {@code ref} names: magic intact,
     * same version, not deleted. Reads the state with acquire semantics so that, for an optimistic reader,
     * a preceding {@link VarHandle#loadLoadFence()} orders the data reads before it.
     */
    static boolean isLive(MemorySegment block, long header, long ref) {
        return !Reference.isDeleted(ref)
                && Reference.sameIncarnation(stateAcquire(block, header), ref)
                && magic(block, header) == MAGIC;
    }
}
