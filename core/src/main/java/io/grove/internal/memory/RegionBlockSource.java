package io.grove.internal.memory;

import java.lang.foreign.MemorySegment;
import java.util.function.Supplier;

/**
 * Blocks carved in order from one region that exists already, such as the block area of a mapped file: the
 * {@code n}-th reservation is the region's next {@code n} bytes. {@link Blocks} reserves blocks in order and
 * never returns one, so the region's bytes [0, k × block size) are always blocks 0 to k − 1, in every process
 * and every run that maps it. Each reservation of bytes never reserved before first has the storage device take
 * them (so that a full device fails the reservation, with {@link io.grove.GroveOutOfMemoryException}, instead of
 * a later store into the mapping with SIGBUS), then records them in the pool's state record
 * ({@link PoolStateLayout}), both under the file's growth lock, since several processes may reserve blocks of one
 * file: the first to need a block has the device take it, the others find it recorded. A pool that only reads does
 * neither. Closing runs {@code onClose} (the owner of the region releases it).
 */
final class RegionBlockSource implements BlockSource {
    private final MemorySegment region;
    /** The pool's state record, or {@code null} if the pool only reads. */
    private final MemorySegment state;
    /** Has the device take the bytes of a reservation; {@code null} if the pool only reads. */
    private final Pool.SpaceTaker takeSpace;
    /** Takes the file's growth lock (between processes); {@code null} if the pool only reads. */
    private final Supplier<Pool.HeldLock> lockGrowth;
    private final Runnable onClose;
    private long next;

    RegionBlockSource(MemorySegment region, MemorySegment state, Pool.SpaceTaker takeSpace,
            Supplier<Pool.HeldLock> lockGrowth, Runnable onClose) {
        this.region = region;
        this.state = state;
        this.takeSpace = takeSpace;
        this.lockGrowth = lockGrowth;
        this.onClose = onClose;
    }

    @Override
    public synchronized MemorySegment reserve(long bytes) { // (Blocks calls it under its reservation lock)
        MemorySegment block = region.asSlice(next, bytes);
        long end = next + bytes;
        if (state != null && PoolStateLayout.reservedBytes(state) < end) {
            try (Pool.HeldLock growth = lockGrowth.get()) {
                long recorded = PoolStateLayout.reservedBytes(state);
                if (recorded < end) { // all before the block's first use: Blocks publishes it after
                    long from = Math.max(recorded, next);
                    takeSpace.take(from, end - from);
                    PoolStateLayout.setReservedBytes(state, end);
                }
            }
        }
        next = end;
        return block;
    }

    @Override
    public MemorySegment region() {
        return region;
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
