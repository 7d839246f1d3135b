package io.grove.internal.sorted;

import io.grove.internal.memory.Pool;
import io.grove.internal.sync.Backoff;

/**
 * Rebalance (Oak §3.2, "rebalance guarantees"): replaces a chunk that is full, or has many removed entries, by
 * chunks holding only its live entries, half full and sorted; an under-used chunk is merged with its successor.
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
 *   <li>Engage: if {@code c} holds fewer than a quarter of a chunk's entries, try to freeze and drain its
 *       successor {@code d} too (a failed CAS means {@code d} has its own rebalancer: go on alone). Freezing is a
 *       single CAS that never waits for another rebalancer, so rebalancers cannot deadlock.
 *   <li>Build: copy the live entries (value not 0) of {@code c} (and {@code d}) in list order into new chunks,
 *       each half full; the first takes {@code c}'s minimum, the last {@code c}'s (or {@code d}'s) upper bound,
 *       the ones between the first key they hold.
 *   <li>Replace: one CAS of the index array (the linearization point: before it every operation on the range
 *       uses the frozen chunks, after it the new ones).
 *   <li>Mark the old chunks REPLACED (their waiters retry), then delete the key slices of their removed
 *       entries: after the mark, so a reader that searched an old chunk and then saw it not replaced read only
 *       live key slices (Chunk invariant I4).
 * </ol>
 * Guarantees RB1-RB3 of the paper: the new chunks hold exactly the entries with values of the old ones
 * (nothing lost, nothing resurrected, since no entry changed after the drain); the ranges still partition the
 * key space; operations that failed to publish retry on the new chunks.
 *
 * <p>Removed keys are compacted too (Oak rebalanced only on inserts): a removal that brings a chunk's removals to
 * half its capacity starts a rebalance, so a put/remove churn keeps the memory of keys bounded.
 */
final class Rebalancer {
    private final ChunkIndex index;
    /** Once the map is closed its chunks stay frozen for good: nobody may wait for a replacement then. */
    private final Closing closing;
    private final Keys keys;
    private final Pool pool;
    private final int chunkSize;

    Rebalancer(ChunkIndex index, Keys keys, Pool pool, int chunkSize, Closing closing) {
        this.closing = closing;
        this.index = index;
        this.keys = keys;
        this.pool = pool;
        this.chunkSize = chunkSize;
    }

    /** Whether a chunk with this many removals should be compacted. */
    boolean shouldCompact(int removals) {
        return removals >= Math.max(1, chunkSize / 2);
    }

    /** Rebalances {@code c}, or waits for the thread that already does. Returns once {@code c} is replaced. */
    void rebalance(Chunk c) {
        if (!c.freeze()) {
            awaitReplaced(c);
            return;
        }
        drain(c);
        Chunk d = null;
        if (c.live() < chunkSize / 4) {
            Chunk next = index.successor(c);
            if (next != null && next.freeze()) {
                drain(next);
                d = next;
            }
        }
        Chunk[] old = d == null ? new Chunk[] {c} : new Chunk[] {c, d};
        int capacity = c.capacity + (d == null ? 0 : d.capacity);
        long[] keyRefs = new long[capacity];
        int[] keyLengths = new int[capacity];
        long[] keyPrefixes = new long[capacity];
        long[] valueRefs = new long[capacity];
        long[] deadKeys = new long[capacity];
        int live = 0;
        int dead = 0;
        for (Chunk chunk : old) {
            for (int e = chunk.first(); e != Chunk.NONE; e = chunk.next(e)) {
                long value = chunk.valueRef(e);
                if (value != 0) {
                    keyRefs[live] = chunk.keyRef(e);
                    keyLengths[live] = chunk.keyLength(e);
                    keyPrefixes[live] = chunk.keyPrefix(e);
                    valueRefs[live++] = value;
                } else {
                    deadKeys[dead++] = chunk.keyRef(e);
                }
            }
        }
        Chunk[] fresh = build(c.minKey, old[old.length - 1].upperKey, keyRefs, keyLengths, keyPrefixes, valueRefs, live);
        index.replace(old, fresh);
        for (Chunk chunk : old) {
            chunk.markReplaced();
        }
        for (int i = 0; i < dead; i++) {
            pool.delete(deadKeys[i]);
        }
    }

    private Chunk[] build(Key min, Key upper, long[] keyRefs, int[] keyLengths, long[] keyPrefixes, long[] valueRefs,
            int count) {
        int perChunk = Math.max(1, chunkSize / 2);
        int chunks = Math.max(1, (count + perChunk - 1) / perChunk);
        Chunk[] fresh = new Chunk[chunks];
        Key lower = min;
        int from = 0;
        for (int i = 0; i < chunks; i++) {
            int to = (int) ((long) count * (i + 1) / chunks);
            Key end = i + 1 < chunks ? keys.copy(keyRefs[to], keyLengths[to]) : upper;
            fresh[i] = new Chunk(lower, end, chunkSize, keyRefs, keyLengths, keyPrefixes, valueRefs, from, to - from);
            lower = end;
            from = to;
        }
        return fresh;
    }

    static void drain(Chunk c) {
        for (int attempt = 0; c.hasPending(); attempt++) {
            Backoff.pause(attempt);
        }
    }

    /**
     * Waits until {@code c} is replaced by its rebalancer. Throws {@link IllegalStateException} once the map is
     * closed: {@code c} may be frozen by the close, which never replaces it.
     */
    void awaitReplaced(Chunk c) {
        for (int attempt = 0; !c.isReplaced(); attempt++) {
            closing.check();
            Backoff.pause(attempt);
        }
    }
}
