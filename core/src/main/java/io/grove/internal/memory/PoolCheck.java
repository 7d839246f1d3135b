package io.grove.internal.memory;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Walks a Nova pool at rest (no operation running, every release stripe drained: a pool over a file closed
 * cleanly, opened {@link Pool#forReading}), writing nothing, and checks its allocator state against its blocks,
 * collecting each violation as a sentence naming the granule where it is. For the file tool's {@code verify} and
 * for tests.
 *
 * <p>Checked: every free list is a chain of slices inside the bumped granules, each with a sound header (magic,
 * capacity of at least 2 granules, inside one block), deleted, of the list's size class, never on a list twice,
 * without a cycle; their capacities add up to the free granules recorded. The blocks below the bump pointer are
 * tiled by slice headers, each block from its start: a live slice, or a deleted one that a free list holds (a
 * deleted slice on no list would be memory lost for good); the part of a block that holds no header (magic 0) is
 * a tail the bump pointer skipped, and those tails add up to the wasted granules recorded; the live slices found
 * are as many as recorded.
 */
public final class PoolCheck {
    private final Blocks blocks;
    private final FreeLists freeLists;
    private final List<String> problems = new ArrayList<>();

    private PoolCheck(Blocks blocks, FreeLists freeLists) {
        this.blocks = blocks;
        this.freeLists = freeLists;
    }

    /** The problems of {@code pool}'s allocator state, none if it is sound. */
    public static List<String> check(Pool pool) {
        if (!(pool.allocator() instanceof NovaAllocator nova)) {
            return List.of();
        }
        PoolCheck check = new PoolCheck(pool.blocks(), nova.freeLists());
        long[] free = check.freeLists(nova.freeLists().freeGranules());
        check.tiling(free, pool.blocks().bumpedGranules(), pool.blocks().wastedGranules(), nova.liveSlices());
        return check.problems;
    }

    /** Walks every free list; returns the header granules found, sorted. */
    private long[] freeLists(long recordedFree) {
        long bump = blocks.bumpedGranules();
        LongList found = new LongList();
        long[] total = {0};
        for (int c = 0; c < freeLists.classCount(); c++) {
            int sizeClass = c;
            long[] steps = {0};
            freeLists.walk(c, g -> {
                if (++steps[0] > bump / 2 + 1) {
                    problems.add("free list of class " + sizeClass + ": longer than the pool holds slices (a cycle)");
                    return false;
                }
                if (g < 0 || g >= bump) {
                    problems.add("free list of class " + sizeClass + ": granule " + g + " beyond the bump pointer "
                            + bump);
                    return false;
                }
                MemorySegment block = blocks.block(g);
                long header = blocks.offsetInBlock(g);
                long capacity = SliceHeader.capacityGranules(block, header);
                if (SliceHeader.magic(block, header) != SliceHeader.MAGIC || capacity < 2
                        || !inOneBlock(g, capacity)) {
                    problems.add("free list of class " + sizeClass + ": granule " + g + " has no sound header");
                    return false;
                }
                if (!SliceHeader.isDeleted(SliceHeader.statePlain(block, header))) {
                    problems.add("free list of class " + sizeClass + ": the slice at granule " + g + " is live");
                }
                if (FreeLists.classOf(capacity) != sizeClass) {
                    problems.add("free list of class " + sizeClass + ": the slice at granule " + g + " has "
                            + capacity + " granules, of class " + FreeLists.classOf(capacity));
                }
                found.add(g);
                total[0] += capacity;
                return true;
            });
        }
        found.sort();
        long[] sorted = new long[found.size()];
        for (int i = 0; i < sorted.length; i++) {
            sorted[i] = found.get(i);
        }
        for (int i = 1; i < sorted.length; i++) {
            if (sorted[i] == sorted[i - 1]) {
                problems.add("free lists: the slice at granule " + sorted[i] + " is on them twice");
            }
        }
        if (total[0] != recordedFree) {
            problems.add("free lists: they hold " + total[0] + " granules, the pool records " + recordedFree);
        }
        return sorted;
    }

    private boolean inOneBlock(long g, long capacity) {
        return (g >>> blocks.granuleShift) == ((g + capacity - 1) >>> blocks.granuleShift);
    }

    /** Walks the headers of every block below {@code bump}. */
    private void tiling(long[] free, long bump, long recordedWasted, long recordedLive) {
        long wasted = 0;
        long live = 0;
        long g = 0;
        while (g < bump) {
            long blockEnd = Math.min(bump, ((g >>> blocks.granuleShift) + 1) << blocks.granuleShift);
            MemorySegment block = blocks.block(g);
            long header = blocks.offsetInBlock(g);
            if (SliceHeader.magic(block, header) != SliceHeader.MAGIC) {
                wasted += blockEnd - g; // a tail the bump pointer skipped
                g = blockEnd;
                continue;
            }
            long capacity = SliceHeader.capacityGranules(block, header);
            if (capacity < 2 || g + capacity > blockEnd) {
                problems.add("blocks: the header at granule " + g + " says " + capacity
                        + " granules, which do not fit its block");
                g = blockEnd;
                continue;
            }
            boolean onFreeList = Arrays.binarySearch(free, g) >= 0;
            if (SliceHeader.isDeleted(SliceHeader.statePlain(block, header))) {
                if (!onFreeList) {
                    problems.add("blocks: the deleted slice at granule " + g + " (" + capacity
                            + " granules) is on no free list: lost");
                }
            } else {
                live++;
                if (onFreeList) {
                    problems.add("blocks: the live slice at granule " + g + " is on a free list");
                }
            }
            g += capacity;
        }
        if (wasted != recordedWasted) {
            problems.add("blocks: " + wasted + " granules of skipped block tails, the pool records " + recordedWasted);
        }
        if (live != recordedLive) {
            problems.add("blocks: " + live + " live slices, the pool records " + recordedLive);
        }
    }
}
