package io.grove.internal.memory;

import io.grove.GroveOutOfMemoryException;
import java.util.concurrent.atomic.LongAdder;

/**
 * The grow-only baseline of the Nova paper (§4): slices come from the bump pointer and are never reused. A
 * delete still sets the header's deleted bit, so stale handles fail exactly as with Nova; writers need no hazard
 * announcement because a deleted slice's memory is never handed out again. Every slice is fresh memory from the
 * bump pointer, which the block source zero-filled.
 */
final class GrowOnlyAllocator implements SliceAllocator {
    private static final int VERSION = 1;

    private final Blocks blocks;
    private final LongAdder deletedGranules = new LongAdder();
    private final LongAdder liveSlices = new LongAdder();

    GrowOnlyAllocator(Blocks blocks) {
        this.blocks = blocks;
    }

    @Override
    public long allocate(int length) {
        long granules = sliceGranules(length);
        long granule = blocks.bump(granules, this);
        if (granule < 0) {
            throw new GroveOutOfMemoryException("memory limit reached (" + blocks.reservedBytes()
                    + " bytes reserved, grow-only reclamation never reuses memory): cannot allocate a slice of "
                    + length + " bytes");
        }
        return publishFresh(granule, granules, length);
    }

    @Override
    public long sliceGranules(int length) {
        return Math.max(2, SliceHeader.granulesFor(length));
    }

    @Override
    public long publishFresh(long g, long granules, int length) {
        SliceHeader.initialize(blocks.block(g), blocks.offsetInBlock(g), granules, SliceHeader.state(VERSION, length));
        liveSlices.increment();
        return Reference.of(g, VERSION);
    }

    @Override
    public boolean delete(long ref) {
        long capacity = SliceStates.tryDelete(blocks, ref);
        if (capacity < 0) {
            return false;
        }
        deletedGranules.add(capacity);
        liveSlices.decrement();
        return true;
    }

    @Override
    public void deletePrivate(long ref) {
        deletedGranules.add(SliceStates.deletePrivate(blocks, ref));
        liveSlices.decrement();
    }

    @Override
    public long beginWrite(long ref) {
        if (Reference.isDeleted(ref) || ref == Reference.NULL) {
            return -1;
        }
        long granule = Reference.granule(ref);
        return SliceHeader.isLive(blocks.block(granule), blocks.offsetInBlock(granule), ref) ? 0 : -1;
    }

    @Override
    public void endWrite(long token) {}

    @Override
    public boolean acceptTail(long granule, long granules) {
        return false; // nothing is reused, so the tail stays unused
    }

    @Override
    public long releasedBytes() {
        return deletedGranules.sum() << SliceHeader.GRANULE_SHIFT;
    }

    @Override
    public long freeBytes() {
        return 0;
    }

    @Override
    public long liveSlices() {
        return liveSlices.sum();
    }
}
