package io.grove.internal.sorted;

import io.grove.internal.memory.Pool;
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
 * meanwhile is never read past its range. Each emitted key is copied, then kept as {@link #lastKey} only after a
 * check that the chunk was not replaced while its keys were read (Chunk I4); a chunk found replaced is left for
 * the current chunk holding the last key, from just past it. Every key present throughout the scan is emitted
 * once, in order: the chunk that holds it when the cursor gets there shows it, whether active or frozen (a frozen chunk
 * shows its range as it was when it froze, and a cursor only reaches a chunk the index held, which happened
 * before the new chunks could change).
 *
 * <p>Look-ahead: the slices of neighbouring keys lie anywhere in memory, so a scan that reads one entry's key and
 * value before looking at the next waits for each cache miss in turn. The cursor therefore reads the list
 * {@value #AHEAD} entries at a time (ascending: the next entries into {@link #queue}; descending: up to
 * {@value #AHEAD} prefix segments at once onto the stack) and touches each queued entry's key and value slice
 * ({@link #touch}), so their misses overlap. Reading links ahead is as safe as reading them one by one: entries
 * are never unlinked from a chunk, so an entry seen in the list stays there, in order, until the chunk is replaced
 * (which the cursor checks per entry as before); an entry linked behind the read position meanwhile is missed,
 * as it could be by a scan that had already passed it.
 */
final class Cursor {
    /** How many entries (ascending) or prefix segments (descending) the cursor reads ahead. */
    private static final int AHEAD = 16;

    private final Keys keys;
    private final ChunkIndex index;
    private final Values<?> values;
    /** A closed map's chunks stay in the index, retired: a cursor that finds one replaced checks this first. */
    private final Closing closing;
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

    // ascending look-ahead: the entries read after `queuedTail`, from queue[queueHead] to queue[queueSize - 1]
    private final int[] queue = new int[AHEAD];
    private int queueHead;
    private int queueSize;
    private int queuedTail;

    // descending state: the lowest prefix segment pushed so far and the stack of entries still to emit
    private int filledFrom;
    private int[] stack = new int[4 * AHEAD];
    private int depth;
    private Key segmentBound;
    private boolean segmentInclusive;

    /** What {@link #touch} read, kept so that its reads are not optimized away. */
    @SuppressWarnings("UnusedVariable") // a sink: writing what touch() read keeps those reads from being removed
    private long touched;

    Cursor(Keys keys, ChunkIndex index, Values<?> values, Closing closing, boolean descending, Key lo,
            boolean loInclusive, Key hi, boolean hiInclusive) {
        this.keys = keys;
        this.index = index;
        this.values = values;
        this.closing = closing;
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
            next = following();
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
            boolean outside = descending ? below(lo, loInclusive, next) : above(hi, hiInclusive, next);
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
                next = following();
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

    /**
     * Re-finds the position in the current index, just past the last emitted key (or at the range's start), after
     * the cursor found its chunk replaced. Throws {@link IllegalStateException} if the map was closed meanwhile.
     */
    private int relocate() {
        closing.check();
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
                queueHead = 0;
                queueSize = 0;
                queuedTail = e;
                return e;
            }
            closing.check();
        }
    }

    /** The entry after the last one returned, in scan order; {@link Chunk#NONE} at the chunk's end. */
    private int following() {
        return descending ? pop() : dequeue();
    }

    private int dequeue() {
        if (queueHead == queueSize) {
            queueHead = 0;
            queueSize = 0;
            for (int e = chunk.next(queuedTail); e != Chunk.NONE; e = chunk.next(e)) {
                queue[queueSize++] = e;
                touch(e);
                if (queueSize == AHEAD) {
                    break;
                }
            }
            if (queueSize == 0) {
                return Chunk.NONE;
            }
            queuedTail = queue[queueSize - 1];
        }
        return queue[queueHead++];
    }

    private int startDescending(Key bound, boolean inclusive) {
        while (true) {
            int top;
            if (bound == null) {
                chunk = index.last();
                top = chunk.sortedCount - 1;
            } else {
                chunk = inclusive ? index.locate(keys, bound.segment(), bound.length())
                        : index.locateBelow(keys, bound.segment(), bound.length());
                top = chunk.lastSortedBelow(keys, bound.segment(), bound.length(), inclusive);
            }
            segmentBound = bound;
            segmentInclusive = inclusive;
            fillSegments(top);
            if (!chunk.isReplaced()) {
                return pop();
            }
            closing.check();
        }
    }

    /**
     * Pushes the entries of prefix segments {@code top - AHEAD + 1} (at least -1, the entries before {@code p_0})
     * to {@code top}; in segment {@code top}, only those inside the segment bound. The segments below {@code top}
     * hold keys below {@code p_top}, which is inside the bound, so after this first fill the bound is dropped.
     */
    private void fillSegments(int top) {
        depth = 0;
        int from = Math.max(top - AHEAD + 1, -1);
        int stop = top + 1 < chunk.sortedCount ? top + 1 : Chunk.NONE;
        boolean bounded = top < 0 && segmentBound != null;
        for (int e = from >= 0 ? from : chunk.first(); e != Chunk.NONE && e != stop; e = chunk.next(e)) {
            if (e == top) {
                bounded = segmentBound != null;
            }
            if (bounded && above(segmentBound, segmentInclusive, e)) {
                break;
            }
            if (depth == stack.length) {
                stack = java.util.Arrays.copyOf(stack, depth * 2);
            }
            stack[depth++] = e;
            touch(e);
        }
        filledFrom = from;
        segmentBound = null;
    }

    private int pop() {
        while (depth == 0) {
            if (filledFrom < 0) {
                return Chunk.NONE;
            }
            fillSegments(filledFrom - 1);
        }
        return stack[--depth];
    }

    /**
     * Reads a word of entry {@code e}'s key and of its value, to start their cache misses now; the words are only
     * folded into {@link #touched}. A reference the entry no longer deserves (a value replaced meanwhile) reads
     * bytes of a block that stays allocated while the map is open, and nothing depends on them.
     */
    private void touch(int e) {
        long keyRef = chunk.keyRef(e);
        long valueRef = chunk.valueRef(e);
        Pool pool = keys.pool;
        long read = pool.segment(keyRef).get(ValueLayout.JAVA_LONG_UNALIGNED, pool.payloadOffset(keyRef));
        if (valueRef != 0) {
            read ^= pool.segment(valueRef).get(ValueLayout.JAVA_LONG_UNALIGNED, pool.payloadOffset(valueRef));
        }
        touched ^= read;
    }

    /** Whether entry {@code e}'s key is above the bound. */
    private boolean above(Key bound, boolean inclusive, int e) {
        if (bound == null) {
            return false;
        }
        int c = chunk.compare(keys, bound, e); // bound vs key
        return inclusive ? c < 0 : c <= 0;
    }

    /** Whether entry {@code e}'s key is below the bound. */
    private boolean below(Key bound, boolean inclusive, int e) {
        if (bound == null) {
            return false;
        }
        int c = chunk.compare(keys, bound, e);
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
