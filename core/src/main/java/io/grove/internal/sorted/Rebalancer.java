package io.grove.internal.sorted;

import io.grove.internal.memory.Pool;
import io.grove.internal.sync.Backoff;
import io.grove.internal.sync.CallRegistry;
import java.lang.foreign.MemorySegment;

/**
 * Rebalance (the Oak paper, §4.1, "rebalance guarantees"): replaces a chunk that is full, or has many removed
 * entries, by chunks holding only its live entries, sorted, with room for as many inserts again; under-used chunks
 * are merged with a neighbour.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Protocol, for a chunk {@code c}:
 * <ol>
 *   <li>Freeze: the thread whose CAS moves {@code c} from ACTIVE to FROZEN is its only rebalancer; any other
 *       waits until {@code c} is REPLACED. From then on no operation can publish in {@code c}.
 *   <li>Drain: wait until no operation is published in {@code c}; the list and every entry's value reference are
 *       then fixed (Chunk invariant I3). Values keep changing in place under their own locks: the new chunks
 *       refer to the same value slices, so nothing is lost.
 *   <li>Engage: try to freeze and drain the successor {@code d} too if {@code c} or {@code d} is under-full
 *       (fewer live entries than a quarter of the chunk size), and the predecessor {@code b} if {@code b} is
 *       under-full. A failed CAS means that neighbour has its own rebalancer: go on without it. Freezing is a
 *       single CAS that never waits for another rebalancer, so rebalancers cannot deadlock.
 *   <li>Build: copy the live entries (value not 0) of {@code b}, {@code c}, {@code d} in list order into new
 *       chunks of at most half the chunk size each; the first takes the first old chunk's minimum, the last the
 *       last one's upper bound, the ones between the first key they hold.
 *   <li>Replace: one CAS of the index array (the linearization point: before it every operation on the range
 *       uses the frozen chunks, after it the new ones).
 *   <li>Mark the old chunks REPLACED (their waiters retry), then delete the key slices of their removed
 *       entries: after the mark, so a reader that searched an old chunk and then saw it not replaced read only
 *       live key slices (Chunk invariant I4).
 *   <li>Follow up: if an under-full chunk lies on either side of the new chunks, and both are active, rebalance
 *       again to merge it ({@link #neighbourToMerge}): a neighbour missed in step 3 is merged after all.
 * </ol>
 * Guarantees RB1-RB3 of the Oak paper (§4.1): the new chunks hold exactly the entries with values of the old ones
 * (nothing lost, nothing resurrected, since no entry changed after the drain); the ranges still partition the
 * key space; operations that failed to publish retry on the new chunks.
 *
 * <p>Layout for scans (a map built with {@code layOutForScans}). A rebalance that a scan asks for
 * ({@link #scanned}: the chunk holds many pairs out of key order and scans read it more than once) also moves the
 * pairs of the old chunks, in step 4, to fresh slices that lie one after another (taken from the pool's bump pointer
 * in runs, so that no other thread's slices come between them), key then value, in key order
 * ({@link #moveInOrder}), so that later scans read them as one stream: a scan of pairs inserted
 * in random order misses the cache on every key and value otherwise ({@code docs/experiments/ordered-scans.md}).
 * Each value is locked while it is copied and until it is deleted; the old slices are deleted after step 6 (values,
 * then keys). Pairs that a long-lived zero-copy handle may point into are never moved: such a handle marks its
 * chunk ({@link Chunk#handOut}) while it is active, the rebalance reads the marks after its freeze, and new chunks
 * inherit them. Every rebalance of such a map records where it put each old entry ({@link Moves}) before marking
 * the old chunk replaced, so that the reused handles of zero-copy streams follow their pair.
 *
 * <p>Sizes. A new chunk's array holds twice the entries it is built with (at least {@value #MIN_CAPACITY}, at
 * most the chunk size), so every rebalance allocates in proportion to the entries it moves, not to the chunk
 * size: a chunk left with a few entries costs a few hundred bytes of heap, and rebuilding it costs as little. A
 * chunk that fills up is rebuilt with twice the room (or split), so inserts pay O(1) amortized for the copies.
 *
 * <p>Removed keys are compacted too (Oak rebalanced only on inserts): when an operation leaves an entry without
 * a value, the chunk is compacted if its dead entries ({@link Chunk#allocated} less {@link Chunk#live}) reach
 * half its allocated entries, and at least {@link #minDead} if it took inserts since it was built. So a chunk
 * keeps fewer dead keys than live ones plus {@code minDead}, and every compaction, whose garbage is proportional
 * to the entries it handles, is paid for by as many removals as a constant fraction of them. The minimum is
 * what lets a put/remove churn of a few keys (which revive their own entries, so the dead count never grows)
 * run without rebuilding the chunk; a chunk that took no inserts since it was built compacts down to nothing as
 * its entries are removed, so a map whose keys are all removed keeps none of them. An under-full chunk that no
 * operation reaches any more is merged when a neighbour is rebalanced.
 *
 * <p>A user function (of {@code compute}, an in-place update...) runs while its operation is published in a
 * chunk, so a rebalance of that chunk waits for it. If the function calls the map and the call needs such a
 * rebalance, it would wait for itself: the rebalance checks, before freezing, that the calling thread is not
 * inside a function of an operation published in the chunk (throwing "Recursive update" for a chunk it must
 * rebalance, skipping a compaction or a neighbour it need not take), and each chunk records the rebalance that
 * froze it ({@link Chunk#frozenFor}), so that a nested call waiting for a replacement can tell that the same
 * rebalance also waits to drain a chunk its own operation is in ({@link #awaitReplaced}).
 */
