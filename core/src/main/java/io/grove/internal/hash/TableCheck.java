package io.grove.internal.hash;

import io.grove.internal.memory.Pool;
import io.grove.internal.view.SliceStamp;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Walks a hash table at rest (no operation running on it), writing nothing, and checks every invariant of its format
 * ({@code docs/memory-layout.md}, "Hash map"), collecting each violation as a sentence naming the segment, bucket
 * and reference where it is. For the file tool's {@code verify} and for tests; never on an operation's path.
 *
 * <p>Checked, per segment: the record is live, unlocked, stable (even version), not closed and not in a growth
 * move; its bucket array (and the old one while it grows) is a live slice of exactly {@code 8 << bits} bytes
 * ({@code 8 << (bits - 1)}); old buckets below the cursor hold {@code MOVED} and no others do, and an entry is in
 * the new array only if its old bucket moved (growth invariants G1-G2 of {@link SegmentGrowth}); every entry
 * reached is a live slice whose length is what its key and value lengths make, whose stamp is even, whose stored
 * hash is the hash of its key bytes, and which lies in the segment and bucket of that hash; chains end within the
 * segment's count (no cycle); the entries found and their bytes add up to the segment's count and byte total.
 */
public final class TableCheck {
    private final Pool pool;
    private final HashTable table;
    private final List<String> problems = new ArrayList<>();
    private long entries;
    private long bytes;
    private int growing;
    private long buckets;

    /**
     * What a walk found: the table's segments, the entries linked and their bytes, how many segments are growing,
     * the buckets of their (new) bucket arrays, and every problem (none if the table is sound).
     */
    public record Report(int segments, long entries, long bytes, int growing, long buckets, List<String> problems) {}

    private TableCheck(Pool pool, HashTable table) {
        this.pool = pool;
        this.table = table;
    }

    /** Walks the table rooted at {@code directory} on {@code pool}. */
    public static Report check(Pool pool, long directory) {
        HashTable table;
        try {
            table = new HashTable(pool, true, directory);
        } catch (RuntimeException e) {
            return new Report(0, 0, 0, 0, 0, List.of("directory: " + e.getMessage()));
        }
        TableCheck check = new TableCheck(pool, table);
        for (int s = 0; s < table.segmentCount(); s++) {
            try {
                check.segment(s);
            } catch (RuntimeException e) { // a reference outside the pool's memory, in a damaged table
                check.problem(s, "the walk stopped: " + e);
            }
        }
        return new Report(table.segmentCount(), check.entries, check.bytes, check.growing, check.buckets,
                check.problems);
    }

    private void problem(int s, String what) {
        problems.add("segment " + s + ": " + what);
    }

    private void segment(int s) {
        MemorySegment sb = table.block(s);
        long so = table.offset(s);
        if (SegmentLayout.isClosed(sb, so)) {
            problem(s, "marked closed");
            return;
        }
        if (SegmentLayout.isLocked(sb, so) || SegmentLayout.owner(sb, so) != 0) {
            problem(s, "locked (owner " + SegmentLayout.owner(sb, so) + ")");
        }
        if ((SegmentLayout.versionAcquire(sb, so) & 1) != 0) {
            problem(s, "in the middle of a mutation (odd version " + SegmentLayout.versionAcquire(sb, so) + ")");
        }
        if (SegmentLayout.moving(sb, so) != 0) {
            problem(s, "in the middle of a growth move (entry " + SegmentLayout.moving(sb, so) + ")");
        }
        int bits = SegmentLayout.bucketBits(sb, so);
        if (bits < SegmentGrowth.MIN_BUCKET_BITS || bits > 40) {
            problem(s, "a bucket array of 2^" + bits + " buckets");
            return;
        }
        this.buckets += 1L << bits;
        long count = SegmentLayout.count(sb, so);
        long[] found = new long[2]; // entries, bytes
        long buckets = SegmentLayout.buckets(sb, so);
        if (!array(s, "bucket array", buckets, bits)) {
            return;
        }
        long old = SegmentLayout.oldBuckets(sb, so);
        if (old != 0) {
            growing++;
        }
        if (old != 0 && array(s, "old bucket array", old, bits - 1)) {
            long cursor = SegmentLayout.cursor(sb, so);
            long oldCount = 1L << (bits - 1);
            if (cursor < 0 || cursor > oldCount) {
                problem(s, "growth cursor " + cursor + " outside the old array's " + oldCount + " buckets");
            }
            for (long b = 0; b < oldCount; b++) {
                long first = bucket(old, b);
                if (first == SegmentLayout.MOVED) {
                    continue;
                }
                if (b < cursor) {
                    problem(s, "old bucket " + b + " below the growth cursor " + cursor + " was not moved");
                }
                chain(s, "old bucket " + b, first, b, bits - 1, 0, count, found);
            }
        }
        for (long b = 0; b < 1L << bits; b++) {
            long first = bucket(buckets, b);
            if (first == SegmentLayout.MOVED) {
                problem(s, "bucket " + b + " of the current array holds the MOVED marker");
                continue;
            }
            chain(s, "bucket " + b, first, b, bits, old, count, found);
        }
        if (found[0] != count) {
            problem(s, "count " + count + ", but " + found[0] + " entries are linked");
        }
        long total = SegmentLayout.bytes(sb, so);
        if (found[1] != total) {
            problem(s, "byte total " + total + ", but the linked entries take " + found[1]);
        }
        entries += found[0];
        bytes += found[1];
    }

