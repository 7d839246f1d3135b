package io.grove.internal.hash;

import io.grove.GroveOutOfMemoryException;
import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;

/**
 * Incremental growth of a segment's bucket array (MapHash grows a whole table at once; here no operation waits
 * for more than a few buckets to move, however large the map).
 *
 * <p>Implementation notes.
 *
 * <p>When a segment's count passes 3/4 of its buckets, the writer that inserted installs a bucket array twice as
 * large and keeps the old one ({@link #startIfFull}); no entry moves yet. From then on every locked operation on
 * the segment first moves the old bucket its key hashes to (if not moved yet), then {@value #MOVES_PER_OPERATION}
 * more old buckets from the segment's cursor, each move inside a mutation ({@link #continueGrowth}); a moved old
 * bucket holds {@link SegmentLayout#MOVED}. When the cursor has passed every old bucket, the old array is
 * deleted. A segment stops growing at the largest slice the pool serves ({@code maxSliceSize / 8} buckets), or
 * when memory for a larger array is lacking; its chains then get longer, and nothing fails.
 *
 * <p>Invariants: (G1) while old buckets exist, an entry is in the old bucket of its hash unless that bucket holds
 * {@code MOVED}, and then in the new bucket of its hash; (G2) old buckets below the cursor all hold {@code MOVED};
 * (G3) the old array has half as many buckets as the new one. Entries keep their references when they move, so
 * lock-free readers that look in the old bucket first and follow {@code MOVED} to the new array find every entry,
 * and a validated read of a position of the table sees its entries in the same order whether moved or not.
 *
 * <p>Everything here runs under the segment's lock; the caller holds it.
 */
final class SegmentGrowth {
    /** Old buckets each locked operation moves during growth, besides its own. */
    static final int MOVES_PER_OPERATION = 8;
    static final int MIN_BUCKET_BITS = 4;

    private final Pool pool;
    private final int maxBucketBits;

    SegmentGrowth(Pool pool) {
        this.pool = pool;
        this.maxBucketBits = 31 - Integer.numberOfLeadingZeros(pool.maxSliceSize() / Long.BYTES);
    }

    /** log2 of the most buckets one array may have: the pool's largest slice holds the array. */
    int maxBucketBits() {
        return maxBucketBits;
    }

    /** A new bucket array of {@code 2^bits} empty buckets (a new slice's payload reads zero). */
    long newBucketArray(int bits) {
        return pool.allocate((1 << bits) * Long.BYTES);
    }

    /**
     * After an insertion that brought segment {@code (sb, so)} to {@code count} entries: installs a bucket array
     * twice as large if the segment is over 3/4 full, may grow and is not growing already, unless memory for it is
     * lacking.
     */
    void startIfFull(MemorySegment sb, long so, long count) {
        int bits = SegmentLayout.bucketBits(sb, so);
        if (count <= (3L << bits) / 4 || bits >= maxBucketBits || SegmentLayout.oldBuckets(sb, so) != 0) {
            return;
        }
        long fresh;
        try {
            fresh = newBucketArray(bits + 1);
        } catch (GroveOutOfMemoryException lacking) {
            return; // chains get longer; the map stays correct
        }
        SegmentLayout.beginMutation(sb, so);
        SegmentLayout.setOldBuckets(sb, so, SegmentLayout.buckets(sb, so));
        SegmentLayout.setCursor(sb, so, 0);
        SegmentLayout.setBuckets(sb, so, fresh);
        SegmentLayout.setBucketBits(sb, so, bits + 1);
        SegmentLayout.endMutation(sb, so);
    }

    /**
     * If the segment grows: moves the old bucket of {@code hash} and the next {@link #MOVES_PER_OPERATION} old
     * buckets from the cursor, in one mutation; deletes the old array once all moved.
     */
    void continueGrowth(MemorySegment sb, long so, long hash) {
        if (SegmentLayout.oldBuckets(sb, so) != 0) {
            moveBuckets(sb, so, hash, MOVES_PER_OPERATION);
        }
    }

    /** Moves every remaining old bucket at once (before a sweep over the whole segment, a clear or a close). */
    void finish(MemorySegment sb, long so) {
        if (SegmentLayout.oldBuckets(sb, so) != 0) {
            moveBuckets(sb, so, -1, Long.MAX_VALUE);
        }
    }

    /**
     * Moves what is left of old bucket {@code b} and marks it moved: for a reopen's repair of a move that a killed
     * process left half-done (some of the bucket's entries in the new array, the rest in the old bucket, which
     * lookups would search alone). The segment must be growing.
     */
    void finishBucket(MemorySegment sb, long so, long b) {
        long old = SegmentLayout.oldBuckets(sb, so);
        long buckets = SegmentLayout.buckets(sb, so);
        moveBucket(sb, so, pool.segment(old), pool.payloadOffset(old), b, pool.segment(buckets),
                pool.payloadOffset(buckets), SegmentLayout.bucketBits(sb, so));
    }

    /** Moves the old bucket of {@code hash} (none if -1) and up to {@code more} old buckets from the cursor. */
    private void moveBuckets(MemorySegment sb, long so, long hash, long more) {
        long old = SegmentLayout.oldBuckets(sb, so);
        MemorySegment ob = pool.segment(old);
        long oo = pool.payloadOffset(old);
        long buckets = SegmentLayout.buckets(sb, so);
        MemorySegment nb = pool.segment(buckets);
        long no = pool.payloadOffset(buckets);
        int bits = SegmentLayout.bucketBits(sb, so);
        long oldCount = 1L << (bits - 1);
        long cursor = SegmentLayout.cursor(sb, so);
        SegmentLayout.beginMutation(sb, so);
        if (hash != -1) {
            moveBucket(sb, so, ob, oo, hash & (oldCount - 1), nb, no, bits);
        }
        for (long moved = 0; moved < more && cursor < oldCount; moved++, cursor++) {
            moveBucket(sb, so, ob, oo, cursor, nb, no, bits);
        }
        SegmentLayout.setCursor(sb, so, cursor);
        boolean done = cursor == oldCount;
        if (done) {
            SegmentLayout.setOldBuckets(sb, so, 0);
        }
        SegmentLayout.endMutation(sb, so);
        if (done) {
            pool.delete(old);
        }
    }

    /**
     * Inside a mutation: relinks old bucket {@code b}'s entries into the new array and marks it moved. Each entry is
     * first recorded as moving in the segment record, then unhooked from the old chain, then linked into the new
     * one, each a release store: so at every instruction each entry is reachable from a bucket or from the record,
     * and a process killed here loses nothing (a reopen completes the move, {@code TableRecovery}).
     */
    private void moveBucket(MemorySegment sb, long so, MemorySegment ob, long oo, long b, MemorySegment nb, long no,
            int bits) {
        long e = SegmentLayout.bucket(ob, oo, b);
        if (e == SegmentLayout.MOVED) {
            return;
        }
        long mask = (1L << bits) - 1;
        while (e != 0) {
            MemorySegment eb = pool.segment(e);
            long eo = pool.payloadOffset(e);
            long next = EntryLayout.next(eb, eo);
            long target = EntryLayout.hash(eb, eo) & mask;
            SegmentLayout.setMoving(sb, so, e);
            SegmentLayout.setBucketRelease(ob, oo, b, next);
            EntryLayout.setNextRelease(eb, eo, SegmentLayout.bucket(nb, no, target));
            SegmentLayout.setBucketRelease(nb, no, target, e);
            e = next;
        }
        SegmentLayout.setBucketRelease(ob, oo, b, SegmentLayout.MOVED);
        SegmentLayout.setMoving(sb, so, 0);
    }
}