final class Rebalancer {
    /** The fewest entries a chunk's array holds (fewer if the chunk size is smaller). */
    static final int MIN_CAPACITY = 16;

    private final ChunkIndex index;
    /** Once the map is closed its chunks stay frozen for good: nobody may wait for a replacement then. */
    private final Closing closing;
    private final Keys keys;
    private final Pool pool;
    /** The operations running a user function, with the chunk each is published in meanwhile. */
    private final CallRegistry calls;
    private final int chunkSize;
    /** The dead entries a chunk that took inserts since it was built keeps at least before a compaction. */
    private final int minDead;
    /** Fewer live entries than this make a chunk under-full. */
    private final int underFull;
    /** The values, to tell tombstones and older versions apart in a map that takes snapshots. */
    private final Values<?> values;
    /** Whether the map lays its pairs out in key order for scans ({@link #scanned}); then rebalances record moves. */
    private final boolean layOut;

    Rebalancer(ChunkIndex index, Keys keys, Pool pool, int chunkSize, Closing closing, CallRegistry calls,
            Values<?> values, boolean layOut) {
        this.values = values;
        this.layOut = layOut;
        this.closing = closing;
        this.index = index;
        this.keys = keys;
        this.pool = pool;
        this.calls = calls;
        this.chunkSize = chunkSize;
        this.minDead = Math.max(1, Math.min(MIN_CAPACITY, chunkSize / 4));
        this.underFull = Math.max(1, chunkSize / 4);
    }

    /** The capacity of a chunk built with {@code entries} entries, in a map of chunks of {@code chunkSize}. */
    static int capacityFor(int entries, int chunkSize) {
        return Math.min(chunkSize, Math.max(MIN_CAPACITY, 2 * entries));
    }

    /**
     * Compacts {@code c} if it is still active, unless the calling thread is inside a user function of an
     * operation published in it (a compaction is never needed at once: the next removal, or insert, will do).
     */
    void compact(Chunk c) {
        if (c.isActive() && !calls.callerWithin(c)) {
            rebalance(c);
        }
    }

    /** Whether {@code c}, where an operation just left an entry without a value, should be compacted. */
    boolean shouldCompact(Chunk c) {
        int allocated = c.allocated();
        int dead = allocated - c.live() - c.tombstones();
        return dead >= Math.max(c.tookInserts() ? minDead : 1, allocated / 2);
    }