    private boolean array(int s, String name, long ref, int bits) {
        if (!pool.isLive(ref)) {
            problem(s, name + ": reference " + ref + " is not a live slice");
            return false;
        }
        if (pool.length(ref) != 8L << bits) {
            problem(s, name + ": " + pool.length(ref) + " bytes for 2^" + bits + " buckets");
            return false;
        }
        return true;
    }

    private long bucket(long array, long b) {
        return SegmentLayout.bucket(pool.segment(array), pool.payloadOffset(array), b);
    }

    /** Walks one chain of an array of {@code 2^bits} buckets; {@code old}: the old array if this is the new one. */
    private void chain(int s, String where, long e, long b, int bits, long old, long count, long[] found) {
        for (long steps = 0; e != 0; steps++) {
            if (steps > count) {
                problem(s, where + ": the chain is longer than the segment's count " + count + " (a cycle?)");
                return;
            }
            if (!pool.isLive(e)) {
                problem(s, where + ": entry reference " + e + " is not a live slice");
                return;
            }
            MemorySegment eb = pool.segment(e);
            long eo = pool.payloadOffset(e);
            int keyLength = EntryLayout.keyLength(eb, eo);
            int valueLength = EntryLayout.valueLength(eb, eo);
            int length = pool.length(e);
            if (keyLength < 0 || valueLength < 0 || EntryLayout.sizeFor(keyLength, valueLength) != length) {
                problem(s, where + ": entry " + e + " of " + length + " bytes says key " + keyLength + " and value "
                        + valueLength + " bytes");
                return;
            }
            long stamp = SliceStamp.acquire(eb, EntryLayout.stampAt(eo));
            if (SliceStamp.isWriting(stamp)) {
                problem(s, where + ": entry " + e + " has an odd stamp " + stamp + " (an update did not finish)");
            }
            long hash = KeyHash.of(eb, eo + EntryLayout.KEY, keyLength);
            if ((int) hash != EntryLayout.hash(eb, eo)) {
                problem(s, where + ": entry " + e + " stores hash " + EntryLayout.hash(eb, eo)
                        + " but its key hashes to " + (int) hash);
            } else if (table.segmentOf(hash) != s || (hash & ((1L << bits) - 1)) != b) {
                problem(s, where + ": entry " + e + " belongs to segment " + table.segmentOf(hash) + ", bucket "
                        + (hash & ((1L << bits) - 1)));
            } else if (old != 0 && bucket(old, hash & ((1L << (bits - 1)) - 1)) != SegmentLayout.MOVED) {
                problem(s, where + ": entry " + e + " is in the new array but its old bucket "
                        + (hash & ((1L << (bits - 1)) - 1)) + " was not moved (growth invariant G1): lookups miss it");
            }
            found[0]++;
            found[1] += length;
            e = EntryLayout.next(eb, eo);
        }
    }
}
