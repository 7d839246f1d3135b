package io.grove.internal.memory;

import java.lang.foreign.MemorySegment;

/**
 * Blocks carved in order from one region that exists already, such as the block area of a mapped file: the
 * {@code n}-th reservation is the region's next {@code n} bytes. {@link Blocks} reserves blocks in order and
 * never returns one, so the region's bytes [0, k × block size) are always blocks 0 to k − 1, in every process
 * and every run that maps it. Closing runs {@code onClose} (the owner of the region releases it).
 */
final class RegionBlockSource implements BlockSource {
    private final MemorySegment region;
    private final Runnable onClose;
    private long next;

    RegionBlockSource(MemorySegment region, Runnable onClose) {
        this.region = region;
        this.onClose = onClose;
    }

    @Override
    public synchronized MemorySegment reserve(long bytes) { // (Blocks calls it under its reservation lock)
        MemorySegment block = region.asSlice(next, bytes);
        next += bytes;
        return block;
    }

    /** Never: the region is released whole by its owner, so reserving in groups would gain nothing. */
    @Override
    public long returnedFrom() {
        return Long.MAX_VALUE;
    }

    @Override
    public void close() {
        onClose.run();
    }
}