    /**
     * Rebalances {@code c}, or waits for the thread that already does. Returns once {@code c} is replaced. Throws
     * "Recursive update", changing nothing, if the calling thread is inside a user function of an operation
     * published in {@code c}: the drain would wait for that operation, hence for itself.
     */
    void rebalance(Chunk c) {
        if (calls.callerWithin(c)) {
            throw CallRegistry.recursiveUpdate("a call from a function passed to an operation on this map must "
                    + "rebalance the chunk that operation is in (an insert filled it), and the rebalance would wait "
                    + "for the function to return");
        }
        if (!c.freeze()) {
            awaitReplaced(c);
            return;
        }
        replaceAndMerge(c, false);
    }

    /**
     * Called by a scan that has just read chunk {@code c} to its end: in a map that lays out its pairs for scans,
     * rebuilds {@code c} with its pairs moved to fresh slices in key order if it holds many pairs out of order and
     * was scanned more than once since it was built ({@link Chunk#scannedOutOfOrder}). Skipped, without waiting, if
     * another thread rebalances {@code c}, or the calling thread is inside a user function of an operation published
     * in it.
     */
    void scanned(Chunk c) {
        if (layOut && c.isActive() && !c.isHandedOut() && c.scannedOutOfOrder() && !calls.callerWithin(c)
                && c.freeze()) {
            replaceAndMerge(c, true);
        }
    }

    /**
     * Called by a set's iterator before it marks chunk {@code c} ({@link Chunk#handOut}), after which no rebalance
     * moves its pairs: in a map that lays out its pairs for scans, rebuilds {@code c} with them in key order now if
     * it holds many out of order and is not marked yet, as this is the last chance. Returns whether it did (the
     * caller then reads the chunks that replaced {@code c}). Skipped as {@link #scanned} is.
     */
    boolean layOutBeforeHandOut(Chunk c) {
        if (layOut && !c.isHandedOut() && c.isActive() && c.holdsPairsOutOfOrder() && !calls.callerWithin(c)
                && c.freeze()) {
            replaceAndMerge(c, true);
            return true;
        }
        return false;
    }

    /** Whether the map lays its pairs out in key order for scans. */
    boolean laysOut() {
        return layOut;
    }

    /**
     * Steps 2-7 for {@code c}, which the caller froze; {@code move}: lay the first replacement's pairs out. (Also
     * called by tests that freeze a chunk themselves, to hold it frozen for as long as they need.)
     */
    void replaceAndMerge(Chunk c, boolean move) {
        Chunk next = c;
        do {
            next = neighbourToMerge(replace(next, move));
            move = false;
        } while (next != null && next.freeze()); // (a chunk frozen meanwhile is its rebalancer's to follow up)
    }

