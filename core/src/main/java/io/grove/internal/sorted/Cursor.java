package io.grove.internal.sorted;

import io.grove.internal.memory.Pool;
import io.grove.internal.sync.Backoff;
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
 * meanwhile is never read past its range. Every key present throughout the scan is emitted once, in order: the
 * chunk that holds it when the cursor gets there shows it, whether active or frozen (a frozen chunk shows its
 * range as it was when it froze, and a cursor only reaches a chunk the index held, which happened before the new
 * chunks could change).
 *
 * <p>Validation per read-ahead, not per entry. What a read-ahead read (links, and keys compared with the range's
 * bounds) is valid if the chunk was not replaced after it (Chunk I4): one check per read-ahead. An entry is then
 * emitted if its value slice is live when the cursor gets to it (its entry vouches for that unless it changed or
 * the chunk was replaced: {@link EntryOrigin}), which also keeps its key slice live (a rebalance
 * drops only keys without values, and one that moves pairs, {@link Rebalancer#scanned}, deletes a moved key after
 * its value), even if the chunk was replaced since: its range as it was is still a state the
 * scan may show. A value found gone in a replaced chunk, or a read-ahead found replaced, sends the cursor to the
 * current chunks ({@link #relocate}), just past the last emitted key: a cursor that copies its keys
 * ({@link #copyKeys}, for scans that hand out keys on the heap; each copy is checked against replacement before it
 * is kept) has it; one that does not (zero-copy scans, whose handles point into the slices) copies it from its
 * slice then (from where a rebalance moved it, {@link Moves#keyNow}), and copes with a slice dropped meanwhile.
 *
 * <p>Layout. In a map that lays out its pairs for scans, the cursor tells the rebalancer of each chunk it read to its
 * end ({@link Rebalancer#scanned}), which may rebuild that chunk with its pairs moved into key order; the cursor has
 * left it by then, and the handles of its last element follow the pair ({@link Moves}).
 *
 * <p>Look-ahead: the slices of neighbouring keys lie anywhere in memory, so a scan that reads one entry's key and value
 * before looking at the next waits for each cache miss in turn. The cursor therefore reads the list {@value #AHEAD}
 * entries at a time (ascending: the next entries into {@link #queue}; descending: up to {@value #AHEAD} prefix
 * segments at once onto the stack) and touches each queued entry's key and value slice ({@link #touchOutOfOrder}),
 * so their misses overlap; except the pairs a laid-out chunk holds in key order ({@link Chunk#laidOutInOrder}): there a
 * scan reads memory in one stream, forwards or backwards, and touching them made it slower (measured: descending
 * 1.2-1.8x faster without, docs/experiments/ordered-scans.md section 11; ascending 1.08-1.13x once the rest of the
 * per-pair work was cut, section 12). A laid-out pair whose value a put has replaced since has its value touched (its
 * slice lies anywhere), and those touches are issued together once the read-ahead is read (section 17). Reading links
 * ahead is as safe as reading them one by one: entries are never unlinked from a chunk, so an entry seen in the list
 * stays there, in order; an entry linked behind the read position meanwhile is missed, as it could be by a scan that
 * had already passed it.
 */
final class Cursor {
    /** How many entries (ascending) or prefix segments (descending) the cursor reads ahead. */
    private static final int AHEAD = 16;
    /** What {@link #following} returns when the range ends before the chunk does. */
    private static final int END = -2;
    /** What {@link #following} returns when the chunk was replaced while it read ahead: relocate. */
    private static final int MOVED = -3;

    private final Keys keys;
    private final Pool pool;
    private final ChunkIndex index;
    /** Told of each chunk the cursor read to its end, which it may lay out for scans; null for snapshots'. */
    private final Rebalancer rebalancer;
    private final Values<?> values;
    /** A closed map's chunks stay in the index, retired: a cursor that finds one replaced checks this first. */
    private final Closing closing;
    /** The snapshot whose versions the cursor reads, or {@code null} for the values now. */
    final Snapshot snapshot;
    private final boolean descending;
    /** Whether each emitted key is copied to the heap ({@link #keySegment}); otherwise copied only on demand. */
    private final boolean copyKeys;
    /** The range; a {@code null} bound is open. */
    private final Key lo;
    private final boolean loInclusive;
    private final Key hi;
    private final boolean hiInclusive;

    private Chunk chunk;
    /** The bound the cursor entered {@link #chunk} from (in scan order), and whether inclusive. */
    private Key enteredAt;
    private boolean enteredInclusive;
    private int entry = Chunk.NONE;
    private boolean started;
    /** Whether the next advance emits the current key again, from the chunks that replaced its chunk. */
    private boolean again;
    private boolean exhausted;
    private long valueRef;
    private int valueLength;
    /** Where {@link #valueRef}'s payload lies: {@link Pool#segment}, {@link Pool#payloadOffset}. */
    private MemorySegment valueBlock;
    private long valuePayload;
    /** The chunk of the last emitted entry, or {@code null} before the first. */
    private Chunk lastChunk;
    private int lastEntry = Chunk.NONE;
    private byte[] lastKey = new byte[32];
    private MemorySegment lastKeySegment = MemorySegment.ofArray(lastKey);
    /** The length of the key in {@link #lastKey}; -1 while it holds none, or (without {@link #copyKeys}) an old one. */
    private int lastKeyLength = -1;
    private byte[] candidateKey = new byte[32];
    private MemorySegment candidateKeySegment = MemorySegment.ofArray(candidateKey);
    private int candidateKeyLength;

    // ascending look-ahead: entries read, from queue[queueHead] to queue[queueSize - 1]; the next read starts at
    // startAt if set, else after queuedTail
    private final int[] queue = new int[AHEAD];
    private int queueHead;
    private int queueSize;
    private int queuedTail;
    private int startAt;
    /** Whether the read-ahead met the range's end: once the entries read are emitted, the scan ends. */
    private boolean rangeEnds;

    // descending state: the lowest prefix segment pushed so far and the stack of entries still to emit
    private int filledFrom;
    private int[] stack = new int[4 * AHEAD];
    private int depth;
    private Key segmentBound;
    private boolean segmentInclusive;

    // the bound compareBound placed last, the chunk it placed it in, and its place and prefix there
    private Chunk placedIn;
    private Key placedBound;
    private int placedOutside;
    private long placedPrefix;

    /** The values {@link #touchOutOfOrder} recorded for {@link #touchRecorded}. */
    private final long[] toTouch = new long[AHEAD];
    private int toTouchCount;
    /** What the touches read ({@link #firstWord}), kept so that their reads are not optimized away. */
    @SuppressWarnings("UnusedVariable") // a sink: writing what was read keeps those reads from being removed
    private long touched;

    Cursor(Keys keys, ChunkIndex index, Rebalancer rebalancer, Values<?> values, Closing closing, Snapshot snapshot,
            boolean descending, boolean copyKeys, Key lo, boolean loInclusive, Key hi, boolean hiInclusive) {
        this.keys = keys;
        this.pool = keys.pool;
        this.index = index;
        this.rebalancer = snapshot == null ? rebalancer : null;
        this.values = values;
        this.closing = closing;
        this.snapshot = snapshot;
        this.descending = descending;
        this.copyKeys = copyKeys;
        this.lo = lo;
        this.loInclusive = loInclusive;
        this.hi = hi;
        this.hiInclusive = hiInclusive;
    }

    /** Moves to the next entry with a value inside the range; {@code false} at the end. */
    boolean advance() {
        return quickStep() || fullStep();
    }

    /**
     * The common step, in a few lines and without loops or waits: to the next entry read ahead, in a scan of the map
     * now with no bound to compare it with, if its value is present with nothing pending on it
     * ({@link Values#plainPresentLength}). Otherwise it takes no step and returns {@code false}, and
     * {@link #fullStep} takes it. Before the first step and after the last nothing is read ahead.
     */
    private boolean quickStep() {
        if (again || snapshot != null) {
            return false;
        }
        int e;
        if (descending) {
            if (depth == 0 || lo != null) {
                return false;
            }
            e = stack[depth - 1];
        } else {
            if (queueHead == queueSize) {
                return false;
            }
            e = queue[queueHead];
        }
        long value = chunk.valueRef(e);
        if (value == 0) {
            return false;
        }
        MemorySegment block = pool.segment(value);
        long at = pool.payloadOffset(value);
        int length = values.plainPresentLength(value, block, at, chunk, e);
        if (length < 0) {
            return false;
        }
        if (!keepKey(e)) { // the full step relocates
            return false;
        }
        if (descending) {
            depth--;
        } else {
            queueHead++;
        }
        emit(e, value, length, block, at);
        return true;
    }

    /** As {@link #advance}, for every case. */
    private boolean fullStep() {
        if (exhausted) {
            return false;
        }
        int next;
        if (!started) {
            started = true;
            next = descending ? startDescending(hi, hiInclusive) : startAscending(lo, loInclusive);
        } else if (again) {
            again = false;
            next = relocate(true);
        } else {
            next = following(true);
        }
        for (int gone = 0; ; ) {
            if (next == MOVED) {
                next = relocate(false);
                continue;
            }
            if (next == END) {
                return end();
            }
            if (next == Chunk.NONE) {
                if (rebalancer != null) {
                    rebalancer.scanned(chunk);
                }
                next = nextChunk();
                continue;
            }
            long value = chunk.valueRef(next);
            if (value == 0) {
                next = following(true);
                continue;
            }
            int length;
            MemorySegment block = null; // where value's payload lies: block, at
            long at = 0;
            if (snapshot != null) {
                value = values.versionAt(value, snapshot);
                int live = value > 0 ? values.pool().liveLength(value) : -1;
                length = live >= 0 ? live : value == 0 ? Values.ABSENT : Values.GONE;
            } else {
                block = pool.segment(value);
                at = pool.payloadOffset(value);
                length = values.presentLength(value, block, at, chunk, next);
                while (length == Values.REPLACED) { // a committed batch's value, maybe not yet installed
                    value = values.replacementOf(value);
                    length = value > 0 ? values.presentLength(value) : value == 0 ? Values.ABSENT : Values.GONE;
                    block = null;
                }
            }
            if (length == Values.GONE) {
                // The value left the entry after we read its reference: read the entry again. A replaced chunk's
                // entry keeps the old reference for ever, so then find the key in the current chunk instead: the
                // entry goes back to the read-ahead first, as the key may have a new value (relocate's walk).
                if (chunk.isReplaced()) {
                    unread();
                    next = relocate(false);
                } else {
                    // The entry may still hold the value a writer is taking out of it: let that writer run (two
                    // virtual threads that re-read without pausing can keep it off both carriers for good)
                    Backoff.pause(gone++);
                }
                continue;
            }
            if (length == Values.ABSENT) {
                next = following(true);
                continue;
            }
            if (!keepKey(next)) {
                next = relocate(false);
                continue;
            }
            emit(next, value, length, block != null ? block : pool.segment(value),
                    block != null ? at : pool.payloadOffset(value));
            return true;
        }
    }

    /**
     * Keeps entry {@code e}'s key as the last key: a cursor that {@link #copyKeys} copies it, and returns
     * {@code false} if the chunk was replaced meanwhile (the copy may have read a reused key: the caller relocates);
     * one that does not forgets the last key it copied.
     */
    private boolean keepKey(int e) {
        if (!copyKeys) {
            lastKeyLength = -1;
            return true;
        }
        copyKey(chunk.keyRef(e), chunk.keyLength(e));
        if (chunk.isReplaced()) {
            return false;
        }
        acceptKey();
        return true;
    }

    /** Makes entry {@code e} of {@link #chunk}, with value {@code value} found live, the current entry. */
    private void emit(int e, long value, int length, MemorySegment block, long at) {
        entry = e;
        valueRef = value;
        valueLength = length;
        valueBlock = block;
        valuePayload = at;
        lastChunk = chunk;
        lastEntry = e;
    }

    private boolean end() {
        entry = Chunk.NONE;
        exhausted = true;
        return false;
    }

    /** Goes on from the end of {@link #chunk} to the chunk after it in scan order; {@link #END} if none. */
    private int nextChunk() {
        if (descending) {
            Key min = chunk.minKey;
            if (min == null || (lo != null && keys.compareBounds(min, lo) <= 0)) {
                return END;
            }
            return startDescending(min, false);
        }
        Key upper = chunk.upperKey;
        if (upper == null || (hi != null && keys.compareBounds(upper, hi) > 0)) {
            return END;
        }
        return startAscending(upper, true);
    }

    /**
     * Re-finds the position in the current index, just past the last emitted key ({@code inclusive}: at it), after
     * the cursor found its chunk replaced (or was told to emit that key {@link #again}). Throws
     * {@link IllegalStateException} if the map was closed meanwhile.
     *
     * <p>Without {@link #copyKeys} the last key is copied now from its slice (from where the rebalances since moved
     * it, {@link Moves#keyNow}), which is still that key's if the slice is live after the copy. If it is not (the key
     * was removed and the rebalance dropped it), the cursor goes on through the replaced chunk, whose list no longer
     * changes, to the first entry whose key it can copy that way, and resumes at that key, inclusive: every key
     * between the two that was present throughout was in that chunk with its key slice kept. The walk starts with the
     * entry the cursor was at: one whose value was found gone may have a new one ({@link #unread}). If the chunk holds
     * no such key, it resumes at the next chunk.
     */
    private int relocate(boolean inclusive) {
        closing.check();
        if (lastChunk != chunk) { // nothing emitted from this chunk: start it again
            return start(enteredAt, enteredInclusive);
        }
        if (copyKeys || copyLive(lastEntry)) {
            return start(Key.copyOf(copyKeys ? lastKeySegment : candidateKeySegment, 0,
                    copyKeys ? lastKeyLength : candidateKeyLength), inclusive);
        }
        for (int n = following(false); n != Chunk.NONE; n = following(false)) {
            if (copyLive(n)) {
                return start(Key.copyOf(candidateKeySegment, 0, candidateKeyLength), true);
            }
        }
        return nextChunk();
    }

    private int start(Key bound, boolean inclusive) {
        return descending ? startDescending(bound, inclusive) : startAscending(bound, inclusive);
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
                enteredAt = bound;
                enteredInclusive = inclusive;
                queueHead = 0;
                queueSize = 0;
                queuedTail = Chunk.NONE;
                startAt = e;
                rangeEnds = false;
                return dequeue(true);
            }
            closing.check();
        }
    }

    /**
     * The entry after the last one returned, in scan order; {@link Chunk#NONE} at the chunk's end. {@code checked}:
     * the read-ahead stops at the range's bound ({@link #END} after the last entry inside it) and is validated
     * ({@link #MOVED} if the chunk was replaced meanwhile); unchecked reads serve {@link #relocate}, on a chunk
     * already replaced.
     */
    private int following(boolean checked) {
        return descending ? pop(checked) : dequeue(checked);
    }

    /** Puts the entry {@link #following} returned last back in front of the read-ahead. */
    private void unread() {
        if (descending) {
            depth++;
        } else {
            queueHead--;
        }
    }

    private int dequeue(boolean checked) {
        if (queueHead == queueSize) {
            if (rangeEnds && checked) {
                return END;
            }
            queueHead = 0;
            queueSize = 0;
            int e = startAt != Chunk.NONE ? startAt : queuedTail != Chunk.NONE ? chunk.next(queuedTail) : Chunk.NONE;
            for (; e != Chunk.NONE; e = chunk.next(e)) {
                if (checked && above(hi, hiInclusive, e)) {
                    rangeEnds = true;
                    break;
                }
                queue[queueSize++] = e;
                touchOutOfOrder(e);
                if (queueSize == AHEAD) {
                    break;
                }
            }
            touchRecorded();
            if (queueSize > 0) {
                queuedTail = queue[queueSize - 1];
                startAt = Chunk.NONE;
            }
            if (checked && chunk.isReplaced()) { // links and bound comparisons may have read a reused key
                return MOVED;
            }
            if (queueSize == 0) {
                return rangeEnds && checked ? END : Chunk.NONE;
            }
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
                enteredAt = bound;
                enteredInclusive = inclusive;
                return pop(true);
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
            touchOutOfOrder(e);
        }
        touchRecorded();
        filledFrom = from;
        segmentBound = null;
    }

    private int pop(boolean checked) {
        while (depth == 0) {
            if (filledFrom < 0) {
                return Chunk.NONE;
            }
            fillSegments(filledFrom - 1);
            if (checked && chunk.isReplaced()) { // the links may be a replaced chunk's; the walk reads them again
                return MOVED;
            }
        }
        int e = stack[--depth];
        if (checked && below(lo, loInclusive, e)) {
            if (chunk.isReplaced()) { // the comparison may have read a reused key
                unread();
                return MOVED;
            }
            return END;
        }
        return e;
    }

    /**
     * Touches entry {@code e}'s slices that do not lie in the chunk's stream of pairs, to start their cache misses:
     * of an entry not laid out in order, reads a word of its key and of its value now (folded into {@link #touched});
     * of a laid-out entry in a chunk whose {@link Chunk#valuesReplaced}, records for {@link #touchRecorded} a value not
     * where the layout put it ({@link Chunk#holdsWhereLaidOut}): a put replaced it since, into a slice anywhere.
     * (Recording the pairs not laid out too, to issue all touches together, made set scans of a map without layout
     * slower: docs/experiments/ordered-scans.md section 17.)
     */
    private void touchOutOfOrder(int e) {
        if (!chunk.laidOutInOrder(e)) {
            long valueRef = chunk.valueRef(e);
            touched ^= firstWord(chunk.keyRef(e)) ^ (valueRef != 0 ? firstWord(valueRef) : 0);
        } else if (chunk.valuesReplaced()) {
            long valueRef = chunk.valueRef(e);
            if (valueRef != 0 && !chunk.holdsWhereLaidOut(e, valueRef)) {
                toTouch[toTouchCount++] = valueRef;
                if (toTouchCount == toTouch.length) {
                    touchRecorded();
                }
            }
        }
    }

    /**
     * Reads the first word of each value {@link #touchOutOfOrder} recorded, one load after another, so that their
     * misses are all under way at once: computed between the loads, as the reads of the links are, they would not be
     * (a processor keeps only so many instructions in flight past a miss).
     */
    private void touchRecorded() {
        long read = 0;
        for (int i = 0; i < toTouchCount; i++) {
            read ^= firstWord(toTouch[i]);
        }
        toTouchCount = 0;
        touched ^= read;
    }

    /**
     * The first payload word of slice {@code ref}, read only to start its cache miss. A reference an entry no longer
     * deserves (a value replaced meanwhile) reads bytes of a block that stays allocated while the map is open, and
     * nothing depends on them.
     */
    private long firstWord(long ref) {
        return pool.segment(ref).get(ValueLayout.JAVA_LONG_UNALIGNED, pool.payloadOffset(ref));
    }

    /** Whether entry {@code e}'s key is above the bound. */
    private boolean above(Key bound, boolean inclusive, int e) {
        if (bound == null) {
            return false;
        }
        int c = compareBound(bound, e); // bound vs key
        return inclusive ? c < 0 : c <= 0;
    }

    /** Whether entry {@code e}'s key is below the bound. */
    private boolean below(Key bound, boolean inclusive, int e) {
        if (bound == null) {
            return false;
        }
        int c = compareBound(bound, e);
        return inclusive ? c > 0 : c >= 0;
    }

    /**
     * Compares {@code bound} with entry {@code e}'s key, placing the bound against {@link #chunk} once per chunk
     * and bound rather than per entry.
     */
    private int compareBound(Key bound, int e) {
        if (placedIn != chunk || placedBound != bound) {
            placedIn = chunk;
            placedBound = bound;
            placedOutside = chunk.outside(keys, bound);
            placedPrefix = placedOutside == 0 ? chunk.prefixOf(keys, bound) : 0;
        }
        return chunk.compare(keys, bound, placedOutside, placedPrefix, e);
    }

    /** Copies a key into the candidate buffer; {@link #acceptKey} makes it the last key once validated. */
    private void copyKey(long keyRef, int keyLength) {
        if (keyLength > candidateKey.length) {
            candidateKey = new byte[Math.max(keyLength, candidateKey.length * 2)];
            candidateKeySegment = MemorySegment.ofArray(candidateKey);
        }
        MemorySegment.copy(pool.segment(keyRef), ValueLayout.JAVA_BYTE, pool.payloadOffset(keyRef), candidateKey, 0,
                keyLength);
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

    /**
     * Copies the key of entry {@code e} of {@link #chunk}, replaced, into the candidate buffer: {@code true} if its
     * slice was live after the copy (the bytes are that key's), {@code false} if its entry was dropped (the key was
     * removed). A key the rebalances since moved to another slice ({@link Moves}) is copied from there.
     */
    private boolean copyLive(int e) {
        int length = chunk.keyLength(e);
        long keyRef = chunk.keyRef(e);
        while (keyRef != 0) {
            copyKey(keyRef, length);
            java.lang.invoke.VarHandle.loadLoadFence();
            if (pool.isLive(keyRef)) {
                return true;
            }
            long moved = Moves.keyNow(chunk, e);
            if (moved == keyRef) {
                return false; // not moved: dropped with its entry
            }
            keyRef = moved;
        }
        return false;
    }

    // ---- the current entry

    /**
     * The current key's bytes, copied: {@code [0, keyLength())} of this segment, valid until the next advance.
     * Without {@link #copyKeys} the key is copied now, and {@link java.util.ConcurrentModificationException} is
     * thrown if it was removed and its slice dropped since the cursor reached it.
     */
    MemorySegment keySegment() {
        if (lastKeyLength < 0) {
            long keyRef = keyRef();
            copyKey(keyRef, lastChunk.keyLength(entry));
            pool.validate(keyRef);
            acceptKey();
        }
        return lastKeySegment;
    }

    int keyLength() {
        keySegment();
        return lastKeyLength;
    }

    /** The current entry's key slice (valid while the entry is in the map). */
    long keyRef() {
        return lastChunk.keyRef(entry);
    }

    /** The chunk the current entry was read from (maybe replaced since). */
    Chunk entryChunk() {
        return lastChunk;
    }

    /** The current entry's index in {@link #entryChunk}. */
    int entryIndex() {
        return entry;
    }

    /**
     * Makes the next {@link #advance} emit the current key again (if still present), from the chunks that replaced
     * the one it was read from, which the caller waited for.
     */
    void again() {
        again = true;
    }

    /** The value reference the current entry had when the cursor reached it. */
    long valueRef() {
        return valueRef;
    }

    /** The payload length of {@link #valueRef}'s slice, read when the cursor found it live. */
    int valueLength() {
        return valueLength;
    }

    /** The segment holding {@link #valueRef}'s slice (found with its presence, so a stream need not find it again). */
    MemorySegment valueBlock() {
        return valueBlock;
    }

    /** The offset of {@link #valueRef}'s payload in {@link #valueBlock}. */
    long valuePayload() {
        return valuePayload;
    }

    /** The length of the current entry's key, which is its key slice's payload length. */
    int keySliceLength() {
        return lastChunk.keyLength(entry);
    }
}
