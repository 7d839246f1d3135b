package io.grove.internal.hash;

import io.grove.internal.memory.Pool;
import io.grove.internal.view.SliceStamp;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Repairs a table whose process was killed while it used it, before the table is used again, and lists every slice
 * the table reaches so that the pool can free all others ({@link Pool#recover}).
 *
 * <p>Implementation notes. What a killed process leaves in the table, and what this does about it (every store it
 * executed is in the file: the page cache outlives the process; the orders the table's writers keep are in
 * {@link HashTable}, {@link SegmentGrowth} and the layouts):
 * <ul>
 *   <li>a segment locked, its owner set: the lock and owner are cleared (no process holds the file);
 *   <li>a mutation begun (version odd): the version is made even. The chains are sound at every instruction of a
 *       mutation: an entry is written before the release store that links it, a replacement's {@code next} before
 *       the store that puts it in the chain, and an unlink is one store;
 *   <li>growth started half-way: an old array equal to the current one (the kill fell between recording the old
 *       array and installing the new one) means no growth; the bucket count follows the current array's length;
 *   <li>a growth move cut off ({@link SegmentLayout} {@code moving} names the entry in flight): the entry is
 *       linked into its new bucket unless it is still at the head of its old bucket or already in its new chain,
 *       then the rest of its old bucket is moved and the bucket marked moved: lookups search an old bucket that is
 *       not marked moved and nothing else, so they would miss the entries moved before the kill;
 *   <li>counts and byte totals off by the operation in flight: recounted from the chains;
 *   <li>an in-place update of the zero-copy API cut off (entry stamp odd): its value is put back from the
 *       segment's journal ({@link BeforeImage}), which a map in a file records before the stamp turns odd, and
 *       the stamp made even; an odd stamp with no image for its entry (a table not built in a file, or a damaged
 *       image) is made even and the entry counted as torn, its value possibly half-written;
 *   <li>the bound's budget of a bounded map (spare budget in segments, budget in transit in a thread): every
 *       segment's spare goes back to the directory's free budget, which becomes the bound minus what the entries
 *       use.
 * </ul>
 * A reference in the structure that names no live slice would mean a damaged file, not a kill: the chain is cut
 * there and the cut counted (never expected; {@code TableCheck} reports such files).
 */
final class TableRecovery {
    /** What a repair did, and the reference of every slice the table reaches. */
    record Result(long[] live, int segments, int unlocked, int mutationsEnded, int growthsFixed, int movesCompleted,
            long entries, long restoredValues, long tornValues, long cuts) {}

    private final Pool pool;
    private final long maxSteps;
    private long[] live = new long[1024];
    private int liveCount;
    private int unlocked;
    private int mutationsEnded;
    private int growthsFixed;
    private int movesCompleted;
    private long entries;
    private long restoredValues;
    private long tornValues;
    private long cuts;
    /** While a segment is walked: its journal's before-image and the entry it belongs to, else 0. */
    private long image;
    private long imageEntry;

    private TableRecovery(Pool pool) {
        this.pool = pool;
        this.maxSteps = pool.memoryLimit() / 32; // more entries than the memory holds: a cycle
    }

    /**
     * Repairs the table rooted at {@code directory} in {@code pool}, which no thread uses; {@code maxEntries} and
     * {@code maxBytes} are its bounds ({@link Long#MAX_VALUE} when not bounded).
     *
     * @throws IllegalStateException if the directory or a segment record is not a live slice
     */
    static Result repair(Pool pool, long directory, long maxEntries, long maxBytes) {
        TableRecovery recovery = new TableRecovery(pool);
        recovery.keep(directory);
        MemorySegment db = pool.segment(directory);
        long dof = pool.payloadOffset(directory);
        int segments = DirectoryLayout.segmentsIn(pool.length(directory));
        long usedEntries = 0;
        long usedBytes = 0;
        for (int s = 0; s < segments; s++) {
            long segment = DirectoryLayout.segment(db, dof, s);
            if (!pool.isLive(segment)) {
                throw new IllegalStateException("segment " + s + " is not a live slice: reference " + segment);
            }
            recovery.keep(segment);
            MemorySegment sb = pool.segment(segment);
            long so = pool.payloadOffset(segment);
            recovery.repairSegment(sb, so);
            usedEntries += SegmentLayout.count(sb, so);
            usedBytes += SegmentLayout.bytes(sb, so);
            SegmentLayout.setSpare(sb, so, Budget.ENTRIES, 0);
            SegmentLayout.setSpare(sb, so, Budget.BYTES, 0);
        }
        DirectoryLayout.initialize(db, dof, remaining(maxEntries, usedEntries), remaining(maxBytes, usedBytes));
        return new Result(Arrays.copyOf(recovery.live, recovery.liveCount), segments, recovery.unlocked,
                recovery.mutationsEnded, recovery.growthsFixed, recovery.movesCompleted, recovery.entries,
                recovery.restoredValues, recovery.tornValues, recovery.cuts);
    }

    private static long remaining(long bound, long used) {
        return bound == Long.MAX_VALUE ? Budget.initialFree(bound) : Math.max(0, bound - used);
    }

    private void repairSegment(MemorySegment sb, long so) {
        if (SegmentLayout.isLocked(sb, so) || SegmentLayout.owner(sb, so) != 0) {
            SegmentLayout.forceUnlock(sb, so);
            unlocked++;
        }
        long version = SegmentLayout.version(sb, so);
        if ((version & 1) != 0) {
            SegmentLayout.setVersion(sb, so, version + 1);
            mutationsEnded++;
        }
        long buckets = SegmentLayout.buckets(sb, so);
        checkLive(buckets, "bucket array");
        keep(buckets);
        int bits = Long.numberOfTrailingZeros(pool.length(buckets) / Long.BYTES);
        long old = SegmentLayout.oldBuckets(sb, so);
        if (bits != SegmentLayout.bucketBits(sb, so) || old == buckets) {
            SegmentLayout.setBucketBits(sb, so, bits);
            if (old == buckets) {
                SegmentLayout.setOldBuckets(sb, so, 0);
                SegmentLayout.setCursor(sb, so, 0);
                old = 0;
            }
            growthsFixed++;
        }
        if (old != 0) {
            checkLive(old, "old bucket array");
            keep(old);
        }
        long moving = SegmentLayout.moving(sb, so);
        if (moving != 0) {
            completeMove(moving, buckets, bits, old);
            if (old != 0) { // the rest of the entry's old bucket, which lookups would search alone
                long hash = EntryLayout.hash(pool.segment(moving), pool.payloadOffset(moving)) & 0xFFFF_FFFFL;
                new SegmentGrowth(pool).finishBucket(sb, so, hash & ((1L << (bits - 1)) - 1));
            }
            SegmentLayout.setMoving(sb, so, 0);
        }
        long image = SegmentLayout.journal(sb, so);
        if (image != 0) {
            imageEntry = pool.isLive(image) ? BeforeImage.entry(pool, image) : 0;
            this.image = image;
        }
        long[] totals = new long[2]; // entries, bytes
        walkArray(buckets, bits, totals);
        if (old != 0) {
            walkArray(old, bits - 1, totals);
        }
        SegmentLayout.setJournal(sb, so, 0);
        this.image = 0;
        imageEntry = 0;
        SegmentLayout.setCount(sb, so, totals[0]);
        SegmentLayout.setBytes(sb, so, totals[1]);
    }

    /** Links entry {@code e}, recorded as moving, into the new array unless some chain holds it already. */
    private void completeMove(long e, long buckets, int bits, long old) {
        checkLive(e, "moving entry");
        long hash = EntryLayout.hash(pool.segment(e), pool.payloadOffset(e)) & 0xFFFF_FFFFL;
        if (old != 0 && SegmentLayout.bucket(pool.segment(old), pool.payloadOffset(old),
                hash & ((1L << (bits - 1)) - 1)) == e) {
            return; // not unhooked from its old chain yet
        }
        MemorySegment bb = pool.segment(buckets);
        long bo = pool.payloadOffset(buckets);
        long target = hash & ((1L << bits) - 1);
        long steps = 0;
        for (long x = SegmentLayout.bucket(bb, bo, target); x != 0 && steps < maxSteps; steps++) {
            if (x == e) {
                return; // linked already
            }
            x = EntryLayout.next(pool.segment(x), pool.payloadOffset(x));
        }
        EntryLayout.setNext(pool.segment(e), pool.payloadOffset(e), SegmentLayout.bucket(bb, bo, target));
        SegmentLayout.setBucket(bb, bo, target, e);
        movesCompleted++;
    }

    /** Walks every chain of one bucket array; adds entries and bytes to {@code totals}. */
    private void walkArray(long array, int bits, long[] totals) {
        MemorySegment ab = pool.segment(array);
        long ao = pool.payloadOffset(array);
        for (long b = 0; b < 1L << bits; b++) {
            long e = SegmentLayout.bucket(ab, ao, b);
            if (e == SegmentLayout.MOVED) {
                continue;
            }
            long previous = 0;
            for (long steps = 0; e != 0; steps++) {
                if (!pool.isLive(e) || steps > maxSteps) {
                    cut(ab, ao, b, previous);
                    break;
                }
                keep(e);
                MemorySegment eb = pool.segment(e);
                long eo = pool.payloadOffset(e);
                long stamp = SliceStamp.acquire(eb, EntryLayout.stampAt(eo));
                if (SliceStamp.isWriting(stamp)) {
                    if (e == imageEntry && BeforeImage.restore(pool, image, e)) {
                        restoredValues++;
                    } else {
                        tornValues++;
                    }
                    SliceStamp.endWrite(eb, EntryLayout.stampAt(eo), stamp);
                }
                totals[0]++;
                totals[1] += pool.length(e);
                entries++;
                previous = e;
                e = EntryLayout.next(eb, eo);
            }
        }
    }

    /** Ends the chain of bucket {@code b} after {@code previous} (at its head if 0): what follows is not sound. */
    private void cut(MemorySegment ab, long ao, long b, long previous) {
        if (previous == 0) {
            SegmentLayout.setBucket(ab, ao, b, 0);
        } else {
            EntryLayout.setNext(pool.segment(previous), pool.payloadOffset(previous), 0);
        }
        cuts++;
    }

    private void checkLive(long ref, String what) {
        if (!pool.isLive(ref)) {
            throw new IllegalStateException("the " + what + " is not a live slice: reference " + ref);
        }
    }

    private void keep(long ref) {
        if (liveCount == live.length) {
            live = Arrays.copyOf(live, liveCount * 2);
        }
        live[liveCount++] = ref;
    }
}