    /**
     * Steps 2-6 for {@code c}, which the caller froze: drains it and the neighbours it merges, builds and publishes
     * their replacement, and returns the new chunks. With {@code move}, the new chunks' pairs are moved to fresh
     * slices in key order ({@link #moveInOrder}) unless a long-lived handle points into the old chunks.
     */
    private Chunk[] replace(Chunk c, boolean move) {
        c.frozenFor(c);
        drain(c);
        Chunk before = engage(index.predecessor(c), c, false);
        Chunk after = engage(index.successor(c), c, isUnderFull(c));
        Chunk[] old = before == null ? after == null ? new Chunk[] {c} : new Chunk[] {c, after}
                : after == null ? new Chunk[] {before, c} : new Chunk[] {before, c, after};
        int allocated = 0;
        for (Chunk chunk : old) {
            allocated += chunk.allocated();
        }
        long[] keyRefs = new long[allocated];
        int[] keyLengths = new int[allocated];
        long[] keyPrefixes = new long[allocated];
        PrefixPlan[] prefixPlans = new PrefixPlan[allocated]; // how each prefix was taken: its old chunk's plan
        long[] valueRefs = new long[allocated];
        long[] deadKeys = new long[allocated];
        int[][] positions = layOut ? new int[old.length][] : null;
        boolean handedOut = false;
        int live = 0;
        int dead = 0;
        for (int k = 0; k < old.length; k++) {
            Chunk chunk = old[k];
            handedOut |= chunk.isHandedOut(); // read after the freeze (Chunk.handOut)
            if (positions != null) {
                positions[k] = new int[chunk.allocated()];
                java.util.Arrays.fill(positions[k], -1);
            }
            for (int e = chunk.first(); e != Chunk.NONE; e = chunk.next(e)) {
                long value = chunk.valueRef(e);
                if (value != 0) {
                    if (positions != null) {
                        positions[k][e] = live;
                    }
                    keyRefs[live] = chunk.keyRef(e);
                    keyLengths[live] = chunk.keyLength(e);
                    keyPrefixes[live] = chunk.keyPrefix(e);
                    prefixPlans[live] = chunk.plan;
                    valueRefs[live++] = value;
                } else {
                    deadKeys[dead++] = chunk.keyRef(e);
                }
            }
        }
        long[] movedKeys = null;
        long[] movedValues = null;
        long[] lockedHeaders = null;
        int moved = 0;
        if (move && !handedOut && values.versions == null) {
            movedKeys = new long[live];
            movedValues = new long[live];
            lockedHeaders = new long[live];
            moved = moveInOrder(keyRefs, keyLengths, valueRefs, live, movedKeys, movedValues, lockedHeaders);
        }
        Chunk[] fresh = build(old[0].minKey, old[old.length - 1].upperKey, keyRefs, keyLengths, keyPrefixes,
                prefixPlans, valueRefs, live);
        for (Chunk chunk : old) {
            if (chunk.mayHoldVersions() || chunk.tombstones() > 0) {
                countVersions(fresh, valueRefs);
                break;
            }
        }
        for (Chunk chunk : fresh) {
            if (handedOut) {
                chunk.inheritHandedOut();
            }
            if (movedKeys != null) {
                chunk.markLaidOut();
            }
        }
        index.replace(old, fresh);
        for (int k = 0; k < old.length; k++) {
            if (positions != null) {
                old[k].movedTo(new Moves(fresh, positions[k], keyRefs, valueRefs));
            }
            old[k].markReplaced();
        }
        // Values before keys: a scan that finds a value live relies on its key being live then (Cursor).
        for (int i = 0; i < moved; i++) {
            values.retire(movedValues[i], lockedHeaders[i]);
        }
        for (int i = 0; i < moved; i++) {
            pool.delete(movedKeys[i]);
        }
        for (int i = 0; i < dead; i++) {
            pool.delete(deadKeys[i]);
        }
        return fresh;
    }

    /**
     * Moves the first {@code count} pairs (key {@code keyRefs[i]}, value {@code valueRefs[i]}, sorted, of drained
     * frozen chunks) to fresh slices, key then value, one pair after another, so that a scan reads them as one
     * stream ({@code docs/experiments/ordered-scans.md}): replaces the references in the arrays, and records each
     * moved pair's old key, old value and the value's lock header in the {@code moved*} arrays, for the caller to
     * delete once the new chunks are in the index. A value is moved under its lock, taken here and kept until its
     * deletion: every writer of a value header publishes in its chunk, so none holds or takes one of drained chunks
     * (the lock states it rather than relies on it), and a reader that meets the lock waits, then finds the value
     * deleted and reads the entry again. A value whose header is not unlocked (a batch's claim) or a placeholder
     * stays where it is, with its key; so does every pair once fresh memory runs out. Returns how many pairs moved.
     * {@code keyLengths[i]} is key {@code i}'s length, as its entry gave it.
     *
     * <p>The values are all locked first, then the fresh slices taken in one call, which lays them out one after
     * another whatever other threads allocate meanwhile ({@link Pool#allocateFresh}).
     */
    private int moveInOrder(long[] keyRefs, int[] keyLengths, long[] valueRefs, int count, long[] movedKeys,
            long[] movedValues, long[] lockedHeaders) {
        int[] pairs = new int[count]; // the pairs whose values are locked: pairs[m], its lock lockedHeaders[m]
        int[] lengths = new int[2 * count]; // their keys' and values' lengths, key then value
        int locked = 0;
        for (int i = 0; i < count; i++) {
            long header = values.lockToMove(valueRefs[i]);
            if (header != -1) {
                pairs[locked] = i;
                lockedHeaders[locked] = header;
                lengths[2 * locked] = keyLengths[i];
                lengths[2 * locked + 1] = pool.length(valueRefs[i]);
                locked++;
            }
        }
        long[] copies = new long[2 * locked];
        int allocated = pool.allocateFresh(lengths, 2 * locked, copies);
        int moved = 0;
        for (int m = 0; m < locked; m++) {
            int i = pairs[m];
            long key = keyRefs[i];
            long value = valueRefs[i];
            if (2 * m + 1 >= allocated) { // no fresh memory for this pair: it stays, unlocked
                if (2 * m < allocated) {
                    pool.deletePrivate(copies[2 * m]);
                }
                values.restore(value, lockedHeaders[m] - 1);
                continue;
            }
            long newKey = copies[2 * m];
            long newValue = copies[2 * m + 1];
            copy(key, newKey, lengths[2 * m]);
            copy(value, newValue, lengths[2 * m + 1]);
            values.initializeCopy(newValue, lockedHeaders[m] - 1);
            keyRefs[i] = newKey;
            valueRefs[i] = newValue;
            movedKeys[moved] = key;
            movedValues[moved] = value;
            lockedHeaders[moved++] = lockedHeaders[m];
        }
        return moved;
    }

