package io.grove.internal.sorted;

import io.grove.internal.memory.Pool;
import io.grove.internal.sync.Backoff;
import io.grove.internal.sync.CallRegistry;
import io.grove.internal.view.SegmentView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Atomic batches of puts and removals on an ordered map: every reader, scan and writer sees all of a batch or none
 * of it (the semantics of "Jiffy: A Lock-free Skip List with Batch Updates and Snapshots", §3, on values that
 * live off heap).
 *
 * <h2>Implementation notes</h2>
 *
 * <p>First, before anything is shared, the batch serializes its keys (rejecting one too large) and sorts them in
 * the map's order, keeps the last operation of each key, and writes each new value into a private slice: every
 * failure of a batch's input (or {@code GroveOutOfMemoryException} for its values) comes before the map changes.
 *
 * <p>Protocol, per attempt ({@link Batch}): (1) <b>claim</b>, in key order: publish in the key's chunk, find its
 * entry or insert one, and CAS the value's header from unlocked to claimed by the attempt ({@link ValueHeader}: a
 * flag and the attempt's id in {@link BatchTable}); an absent key gets a claimed placeholder, so that no other
 * update can give it a value meanwhile (a removal of an absent key claims one too: a put slipping in before the
 * commit would otherwise survive the batch). Unpublish. (2) <b>commit</b>: one release store of the attempt's
 * status, its linearization point; the replacement of each claimed value was recorded before. (3) <b>install</b>,
 * in key order: publish in the chunk where the claim found the entry if that chunk is still active (an active
 * chunk's entries keep their keys; else search again), CAS the entry from the claimed value to its replacement (or
 * to 0), retire the claimed value (deleted flag, then Nova delete), unpublish. (4) Free the attempt's slot, then
 * compact the chunks that removals left sparse (after the slot: a compaction throws once the map is closed, and the
 * close waits for every slot before it frees anything).
 *
 * <p>Readers never wait for a batch ({@link Values#read}, {@link Values#presentLength}, the handles'
 * {@link Values#readableWhileHeld}): a claimed value reads as it is while its batch is pending, since the batch
 * never writes it, and as the batch's replacement once the batch committed, installed or not. So the value a key
 * shows changes only at the commit: before it, the claimed value, which no one else can change; after it, the
 * replacement. Writers that meet a pending claim unpublish and wait ({@link EntryUpdates#WAIT_FOR_BATCH}); a
 * committed claim they install themselves first ({@link EntryUpdates#install}), published where they are, so no
 * thread waits for a committed batch and its install never waits for anything but rebalances, which finish.
 *
 * <p>Deadlock freedom. A user function runs holding its key's value locked and its chunk published, and may call
 * the map: a write from it to a key this batch claims waits for the batch. So a batch that holds claims never
 * waits without bound: for a value another thread holds or a chunk being rebalanced (a rebalance drains the
 * chunk's operations, maybe such a function) it waits at most {@link #PATIENCE} back-off steps, about a
 * millisecond, and a chunk too full for a new entry it does not rebalance itself; then it <b>aborts</b>: it writes
 * back the header of every value it claimed (stores: nothing to wait for; a placeholder it inserted stays in its
 * entry unlocked, which every update treats as an absent key and takes out), frees the slot, waits for what stopped
 * it or does it (the rebalance; for a full chunk, it gives every key from there on an entry with a placeholder,
 * {@link ChunkMap#ensurePlaceholder}) without holding anything, and starts a new attempt from the first key.
 * Before the commit the claimed values never changed, so an abort leaves the map as it was. A batch cannot be
 * applied from inside a user function of the map (it could wait for itself).
 */
final class BatchUpdates<K, V> {
    /** Back-off steps a batch holding claims waits for a value or a chunk before it gives its claims up. */
    static final int PATIENCE = 160;

    private final ChunkMap<K, V> map;
    private final Pool pool;
    private final Values<V> values;

    BatchUpdates(ChunkMap<K, V> map) {
        this.map = map;
        this.pool = map.pool;
        this.values = map.values;
    }

    /** Why an attempt stopped claiming. */
    private enum Stop { DONE, BUSY, FROZEN, FULL }

    /**
     * Applies the puts ({@code values.get(i)} at {@code keys.get(i)}) and removals (where the value is
     * {@code null}) atomically; of several operations on one key, the last counts.
     */
    void apply(List<K> keyList, List<V> valueList) {
        map.checkOpen();
        if (map.calls.callerInside()) {
            throw CallRegistry.recursiveUpdate("an atomic batch applied from a function passed to an operation on "
                    + "this map; the batch could wait for that function to return");
        }
        Prepared p = prepare(keyList, valueList);
        if (p.count == 0) {
            return;
        }
        try {
            run(p);
        } finally {
            if (!p.committed) {
                for (int i = 0; i < p.count; i++) {
                    if (p.fresh[i] != 0) {
                        pool.deletePrivate(p.fresh[i]);
                    }
                }
                dropPlaceholders(p, keyList);
            }
            map.sweepAfterBatch();
        }
    }

    /** The keys serialized and sorted, the last operation of each, and its value's private slice (0: a removal). */
    private static final class Prepared {
        Key[] keys;
        /** Where each key's operation is in the lists the batch was given. */
        int[] source;
        long[] fresh;
        int count;
        /** Set at the commit: the fresh values belong to the map from then on. */
        boolean committed;
        /**
         * Per key: the value the current attempt claimed, the header it had, whether the batch placed a placeholder
         * there, and the chunk and entry where it claimed it (the install finds the entry there while that chunk
         * is active: an active chunk's entries keep their keys).
         */
        long[] claimed;
        long[] headers;
        boolean[] placedPlaceholder;
        Chunk[] chunks;
        int[] entries;
    }

    private Prepared prepare(List<K> keyList, List<V> valueList) {
        int n = keyList.size();
        Key[] serialized = new Key[n];
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            serialized[i] = Key.of(map.keySerializer, keyList.get(i), pool.maxSliceSize());
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> map.keys.compareBounds(serialized[a], serialized[b])); // stable
        Prepared p = new Prepared();
        p.keys = new Key[n];
        p.source = new int[n];
        p.fresh = new long[n];
        int count = 0;
        for (int j = 0; j < n; j++) {
            int i = order[j];
            if (j + 1 < n && map.keys.compareBounds(serialized[i], serialized[order[j + 1]]) == 0) {
                continue; // a later operation on the same key replaces this one
            }
            p.keys[count] = serialized[i];
            p.source[count++] = i;
        }
        p.count = count;
        p.claimed = new long[count];
        p.headers = new long[count];
        p.placedPlaceholder = new boolean[count];
        p.chunks = new Chunk[count];
        p.entries = new int[count];
        try {
            SegmentView view = new SegmentView();
            for (int k = 0; k < count; k++) {
                V value = valueList.get(p.source[k]);
                if (value != null) {
                    p.fresh[k] = values.write(value, view);
                } else if (values.versions != null) {
                    p.fresh[k] = values.placeholder(ValueHeader.UNLOCKED_PLACEHOLDER); // a tombstone, if needed
                }
            }
        } catch (RuntimeException | Error e) {
            for (int k = 0; k < count; k++) {
                if (p.fresh[k] != 0) {
                    pool.deletePrivate(p.fresh[k]);
                }
            }
            throw e;
        }
        return p;
    }

    /** Runs attempts until one commits; returns once its values are installed. */
    private void run(Prepared p) {
        Scratch s = map.scratch();
        try {
            for (int restarts = 0; ; restarts++) {
                Batch batch = map.batches.begin(p.count);
                int claimed = 0;
                Stop stop = Stop.DONE;
                Chunk stoppedAt = null;
                try {
                    map.checkOpen(); // after taking the slot: a close that missed the slot is seen here
                    for (; claimed < p.count; claimed++) {
                        stop = claim(s, batch, p, claimed);
                        if (stop != Stop.DONE) {
                            stoppedAt = s.chunk;
                            break;
                        }
                    }
                } finally {
                    if (stop != Stop.DONE || claimed < p.count) {
                        abort(batch, p, claimed);
                    }
                }
                if (stop == Stop.DONE) {
                    commit(s, batch, p);
                    p.committed = true;
                    List<Chunk> compact = install(s, p);
                    map.batches.end(batch);
                    for (Chunk c : compact) { // after the end: a compaction can throw once the map is closed
                        map.rebalancer.compact(c);
                    }
                    return;
                }
                switch (stop) {
                    case FROZEN -> map.rebalancer.awaitReplaced(stoppedAt);
                    case FULL -> ensureEntries(s, p, claimed);
                    default -> Backoff.pause(PATIENCE + ThreadLocalRandom.current().nextInt(Math.min(restarts, 8) + 1));
                }
            }
        } finally {
            s.release();
        }
    }

    /**
     * Records each claimed value's replacement and commits. In a map that takes snapshots, the batch's values all
     * get the commit time, read between {@link Batch#beginCommit} and the commit (see {@link Batch}), and each
     * keeps the value it replaces as its previous version if a snapshot older than the commit is open
     * ({@link Versions}; that a value's previous is the claimed value tells the install it is kept); a removal
     * then leaves a tombstone, else it leaves no value and its tombstone slice is dropped. The values are still
     * private: readers reach them only once the status is {@code COMMITTED}.
     */
    private void commit(Scratch s, Batch batch, Prepared p) {
        Versions versions = values.versions;
        if (versions == null) {
            for (int i = 0; i < p.count; i++) {
                batch.add(p.claimed[i], p.fresh[i]);
            }
            batch.commit(0);
            return;
        }
        batch.beginCommit();
        long time = SnapshotRegistry.now();
        boolean olderOpen = versions.olderSnapshotOpen(s, time);
        for (int i = 0; i < p.count; i++) {
            long claimed = p.claimed[i];
            long fresh = p.fresh[i];
            versions.setVersion(fresh, time);
            if (olderOpen && versions.hasHistory(claimed, p.headers[i])) {
                versions.setPrevious(fresh, claimed);
                versions.prune(fresh, true); // (the claim makes this batch the owner of the claimed value's chain)
            } else {
                versions.free(versions.previous(claimed)); // no open snapshot reads it, nor can a later one
                versions.setPrevious(claimed, 0);
            }
            if (ValueHeader.isPlaceholder(values.header(fresh)) && versions.previous(fresh) == 0) {
                pool.deletePrivate(fresh); // a tombstone that hides nothing any snapshot reads
                fresh = 0;
                p.fresh[i] = 0;
            }
            batch.add(claimed, fresh);
        }
        batch.commit(time);
    }

    /** Claims key {@code i} for {@code batch}: {@link Stop#DONE}, or why not (see the class notes). */
    private Stop claim(Scratch s, Batch batch, Prepared p, int i) {
        Key key = p.keys[i];
        for (int wait = 0; ; ) {
            s.setKeyBytes(key.segment(), key.length());
            int e = map.enterToClaim(s);
            Chunk c = s.chunk;
            if (e == ChunkMap.FULL) {
                return Stop.FULL;
            }
            if (e == ChunkMap.FROZEN) {
                if (c.isReplaced()) {
                    continue;
                }
                if (wait >= PATIENCE) {
                    return Stop.FROZEN;
                }
                Backoff.pause(wait++);
                continue;
            }
            long header;
            long old;
            try {
                old = c.valueRef(e);
                if (old == 0) {
                    long placeholder =
                            values.placeholder(ValueHeader.claimedBy(batch.id, ValueHeader.UNLOCKED_PLACEHOLDER));
                    if (!c.casValue(e, 0, placeholder)) {
                        pool.deletePrivate(placeholder);
                        continue; // another update gave the key a value first
                    }
                    c.addLive(1); // (a batch's placeholder counts as live: see EntryUpdates)
                    p.headers[i] = ValueHeader.UNLOCKED_PLACEHOLDER;
                    p.placedPlaceholder[i] = true;
                    return claimed(p, i, placeholder, c, e);
                }
                header = values.claim(old, batch.id);
                if (header == Values.CLAIMED_COMMITTED) {
                    long next = values.replacementOf(old);
                    if (next != -1) {
                        map.entryUpdates.install(c, e, old, next); // (no compaction here: it would wait)
                    }
                    continue;
                }
            } finally {
                c.unpublish();
            }
            if (header == -1) {
                continue; // the value left the entry
            }
            if (header == Values.WAIT) {
                if (wait >= PATIENCE) {
                    return Stop.BUSY;
                }
                Backoff.pause(wait++);
                continue;
            }
            p.headers[i] = header;
            return claimed(p, i, old, c, e);
        }
    }

    private static Stop claimed(Prepared p, int i, long ref, Chunk c, int e) {
        p.claimed[i] = ref;
        p.chunks[i] = c;
        p.entries[i] = e;
        return Stop.DONE;
    }

    /** Gives up the claims of keys {@code 0..claimed-1}: writes their headers back, then frees the slot. */
    private void abort(Batch batch, Prepared p, int claimed) {
        batch.abort();
        for (int i = claimed - 1; i >= 0; i--) {
            values.restore(p.claimed[i], p.headers[i]);
        }
        map.batches.end(batch);
    }

    /**
     * After an attempt found a full chunk at key {@code from}: gives the keys from there on an entry with a value
     * or a placeholder, which rebalances keep (an entry without a value would be dropped by the next one), so the
     * next attempt finds them all.
     */
    private void ensureEntries(Scratch s, Prepared p, int from) {
        for (int i = from; i < p.count; i++) {
            s.setKeyBytes(p.keys[i].segment(), p.keys[i].length());
            p.placedPlaceholder[i] |= map.ensurePlaceholder(s);
        }
    }

    /**
     * Installs the committed values, key by key, unless a writer of the key did it first; returns the chunks that
     * should then be compacted.
     */
    private List<Chunk> install(Scratch s, Prepared p) {
        List<Chunk> compact = List.of();
        for (int i = 0; i < p.count; i++) {
            Chunk c = p.chunks[i];
            int e = p.entries[i];
            if (!c.publish()) { // rebalanced since the claim: find the entry again
                s.setKeyBytes(p.keys[i].segment(), p.keys[i].length());
                e = map.enterToInstall(s);
                if (e == Chunk.NONE) {
                    continue; // installed by a writer, and the entry compacted away since
                }
                c = s.chunk;
            }
            try {
                if (map.entryUpdates.install(c, e, p.claimed[i], p.fresh[i])) {
                    compact = compact.isEmpty() ? new ArrayList<>() : compact;
                    compact.add(c);
                }
            } finally {
                c.unpublish();
            }
        }
        return compact;
    }

    /**
     * After the batch failed: takes out the placeholders its attempts inserted and left unlocked when they gave up
     * (best effort: on a map closed meanwhile the close frees them).
     */
    private void dropPlaceholders(Prepared p, List<K> keyList) {
        for (int i = 0; i < p.count; i++) {
            if (p.placedPlaceholder[i]) {
                try {
                    map.update(keyList.get(p.source[i]), Update.DROP_PLACEHOLDER, null, null, null);
                } catch (IllegalStateException closed) {
                    return;
                }
            }
        }
    }
}
