package io.grove.internal.memory;

import java.lang.foreign.MemorySegment;

/**
 * Blocks carved in order from one region that exists already, such as the block area of a mapped file: the
 * {@code n}-th reservation is the region's next {@code n} bytes. {@link Blocks} reserves blocks in order and
 * never returns one, so the region's bytes [0, k × block size) are always blocks 0 to k − 1, in every process
 * and every run that maps it. Each reservation first records the bytes reserved in the pool's state record
 * ({@link PoolStateLayout}), unless the pool only reads. Closing runs {@code onClose} (the owner of the region
 * releases it).
 */
final class RegionBlockSource implements BlockSource {
    private final MemorySegment region;
    /** The pool's state record, or {@code null} if the pool only reads. */
    private final MemorySegment state;
    private final Runnable onClose;
    private long next;

    RegionBlockSource(MemorySegment region, MemorySegment state, Runnable onClose) {
        this.region = region;
        this.state = state;
        this.onClose = onClose;
    }

    @Override
    public synchronized MemorySegment reserve(long bytes) { // (Blocks calls it under its reservation lock)
        MemorySegment block = region.asSlice(next, bytes);
        next += bytes;
        if (state != null && PoolStateLayout.reservedBytes(state) < next) {
            PoolStateLayout.setReservedBytes(state, next); // before the block's first use: Blocks publishes it after
        }
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