    /** Copies live slice {@code from}'s {@code length} payload bytes into slice {@code to}. */
    private void copy(long from, long to, int length) {
        MemorySegment.copy(pool.segment(from), pool.payloadOffset(from), pool.segment(to),
                pool.payloadOffset(to), length);
    }

    /**
     * Whether {@code c} holds so few entries that it should be merged with a neighbour: entries that a rebalance
     * keeps, with values or tombstones (counting only values, chunks of tombstones would be merged and split
     * again for ever).
     */
    private boolean isUnderFull(Chunk c) {
        return c.live() + c.tombstones() < underFull;
    }

    /**
     * Whether a rebalance of {@code c} merges {@code neighbour} in: it exists, it or (when {@code together})
     * {@code c} is under-full, and no operation of this thread is in it (it would never drain).
     */
    private boolean wanted(Chunk neighbour, boolean together) {
        return neighbour != null && (together || isUnderFull(neighbour)) && !calls.callerWithin(neighbour);
    }

    /**
     * Freezes and drains the {@code neighbour} of {@code c} if {@link #wanted}: the neighbour, or {@code null} if
     * not wanted or another rebalancer has it.
     */
    private Chunk engage(Chunk neighbour, Chunk c, boolean together) {
        if (!wanted(neighbour, together) || !neighbour.freeze()) {
            return null;
        }
        neighbour.frozenFor(c);
        drain(neighbour);
        return neighbour;
    }

    /**
     * After {@code fresh} replaced the old chunks: the active chunk to rebalance next so that an under-full chunk
     * on either side of {@code fresh} is merged with its neighbour, or {@code null}. A neighbour may have been
     * frozen by another rebalancer when the old chunks engaged theirs; two adjacent chunks emptied at once then
     * each miss the other, and no operation may ever reach them again. Whichever of two neighbouring
     * replacements comes second in the index finds the other's new chunk active here (a third rebalancer that
     * froze it meanwhile checks after its own replacement), so such chunks are merged by the last rebalancer. Each
     * round merges an under-full chunk away (a merge's new chunks are under-full only if all it took together
     * was), so the rounds end.
     */
    private Chunk neighbourToMerge(Chunk[] fresh) {
        Chunk first = fresh[0];
        Chunk predecessor = index.predecessor(first);
        if (predecessor != null && predecessor.isActive() && !calls.callerWithin(first)) {
            if (wanted(predecessor, false)) {
                return first; // which takes its under-full predecessor
            }
            if (isUnderFull(first) && !calls.callerWithin(predecessor)) {
                return predecessor; // which takes its under-full successor
            }
        }
        Chunk last = fresh[fresh.length - 1];
        Chunk successor = index.successor(last);
        if (successor != null && successor.isActive() && !calls.callerWithin(last)
                && wanted(successor, isUnderFull(last))) {
            return last;
        }
        return null;
    }

