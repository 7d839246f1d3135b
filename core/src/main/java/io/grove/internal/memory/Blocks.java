package io.grove.internal.memory;

import io.grove.GroveOutOfMemoryException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The blocks of one pool and the bump pointer that carves fresh memory out of them.
 *
 * <p>Implementation notes.
 *
 * <p>Granules (16 bytes) are numbered across the pool: block {@code b} holds granules
 * {@code [b << granuleShift, (b + 1) << granuleShift)}. The bump pointer ({@link AllocatorWords#bump}) is the next
 * never-used granule.
 * An allocation of {@code n} granules advances it with one CAS from {@code g} to {@code g + n}; if the slice would
 * cross a block boundary it instead advances to the next block's start plus {@code n}, and hands the abandoned
 * tail of the old block to the caller ({@link TailSink}) so that it is not lost.
 *
 * <p>Invariants: (1) a granule below the bump pointer was handed out exactly once; (2) a block is reserved
 * ({@code table[b] != null}) before the bump pointer enters it — the thread whose CAS would move the pointer into
 * it reserves it first — and never removed until {@link #close}; so every granule below the pointer, a skipped
 * tail's included, lies in a reserved block, and a reservation the operating system refuses consumes no granule;
 * (3) at most {@link #maxBlocks} blocks are reserved, so reserved bytes never exceed the memory limit.
 *
 * <p>Reservation in groups: blocks are reserved lazily, one at a time while the pool is small. Once it has reserved
 * {@link BlockSource#returnedFrom()} bytes (32 MiB from an arena), each reservation takes a group of blocks at least
 * that large in one region (the blocks are slices of it), so that the operating system gets the memory back when
 * the pool closes: the C allocator keeps smaller freed regions for itself (see {@link ArenaBlockSource}). A group
 * never passes the memory limit (it is cut to the blocks left), and if the operating system refuses a group, one
 * block is tried. Blocks are reserved in order (invariant 2: the bump pointer enters block {@code b} only after
 * {@code b - 1}), so the blocks after {@code b} are free when {@code b} is reserved. The cost: a pool past 32 MiB
 * may hold up to one group (less one block) reserved and zero-filled before it needs it.
 *
 * <p>Blocks of a region that exists whole before any reservation ({@link BlockSource#region()}: a mapped file's
 * block area, which several processes may share) are all in the table from the start, so that this process can
 * read a block another process reserved; reserving one then only has the source make it usable (the device takes
 * its bytes) before this process's bump pointer enters it.
 *
 * <p>Memory ordering: a block is published into {@code table} with {@code setRelease} under the reservation
 * lock, before {@link #reservedBlocks} (volatile) counts it; the fast path of {@link #ensureReserved} reads that
 * count. Hot-path lookups ({@link #block}) read the table plainly: a thread only looks up a reference it obtained
 * through a release/acquire chain that starts after the block was published.
 */
final class Blocks {
    private static final VarHandle TABLE = MethodHandles.arrayElementVarHandle(MemorySegment[].class);

    /** Receives fresh granules the bump pointer skipped at the end of a block. */
    interface TailSink {
        /** Takes the tail for reuse and returns {@code true}, or returns {@code false} to leave it unused. */
        boolean acceptTail(long granule, long granules);
    }

    final int blockSize;
    final int granuleShift;
    final long granulesPerBlock;
    final int maxBlocks;
    /** Blocks per group once the pool reserves in groups: the fewest that make {@link BlockSource#returnedFrom()}. */
    private final int groupBlocks;
    private final MemorySegment[] table;
    private final BlockSource source;
    /** The bump pointer and the block tails it skipped that no free list took. */
    private final AllocatorWords words;
    private final Object reserveLock = new Object();
    private volatile int reservedBlocks;

    Blocks(int blockSize, long memoryLimit, BlockSource source, AllocatorWords words) {
        this.blockSize = blockSize;
        this.granuleShift = Integer.numberOfTrailingZeros(blockSize) - SliceHeader.GRANULE_SHIFT;
        this.granulesPerBlock = 1L << granuleShift;
        this.maxBlocks = (int) Math.min(memoryLimit / blockSize, (Reference.GRANULE_MASK + 1) >>> granuleShift);
        this.table = new MemorySegment[maxBlocks];
        this.source = source;
        this.words = words;
        this.groupBlocks = Math.clamp(Math.ceilDiv(source.returnedFrom(), (long) blockSize), 1, maxBlocks);
        MemorySegment region = source.region();
        for (int b = 0; region != null && b < maxBlocks; b++) {
            table[b] = region.asSlice((long) b * blockSize, blockSize);
        }
    }

    /** The block holding {@code granule}. */
    MemorySegment block(long granule) {
        return table[(int) (granule >>> granuleShift)];
    }

    /** The byte offset of {@code granule} inside its block. */
    long offsetInBlock(long granule) {
        return (granule & (granulesPerBlock - 1)) << SliceHeader.GRANULE_SHIFT;
    }

    /**
     * Hands out {@code n} fresh, contiguous granules inside one block, or returns -1 if the memory limit leaves no
     * room. Tails skipped at block ends go to {@code tails}. Throws {@link GroveOutOfMemoryException}, taking no
     * granule, if the operating system refuses a block.
     */
    long bump(long n, TailSink tails) {
        assert n > 0 && n <= granulesPerBlock;
        while (true) {
            long g = words.bump();
            long inBlock = g & (granulesPerBlock - 1);
            long start = inBlock + n <= granulesPerBlock ? g : g - inBlock + granulesPerBlock;
            if ((start >>> granuleShift) >= maxBlocks) {
                return -1;
            }
            ensureReserved((int) (start >>> granuleShift)); // invariant 2: before the CAS takes any granule
            if (words.casBump(g, start + n)) {
                if (start != g && inBlock != 0 && !tails.acceptTail(g, granulesPerBlock - inBlock)) {
                    words.addWasted(granulesPerBlock - inBlock);
                }
                return start;
            }
        }
    }

    /** Reserves blocks in order until block {@code b} is reserved. */
    private void ensureReserved(int b) {
        if (b < reservedBlocks) {
            return;
        }
        synchronized (reserveLock) {
            while (reservedBlocks <= b) {
                reserveNext();
            }
        }
    }

    /** Under the reservation lock: reserves block {@link #reservedBlocks}, or a group from it. */
    private void reserveNext() {
        int b = reservedBlocks;
        if (source.region() != null) {
            source.reserve(blockSize); // the block is in the table already: the source makes it usable
            reservedBlocks = b + 1;
            return;
        }
        boolean grouped = (long) reservedBlocks * blockSize >= source.returnedFrom();
        int count = grouped ? Math.min(groupBlocks, maxBlocks - b) : 1;
        if (count > 1) {
            try {
                publish(b, count, source.reserve((long) count * blockSize));
                return;
            } catch (OutOfMemoryError refused) {
                // the operating system may still have room for one block
            }
        }
        MemorySegment block;
        try {
            block = source.reserve(blockSize);
        } catch (OutOfMemoryError refused) {
            throw new GroveOutOfMemoryException("the operating system refused a block of " + blockSize
                    + " bytes (" + reservedBlocks + " blocks reserved): " + refused.getMessage());
        }
        publish(b, 1, block);
    }

    /** Under the reservation lock: blocks {@code b .. b + count - 1} are the consecutive slices of {@code region}. */
    @SuppressWarnings("NonAtomicVolatileUpdate") // only under the reservation lock; volatile for lock-free readers
    private void publish(int b, int count, MemorySegment region) {
        for (int i = 0; i < count; i++) {
            assert table[b + i] == null : "blocks are reserved in order";
            MemorySegment block = count == 1 ? region : region.asSlice((long) i * blockSize, blockSize);
            TABLE.setRelease(table, b + i, block);
        }
        reservedBlocks += count;
    }

    /**
     * Continues from a bump pointer of {@code bump} and {@code wasted} skipped granules (a recovery's): reserves every
     * block below the pointer, in order, and sets the words. Before any use.
     */
    void restore(long bump, long wasted) {
        reserveBelow(bump);
        words.setBump(bump, wasted);
    }

    /** Reserves, in order, every block below granule {@code bump}: a bump pointer another pool left. */
    void reserveBelow(long bump) {
        if (bump > 0) {
            ensureReserved((int) Math.min(maxBlocks - 1, (bump - 1) >>> granuleShift));
        }
    }

    long wastedGranules() {
        return words.wasted();
    }

    long reservedBytes() {
        return (long) reservedBlocks * blockSize;
    }

    /** Granules ever handed out by the bump pointer, skipped tails included. */
    long bumpedGranules() {
        return Math.min(words.bump(), (long) maxBlocks << granuleShift);
    }

    long wastedBytes() {
        return words.wasted() << SliceHeader.GRANULE_SHIFT;
    }

    void close() {
        source.close();
    }
}
