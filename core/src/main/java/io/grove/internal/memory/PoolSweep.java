package io.grove.internal.memory;

import java.lang.foreign.MemorySegment;

/**
 * Rebuilds the free memory of a pool over a file whose process was killed, from the slices its map can still reach:
 * the allocator state on the heap (free lists, release stripes, bump pointer, era) died with the process, and the
 * record of its last clean close is stale.
 *
 * <p>Implementation notes.
 *
 * <p><b>Input.</b> The header granules of the live slices, which the map found by walking its structure from the
 * pool's root (every slice it can reach), sorted; and the end of the reserved blocks
 * ({@link PoolStateLayout}: recorded before each block's first use, so nothing past it was ever written).
 *
 * <p><b>Sweep.</b> Every granule below the end that no live slice holds is free: slices allocated and never linked,
 * entries unlinked and never deleted, deleted slices waiting in a release stripe, slices on the free lists, block
 * tails. Each gap between live slices (cut at block boundaries: no slice crosses one) is walked from its start
 * through the slice headers found there, which tile it as the dead process left it, so the free slices keep the
 * sizes the map used and serve its allocations from their exact size class again; where a header is not sound
 * (never written: the process died between taking memory and writing its header; or merged away, magic 0), the
 * rest of the gap becomes one free slice. A slice that would leave one granule before the end of the gap takes it
 * (a lone granule cannot be a slice, and the blocks must stay tiled by headers: {@link PoolCheck}); a gap of one
 * granule, which only a block's end can leave, is counted as wasted.
 *
 * <p><b>Versions.</b> Each free slice gets a fresh deleted header, so no reference to its place is valid. The era
 * is set past the versions of the live slices by the caller ({@link Pool#recover}); no other reference survives
 * the kill.
 *
 * <p><b>Bump pointer.</b> It continues where the dead process's bumping ended: in the last reserved block, at the
 * first granule past the last live slice whose header is not sound (nothing was bumped beyond it but, at most,
 * slices of other threads that died unreachable), or at the end of the reserved blocks if the walk reaches it. The
 * granules from there to the block's end are zeroed, as a fresh block is (an allocation from the bump pointer does
 * not clear its payload). So a recovery leaves the last block's tail to the bump pointer, which serves every size
 * from it, rather than to a free list of its one size: otherwise every recovery would start a new block. Runs
 * once, before the pool is used.
 */
final class PoolSweep {
    /** What a sweep found: live slices kept; slices allocated but unreachable, freed; free granules in all. */
    record Result(long liveSlices, long sweptSlices, long sweptGranules, long freeGranules, long wastedGranules,
            long bump) {}

    private final Blocks blocks;
    private final FreeLists freeLists;
    private long sweptSlices;
    private long sweptGranules;
    private long freeGranules;
    private long wastedGranules;
    /** Where the bump pointer continues. */
    private long bump;

    private PoolSweep(Blocks blocks, FreeLists freeLists) {
        this.blocks = blocks;
        this.freeLists = freeLists;
    }

    /**
     * Frees every granule below {@code end} outside the slices at {@code live} (header granules, sorted ascending).
     *
     * @throws IllegalStateException if a live slice is not sound: overlaps the previous one, crosses a block
     *     boundary or lies beyond {@code end}
     */
    static Result sweep(Blocks blocks, FreeLists freeLists, long[] live, long end) {
        PoolSweep sweep = new PoolSweep(blocks, freeLists);
        long g = 0;
        for (long start : live) {
            long capacity = SliceHeader.capacityGranules(blocks.block(start), blocks.offsetInBlock(start));
            if (start < g || capacity < 2 || start + capacity > end
                    || (start >>> blocks.granuleShift) != ((start + capacity - 1) >>> blocks.granuleShift)) {
                throw new IllegalStateException("the live slice at granule " + start + " (" + capacity
                        + " granules) overlaps another one, a block boundary or the end of the reserved blocks ("
                        + end + ")");
            }
            sweep.freeGap(g, start);
            g = start + capacity;
        }
        sweep.bump = end;
        sweep.freeGap(g, end);
        return new Result(live.length, sweep.sweptSlices, sweep.sweptGranules, sweep.freeGranules,
                sweep.wastedGranules, sweep.bump);
    }

    private void freeGap(long from, long to) {
        while (from < to) {
            long blockEnd = ((from >>> blocks.granuleShift) + 1) << blocks.granuleShift;
            long pieceEnd = Math.min(to, blockEnd);
            freePiece(from, pieceEnd);
            from = pieceEnd;
        }
    }

    /**
     * Frees {@code [from, to)}, inside one block, along the headers found there; in the last reserved block, stops
     * at the first header that is not sound and leaves the rest, zeroed, to the bump pointer.
     */
    private void freePiece(long from, long to) {
        long g = from;
        while (to - g >= 2) {
            MemorySegment block = blocks.block(g);
            long header = blocks.offsetInBlock(g);
            long capacity = SliceHeader.capacityGranules(block, header);
            boolean sound = SliceHeader.magic(block, header) == SliceHeader.MAGIC && capacity >= 2
                    && capacity <= to - g;
            if (!sound && to == bump) { // the last block's tail: never bumped, or bumped by a dead thread only
                block.asSlice(header, (to - g) << SliceHeader.GRANULE_SHIFT).fill((byte) 0);
                bump = g;
                return;
            }
            long n = sound && to - (g + capacity) != 1 ? capacity : sound ? capacity + 1 : to - g; // no lone granule
            if (sound && !SliceHeader.isDeleted(SliceHeader.statePlain(block, header))) {
                sweptSlices++; // allocated by the dead process, reachable from nothing
                sweptGranules += n;
            }
            SliceStates.initializeFree(blocks, g, n);
            freeLists.push(g, n);
            freeGranules += n;
            g += n;
        }
        wastedGranules += to - g;
    }
}
