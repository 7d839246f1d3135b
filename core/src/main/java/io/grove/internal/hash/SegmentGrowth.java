package io.grove.internal.hash;

import io.grove.GroveOutOfMemoryException;
import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;

/**
 * Growth of a segment's slot and tag arrays: before an insertion would take the segment past 3/4 of its slots, the
 * writer doubles the arrays (MapHash grows a whole table at once; here one segment at a time, so only that segment's
 * writers wait, for as long as rehashing its slots takes).
 *
 * <p>Implementation notes. The new arrays are built while private: every occupied cell of the old array is copied
 * (its slot, and an entry lying in it), with its tag, to the first empty cell from its home in the new one, computed
 * from the slot's own tag bits alone ({@link SlotLayout}), so no key is hashed and no entry apart is touched. One
 * mutation then installs them (slot array reference, tag array reference, then their size, all release stores), and
 * the old arrays are deleted through Nova. A lock-free reader that probed the old arrays (or read an entry in one of
 * their cells) sees the version move and probes again; one that reads an old array after its memory was reused
 * reads garbage, which the same version check rejects. A process killed at any instruction
 * leaves either the old slot array installed (the new one is a private slice nothing reaches, freed by the reopen's
 * sweep) or the new one with the tags or the size lagging, which the reopen takes from the slot array's length and
 * whose tags it rebuilds ({@code TableRecovery}); no entry is ever in neither.
 *
 * <p>A segment stops growing at {@link SlotLayout#MAX_BITS} bits or the largest slice the pool serves
 * ({@code maxSliceSize / C} cells of {@code C} bytes), or when memory for a larger array is lacking; it then fills
 * to all but one cell (one stays empty so that every probe ends), and an insertion past that fails with
 * {@link GroveOutOfMemoryException}.
 *
 * <p>Everything here runs under the segment's lock; the caller holds it.
 */
final class SegmentGrowth {
    static final int MIN_SLOT_BITS = 4;

    private final Pool pool;
    private final int cellBytes;
    private final int maxSlotBits;

    /** Growth of the arrays of a table whose cells have {@code cellBytes} bytes ({@link SlotLayout}). */
    SegmentGrowth(Pool pool, int cellBytes) {
        this.pool = pool;
        this.cellBytes = cellBytes;
        this.maxSlotBits = maxSlotBits(pool.maxSliceSize(), cellBytes);
    }

    /** log2 of the most cells of {@code cellBytes} bytes one array may have in slices of at most {@code maxSlice}. */
    static int maxSlotBits(int maxSlice, int cellBytes) {
        return Math.min(SlotLayout.MAX_BITS, 31 - Integer.numberOfLeadingZeros(maxSlice / cellBytes));
    }

    /** log2 of the most slots one array may have. */
    int maxSlotBits() {
        return maxSlotBits;
    }

    /** A new slot array of {@code 2^bits} empty cells (a new slice's payload reads zero). */
    long newSlotArray(int bits) {
        return pool.allocate(SlotLayout.bytesFor(bits, cellBytes));
    }

    /** A new tag array of {@code 2^bits} empty tags. */
    long newTagArray(int bits) {
        return pool.allocate(TagLayout.bytesFor(bits));
    }

    /**
     * Before an insertion into segment {@code s} (record {@code (sb, so)}): doubles its slot array if the insertion
     * would take it past 3/4 full and it may grow. Throws {@link GroveOutOfMemoryException} if the segment could
     * not grow and has only one empty slot left.
     */
    void makeRoomForOne(int s, MemorySegment sb, long so) {
        int bits = SegmentLayout.slotBits(sb, so);
        long count = SegmentLayout.count(sb, so) + 1;
        if (count <= (3L << bits) / 4) {
            return;
        }
        if (bits < maxSlotBits) {
            try {
                grow(sb, so, bits);
                return;
            } catch (GroveOutOfMemoryException lacking) {
                if (count < 1L << bits) {
                    return; // probes get longer; the map stays correct
                }
                throw new GroveOutOfMemoryException("segment " + s + " of the hash map is full (" + (count - 1)
                        + " entries in " + (1L << bits) + " slots) and memory for a larger slot array is lacking: "
                        + lacking.getMessage());
            }
        }
        if (count >= 1L << bits) {
            throw new GroveOutOfMemoryException("segment " + s + " of the hash map is full: " + (count - 1)
                    + " entries in " + (1L << bits) + " slots, the most one segment holds with this block size"
                    + " (build the map with a larger expectedSize, for more segments, or a larger block size)");
        }
    }

    private void grow(MemorySegment sb, long so, int bits) {
        long old = SegmentLayout.slots(sb, so);
        long oldTags = SegmentLayout.tags(sb, so);
        long fresh = newSlotArray(bits + 1);
        long freshTags;
        try {
            freshTags = newTagArray(bits + 1);
        } catch (GroveOutOfMemoryException lacking) {
            pool.deletePrivate(fresh);
            throw lacking;
        }
        MemorySegment ob = pool.segment(old);
        long oo = pool.payloadOffset(old);
        MemorySegment otb = pool.segment(oldTags);
        long oto = pool.payloadOffset(oldTags);
        MemorySegment nb = pool.segment(fresh);
        long no = pool.payloadOffset(fresh);
        MemorySegment ntb = pool.segment(freshTags);
        long nto = pool.payloadOffset(freshTags);
        long oldSlots = 1L << bits;
        long mask = (oldSlots << 1) - 1;
        for (long i = 0; i < oldSlots; i++) {
            long slot = SlotLayout.get(ob, oo, i, cellBytes);
            if (slot != SlotLayout.EMPTY) {
                long j = TagLayout.firstEmptyFrom(ntb, nto, mask, SlotLayout.home(slot, mask));
                long from = SlotLayout.cellAt(oo, i, cellBytes);
                MemorySegment.copy(ob, from, nb, SlotLayout.cellAt(no, j, cellBytes), SlotLayout.usedBytes(ob, from));
                TagLayout.set(ntb, nto, j, TagLayout.get(otb, oto, i));
            }
        }
        SegmentLayout.beginMutation(sb, so);
        SegmentLayout.setSlots(sb, so, fresh);
        SegmentLayout.setTags(sb, so, freshTags);
        SegmentLayout.setSlotBits(sb, so, bits + 1);
        SegmentLayout.endMutation(sb, so);
        pool.delete(old);
        pool.delete(oldTags);
    }
}