    /**
     * In new chunks built from old ones whose entries hold tombstones or older versions: leaves the tombstones out
     * of each chunk's live count (a chunk counts every entry with a value reference as live) and notes the entries
     * with older versions for the sweep ({@link VersionedEntries}). The old chunks are drained, so no value of theirs
     * changes its version words meanwhile.
     */
    private void countVersions(Chunk[] fresh, long[] valueRefs) {
        Versions versions = values.versions;
        int from = 0;
        for (Chunk c : fresh) {
            int tombstones = 0;
            for (int i = from; i < from + c.sortedCount; i++) {
                long ref = valueRefs[i];
                tombstones += versions.isTombstone(ref, values.header(ref)) ? 1 : 0;
                if (versions.previous(ref) != 0) {
                    versions.note(c, i - from); // (a new chunk's entries are its first, in order)
                }
            }
            c.addLive(-tombstones);
            c.setTombstones(tombstones);
            from += c.sortedCount;
        }
    }

    private Chunk[] build(Key min, Key upper, long[] keyRefs, int[] keyLengths, long[] keyPrefixes,
            PrefixPlan[] prefixPlans, long[] valueRefs, int count) {
        int perChunk = Math.max(1, chunkSize / 2);
        int chunks = Math.max(1, (count + perChunk - 1) / perChunk);
        Chunk[] fresh = new Chunk[chunks];
        Key lower = min;
        int from = 0;
        for (int i = 0; i < chunks; i++) {
            int to = (int) ((long) count * (i + 1) / chunks);
            Key end = i + 1 < chunks ? keys.copy(keyRefs[to], keyLengths[to]) : upper;
            PrefixPlan plan = keys.planFor(Key.sharedLength(lower, end), keyRefs, keyLengths, from, to);
            retakePrefixes(plan, keyRefs, keyLengths, keyPrefixes, prefixPlans, from, to);
            fresh[i] = new Chunk(lower, end, plan, capacityFor(to - from, chunkSize), keyRefs, keyLengths, keyPrefixes,
                    valueRefs, from, to - from);
            lower = end;
            from = to;
        }
        return fresh;
    }

    /**
     * Makes the prefixes of entries {@code [from, to)} those of a new chunk that takes them by {@code plan}
     * ({@link Chunk#prefixOf}): a prefix taken in an old chunk by another plan is taken again from the key, which
     * is live (its entry has a value, and the old chunks are frozen).
     */
    private void retakePrefixes(PrefixPlan plan, long[] keyRefs, int[] keyLengths, long[] keyPrefixes,
            PrefixPlan[] prefixPlans, int from, int to) {
        for (int i = from; i < to; i++) {
            if (!plan.equals(prefixPlans[i])) {
                long ref = keyRefs[i];
                keyPrefixes[i] = keys.prefix(plan, keys.pool.segment(ref), keys.pool.payloadOffset(ref),
                        keyLengths[i]);
            }
        }
    }

    static void drain(Chunk c) {
        for (int attempt = 0; c.hasPending(); attempt++) {
            Backoff.pause(attempt);
        }
    }

    /**
     * Waits until {@code c} is replaced by its rebalancer. Throws {@link IllegalStateException} once the map is
     * closed: {@code c} may be frozen by the close, which never replaces it, or retired by it, and the caller
     * would find it in the index again.
     */
    void awaitReplaced(Chunk c) {
        for (int attempt = 0; ; attempt++) {
            closing.check();
            if (c.isReplaced()) {
                return;
            }
            if (CallRegistry.timeToCheck(attempt) && waitsForCaller(c)) {
                throw CallRegistry.recursiveUpdate("a call from a function passed to an operation on this map "
                        + "waits for a rebalance that waits for that operation, hence for the function to return");
            }
            Backoff.pause(attempt);
        }
    }

    /**
     * Whether the replacement of frozen chunk {@code c} waits for the calling thread: its rebalance also froze a
     * chunk (maybe {@code c}) in which an operation of this thread is published, running a user function.
     */
    private boolean waitsForCaller(Chunk c) {
        Chunk rebalance = c.frozenFor();
        return rebalance != null && calls.callerWithinAny(chunk -> ((Chunk) chunk).frozenFor() == rebalance);
    }
}
