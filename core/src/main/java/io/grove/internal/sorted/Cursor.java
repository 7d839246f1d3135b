package io.grove.internal.sorted;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A position in an ordered scan over a key range, ascending or descending, that moves from entry to entry with
 * values and from chunk to chunk, allocating nothing per entry.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Ascending, inside a chunk the cursor follows the list. Descending (Oak §4.2), it cannot walk the singly
 * linked list backwards: it binary-searches the sorted prefix for the last prefix entry {@code p_j} below the
 * bound, pushes {@code p_j} and the entries linked after it up to {@code p_{j+1}} on a stack, pops them, and
 * goes on with {@code p_{j-1}}; before {@code p_0}, the entries from the list's head.
 *
 * <p>When a chunk ends, the cursor locates the chunk holding the chunk's upper bound (ascending) or the keys just
 * below its minimum (descending) in the current index and goes on there from that bound, so a chunk replaced
 * meanwhile is never read past its range. Each emitted key is copied, then kept as {@link #lastKey} only after a check that the
 * chunk was not replaced while its keys were read (Chunk I4); a chunk found replaced is left for the current
 * chunk holding the last key, from just past it. Every key present throughout the scan is emitted once, in
 * order: the chunk that holds it when the cursor gets there shows it, whether active or frozen (a frozen chunk
 * shows its range as it was when it froze, and a cursor only reaches a chunk the index held, which happened
 * before the new chunks could change).
 */
final class Cursor {
    private final Keys keys;
    private final ChunkIndex index;
    private final Values<?> values;
    private final boolean descending;
    /** The range; a {@code null} bound is open. */
    private final Key lo;
    private final boolean loInclusive;
    private final Key hi;
    private final boolean hiInclusive;

    private Chunk chunk;
    private int entry = Chunk.NONE;
    private boolean started;
    private boolean exhausted;
    private long valueRef;
    private byte[] lastKey = new byte[32];
    private MemorySegment lastKeySegment = MemorySegment.ofArray(lastKey);
    private int lastKeyLength = -1;
    private byte[] candidateKey = new byte[32];
    private MemorySegment candidateKeySegment = MemorySegment.ofArray(candidateKey);
    private int candidateKeyLength;

    // descending state: the prefix segment being walked and the stack of its entries
    private int segment;
    private int[] stack = new int[16];
    private int depth;
    private Key segmentBound;
    private boolean segmentInclusive;

    Cursor(Keys keys, ChunkIndex index, Values<?> values, boolean descending, Key lo, boolean loInclusive, Key hi,
            boolean hiInclusive) {
        this.keys = keys;
        this.index = index;
        this.values = values;
        this.descending = descending;
        this.lo = lo;
        this.loInclusive = loInclusive;
        this.hi = hi;
        this.hiInclusive = hiInclusive;
    }

    /** Moves to the next entry with a value inside the range; {@code false} at the end. */
    boolean advance() {
        if (exhausted) {
            return false;
        }
        int next;
        if (!started) {
            started = true;
            next = descending ? startDescending(hi, hiInclusive) : startAscending(lo, loInclusive);
        } else {
            next = descending ? pop() : chunk.next(entry);
        }
        while (true) {
            if (next == Chunk.NONE) {
                if (chunk.isReplaced()) { // the end may have been decided on reused key bytes
                    next = relocate();
                    continue;
                }
                if (descending) {
                    Key min = chunk.minKey;
                    if (min == null || (lo != null && keys.compareBounds(min, lo) <= 0)) {
                        return end();
                    }
                    next = startDescending(min, false);
                } else {
                    Key upper = chunk.upperKey;
                    if (upper == null || (hi != null && keys.compareBounds(upper, hi) > 0)) {
                        return end();
                    }
                    next = startAscending(upper, true);
                }
                continue;
            }
            long keyRef = chunk.keyRef(next);
            int keyLength = chunk.keyLength(next);
            boolean outside = descending ? below(lo, loInclusive, keyRef, keyLength)
                    : above(hi, hiInclusive, keyRef, keyLength);
            long value = chunk.valueRef(next);
            if (chunk.isReplaced()) {
                next = relocate();
                continue;
            }
            if (outside) {
                return end();
            }
            Boolean present = value == 0 ? Boolean.FALSE : values.isPresent(value);
            if (present == null) {
                // The value left the entry after we read its reference: read the entry again. A replaced chunk's
                // entry keeps the old reference for ever, so then find the key in the current chunk instead.
                if (chunk.isReplaced()) {
                    next = relocate();
                }
                continue;
            }
            if (!present) {
                next = descending ? pop() : chunk.next(next);
                continue;
            }
            copyKey(keyRef, keyLength);
            if (chunk.isReplaced()) { // the copy may have read a reused key: drop it
                next = relocate();
                continue;
            }
            acceptKey();
            entry = next;
            valueRef = value;
            return true;
        }
    }

    private boolean end() {
        entry = Chunk.NONE;
        exhausted = true;
        return false;
    }

    /** Re-finds the position in the current index, just past the last emitted key (or at the range's start). */
    private int relocate() {
        if (lastKeyLength < 0) {
            return descending ? startDescending(hi, hiInclusive) : startAscending(lo, loInclusive);
        }
        Key last = Key.copyOf(lastKeySegment, 0, lastKeyLength);
        return descending ? startDescending(last, false) : startAscending(last, false);
    }

    private int startAscending(Key bound, boolean inclusive) {
        while (true) {
            chunk = bound == null ? index.first() : index.locate(keys, bound.segment(), bound.length());
            int e;
            if (bound == null) {
                e = chunk.first();
            } else {
                e = Chunk.successorOf(chunk.window(keys, bound.segment(), bound.length(), !inclusive));
            }
            if (!chunk.isReplaced()) {
                return e;
            }
        }
    }

    private int startDescending(Key bound, boolean inclusive) {
        while (true) {
            if (bound == null) {
                chunk = index.last();
                segment = chunk.sortedCount - 1;
            } else {
                chunk = inclusive ? index.locate(keys, bound.segment(), bound.length())
                        : index.locateBelow(keys, bound.segment(), bound.length());
                segment = chunk.lastSortedBelow(keys, bound.segment(), bound.length(), inclusive);
            }
            segmentBound = bound;
            segmentInclusive = inclusive;
            fillSegment();
            if (!chunk.isReplaced()) {
                return pop();
            }
        }
    }

    /** Pushes the entries of the current prefix segment that are inside the segment bound. */
    private void fillSegment() {
        depth = 0;
        int stop = segment + 1 < chunk.sortedCount ? segment + 1 : Chunk.NONE;
        int limit = segmentInclusive ? -1 : 0;
        for (int e = segment >= 0 ? segment : chunk.first(); e != Chunk.NONE && e != stop; e = chunk.next(e)) {
            if (segmentBound != null && keys.compare(segmentBound, chunk.keyRef(e), chunk.keyLength(e)) <= limit) {
                break;
            }
            if (depth == stack.length) {
                stack = java.util.Arrays.copyOf(stack, depth * 2);
            }
            stack[depth++] = e;
        }
    }

    private int pop() {
        while (depth == 0) {
            if (segment < 0) {
                return Chunk.NONE;
            }
            segment--;
            fillSegment();
        }
        return stack[--depth];
    }

    private boolean above(Key bound, boolean inclusive, long keyRef, int keyLength) {
        if (bound == null) {
            return false;
        }
        int c = keys.compare(bound, keyRef, keyLength); // bound vs key
        return inclusive ? c < 0 : c <= 0;
    }

    private boolean below(Key bound, boolean inclusive, long keyRef, int keyLength) {
        if (bound == null) {
            return false;
        }
        int c = keys.compare(bound, keyRef, keyLength);
        return inclusive ? c > 0 : c >= 0;
    }

    /** Copies a key into the candidate buffer; {@link #acceptKey} makes it the last key once validated. */
    private void copyKey(long keyRef, int keyLength) {
        if (keyLength > candidateKey.length) {
            candidateKey = new byte[Math.max(keyLength, candidateKey.length * 2)];
            candidateKeySegment = MemorySegment.ofArray(candidateKey);
        }
        MemorySegment.copy(keys.pool.segment(keyRef), ValueLayout.JAVA_BYTE, keys.pool.payloadOffset(keyRef),
                candidateKey, 0, keyLength);
        candidateKeyLength = keyLength;
    }

    /** Swaps the candidate and last-key buffers: the candidate, validated, becomes the last key. */
    private void acceptKey() {
        byte[] bytes = lastKey;
        MemorySegment segment = lastKeySegment;
        lastKey = candidateKey;
        lastKeySegment = candidateKeySegment;
        lastKeyLength = candidateKeyLength;
        candidateKey = bytes;
        candidateKeySegment = segment;
    }

    // ---- the current entry

    /** The current key's bytes, copied: {@code [0, keyLength())} of this segment, valid until the next advance. */
    MemorySegment keySegment() {
        return lastKeySegment;
    }

    int keyLength() {
        return lastKeyLength;
    }

    /** The current entry's key slice (valid while the entry is in the map). */
    long keyRef() {
        return chunk.keyRef(entry);
    }

    /** The value reference the current entry had when the cursor reached it. */
    long valueRef() {
        return valueRef;
    }
}
