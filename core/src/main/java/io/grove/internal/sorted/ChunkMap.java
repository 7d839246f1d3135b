package io.grove.internal.sorted;

import io.grove.SnapshotFootprint;
import io.grove.internal.memory.Pool;
import io.grove.internal.sync.Backoff;
import io.grove.internal.sync.CallRegistry;
import io.grove.internal.sync.ScratchPool;
import io.grove.internal.view.SegmentView;
import io.grove.internal.view.SliceHandle;
import io.grove.serial.Serializer;
import java.util.Arrays;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.IdentityHashMap;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The single-key operations of an ordered map (Oak §4): locate the key's chunk, read its value, or publish there,
 * find or insert the entry and let {@link EntryUpdates} change its value; and the whole map's life cycle.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Notation: {@code s} the calling thread's {@link Scratch} (probe key, views), {@code c} a chunk, {@code e} an
 * entry of it, {@code fresh} a private value slice not yet in any entry.
 *
 * <p>Reads ({@code get}, {@code containsKey}, the zero-copy {@code get}) neither publish nor lock: locate,
 * search, check the chunk was not replaced during the search (Chunk I4: the key bytes read were live), read the
 * entry's value reference (volatile) and the value optimistically ({@link Values#read}: a value an atomic batch
 * claims reads as its batch's replacement once the batch committed, as itself before); a value that left its
 * entry meanwhile sends the read back to the search ({@link #lookUp}). Linearization point: the read of a value
 * reference of 0, or the first header read of a value that then proves stable. A read that meets a frozen chunk
 * needs no help: no entry of it changes until it is replaced, so it shows the map as it was at some moment
 * inside the read.
 *
 * <p>Updates ({@link #update}): (1) make the given value's slice, outside any publish (serializers are user
 * code); an insert that keeps a present value first looks whether the key is present, without publishing; (2)
 * locate the chunk and publish (a frozen chunk: wait for its rebalance and retry); (3) find the entry, or allocate
 * and link one (a full chunk: unpublish, rebalance, retry); an update that already searched the chunk unpublished
 * publishes in that chunk and reuses its search if the chunk is still active (Scratch#searched); (4) change the
 * entry's value ({@link EntryUpdates}: the linearization points are there; a value a pending atomic batch claims
 * sends the update back to step 2 after a pause, unpublished); (5) unpublish, and, if the update left
 * an entry without a value, compact the chunk when its dead entries call for it ({@link Rebalancer#compact}).
 *
 * <p>Every user function runs while its key's value is locked and its chunk is published, and is recorded in
 * {@link #calls} meanwhile (the locked value and the chunk: a CAS to claim a slot and a few plain writes, only
 * around the function, nothing for operations without one). A function that calls the map again does so on the
 * same thread; where the nested call would wait for what its own operation holds, it throws "Recursive update"
 * before changing anything: waiting for the value lock (Values), for the drain of a rebalance of the chunk
 * (checked before freezing it) or for a replacement that waits for that drain (Rebalancer#awaitReplaced), and on
 * {@code close()}. Waits check the registry only after spinning a while, so uncontended paths pay nothing.
 */
final class ChunkMap<K, V> {
    /** What {@link #enterToClaim} returns when the probe's chunk is frozen. */
    static final int FROZEN = -2;
    /** What {@link #enterToClaim} returns when the probe's chunk has no room for its entry. */
    static final int FULL = -3;
    /** The most rounds through the index a sweep of older versions makes when it meets frozen chunks. */
    private static final int SWEEP_ROUNDS = 64;

    final Pool pool;
    final Serializer<K> keySerializer;
    final Values<V> values;
    final Keys keys;
    final ChunkIndex index;
    final Rebalancer rebalancer;
    final EntryUpdates<K, V> entryUpdates;
    private final ScratchPool<Scratch> scratch;
    private final Closing closing = new Closing();
    /** The operations running a user function now: lets a nested call that would wait for itself throw. */
    final CallRegistry calls = new CallRegistry();
    /** The atomic batches that claim values now. */
    final BatchTable batches = new BatchTable();
    /** Whether a sweep left a key a pending batch claimed: the batch's end sweeps again. */
    private volatile boolean sweepOwed;
    /** Sweep requests (snapshot closes) since the running sweep of older versions started; 0 while none runs. */
    private final AtomicInteger sweepRequests = new AtomicInteger();

    ChunkMap(Pool pool, Serializer<K> keySerializer, Serializer<V> valueSerializer, KeyOrder order, int chunkSize,
            boolean versioned, boolean layOut) {
        this.pool = pool;
        this.keySerializer = keySerializer;
        this.values = new Values<>(pool, valueSerializer, closing, calls, batches, versioned);
        this.keys = new Keys(pool, order);
        this.index = new ChunkIndex(new Chunk(null, null, PrefixPlan.contiguous(0),
                Rebalancer.capacityFor(0, chunkSize), new long[0], new int[0], new long[0], new long[0], 0, 0));
        this.rebalancer = new Rebalancer(index, keys, pool, chunkSize, closing, calls, values, layOut);
        this.entryUpdates = new EntryUpdates<>(pool, values, rebalancer, calls);
        this.scratch = new ScratchPool<>(() -> new Scratch(values));
    }

    boolean isOpen() {
        return !closing.isClosed() && !pool.isClosed();
    }

    void checkOpen() {
        closing.check();
        if (pool.isClosed()) {
            throw new IllegalStateException("the map's memory pool is closed");
        }
    }

    /** Marks the map closed; {@code false} if it already was. */
    boolean markClosed() {
        return closing.close();
    }

    /** Takes the thread's scratch with {@code key} serialized as the probe. */
    Scratch begin(K key) {
        checkOpen();
        Objects.requireNonNull(key, "key");
        Scratch s = scratch.acquire();
        try {
            s.setKey(keySerializer, key, pool.maxSliceSize());
        } catch (RuntimeException | Error e) {
            s.release();
            throw e;
        }
        return s;
    }

    // ---- reads

    /**
     * The value reference of the probe's key (a live, non-placeholder value at some moment, which a committed
     * batch may have put there but not yet installed in the entry), or 0.
     */
    long valueRefOf(Scratch s) {
        while (true) {
            long head = headOf(s);
            if (head == 0) {
                return 0;
            }
            long present = values.presentValue(head);
            if (present != -1) {
                return present;
            }
        }
    }

    /**
     * The value reference the probe's key's entry holds (any value: a placeholder, a claimed one...), or 0 if it
     * has no entry or no value.
     */
    private long headOf(Scratch s) {
        if (!s.keyFits()) {
            return 0; // larger than any key slice: not in the map
        }
        while (true) {
            Chunk c = index.locate(keys, s.key(), s.keyLength());
            long window = c.window(keys, s.key(), s.keyLength(), false);
            int e = c.holding(keys, s.key(), s.keyLength(), window);
            if (c.isReplaced()) {
                closing.check(); // a closed map's chunks stay in the index, retired
                continue;
            }
            s.searched = c;
            s.searchedWindow = window;
            return e == Chunk.NONE ? 0 : c.valueRef(e);
        }
    }

    /** The version of the probe's key's value {@code snapshot} reads (see {@link Values#versionAt}), or 0. */
    private long versionRefOf(Scratch s, Snapshot snapshot) {
        for (int attempt = 0; ; attempt++) {
            snapshot.check();
            long head = headOf(s);
            if (head == 0) {
                return 0;
            }
            long version = values.versionAt(head, snapshot);
            if (version != -1) {
                return version;
            }
            Backoff.pause(attempt); // the value left its entry: its writer is still at work, let it run
        }
    }

    /**
     * What a lookup does with the value reference it found: a result, or {@link Values#RETRY} if the value left
     * its entry meanwhile (the lookup then searches again). Implementations capture nothing: no allocation.
     */
    private interface ValueAction {
        Object on(ChunkMap<?, ?> map, Scratch s, long ref);
    }

    /** The value, deserialized ({@code null} if a placeholder took its place: absent). */
    private static final ValueAction READ = (map, s, ref) -> map.values.read(ref, s.valueView);
    /**
     * A handle on the value's bytes. In a map that lays out its pairs for scans the handle outlives the read, so it
     * marks its chunk first ({@link Chunk#handOut}); a chunk found frozen may be rebuilt with its pairs moved, so the
     * lookup waits for its replacement and searches again.
     */
    private static final ValueAction HANDLE = (map, s, ref) -> {
        if (map.rebalancer.laysOut() && !s.searched.handOut()) {
            return map.awaitReplaced(s.searched);
        }
        try {
            return new SliceHandle(map.pool, map.values).pointAt(ref, map.values.headerSize, -1, ValueHeader.STAMP);
        } catch (ConcurrentModificationException gone) {
            return Values.RETRY;
        }
    };
    /** Waits until frozen chunk {@code c} is replaced; {@link Values#RETRY}: search again. */
    private Object awaitReplaced(Chunk c) {
        rebalancer.awaitReplaced(c);
        return Values.RETRY;
    }

    /** Only that the key is present. */
    private static final ValueAction PRESENCE = (map, s, ref) -> Boolean.TRUE;

    /**
     * Looks up the probe's key and applies {@code action} to its value, again from the search as long as the
     * value leaves its entry in between: the action's result, or {@code null} if the key is absent.
     */
    private Object lookUp(Scratch s, ValueAction action) {
        for (int attempt = 0; ; attempt++) {
            long ref = valueRefOf(s);
            if (ref == 0) {
                return null;
            }
            Object result = action.on(this, s, ref);
            if (result != Values.RETRY) {
                return result;
            }
            Backoff.pause(attempt);
        }
    }

    /** The value of {@code key}, now or ({@code snapshot} not null) as {@code snapshot} sees it. */
    V get(K key, Snapshot snapshot) {
        Scratch s = begin(key);
        try {
            return snapshot == null ? get(s) : get(s, snapshot);
        } finally {
            s.release();
        }
    }

    @SuppressWarnings("unchecked")
    private V get(Scratch s, Snapshot snapshot) {
        while (true) {
            long version = versionRefOf(s, snapshot);
            if (version == 0) {
                return null;
            }
            Object value = values.readVersion(version, s.valueView);
            if (value != Values.RETRY) {
                return (V) value;
            }
        }
    }

    @SuppressWarnings("unchecked")
    private V get(Scratch s) {
        return (V) lookUp(s, READ);
    }

    boolean containsKey(K key, Snapshot snapshot) {
        Scratch s = begin(key);
        try {
            return (snapshot == null ? valueRefOf(s) : versionRefOf(s, snapshot)) != 0;
        } finally {
            s.release();
        }
    }

    /**
     * A handle on the value of {@code key}, now (under the value's stamp) or ({@code snapshot} not null) as
     * {@code snapshot} sees it (under its lease); {@code null} if absent.
     */
    SliceHandle handle(K key, Snapshot snapshot) {
        Scratch s = begin(key);
        try {
            return snapshot == null ? (SliceHandle) lookUp(s, HANDLE) : handle(s, snapshot);
        } finally {
            s.release();
        }
    }

    private SliceHandle handle(Scratch s, Snapshot snapshot) {
        long version = versionRefOf(s, snapshot);
        if (version == 0) {
            return null;
        }
        try {
            return new SliceHandle(pool, snapshot).pointAt(version, values.headerSize, -1, SliceHandle.NO_STAMP);
        } catch (ConcurrentModificationException gone) {
            snapshot.check(); // a snapshot's versions are freed only once it is closed
            throw gone;
        }
    }

    // ---- updates

    /**
     * Runs {@code op} on {@code key} with the arguments it uses (see {@link Update}: the given {@code value}, the
     * {@code expected} one, the user's {@code function}); returns what {@code op} returns.
     */
    Object update(K key, Update op, V value, V expected, Object function) {
        Scratch s = begin(key);
        long fresh = 0;
        try {
            if (op.ifAbsent == Update.IfAbsent.INSERT) {
                Objects.requireNonNull(value, "value");
                if (op.looksFirst()) {
                    Object present = lookUp(s, op.readsValue() ? READ : PRESENCE);
                    if (present != null) { // (null: absent, or a placeholder: go on to the locked path)
                        return op.result(true, present, present, false);
                    }
                }
                fresh = values.write(value, s.writeView);
            }
            for (int attempt = 0; ; attempt++) {
                int e = enter(s, op.inserts());
                if (e == Chunk.NONE) {
                    return op.result(false, null, null, false);
                }
                Chunk c = s.chunk;
                EntryUpdates.Outcome outcome = s.outcome;
                outcome.reset();
                Object result;
                try {
                    result = entryUpdates.apply(s, c, e, op, key, value, expected, function, fresh);
                } finally {
                    c.unpublish();
                    if (outcome.freshUsed) {
                        fresh = 0;
                    }
                    if (outcome.compact) {
                        rebalancer.compact(c);
                    }
                }
                if (result != EntryUpdates.WAIT_FOR_BATCH) {
                    return result;
                }
                Backoff.pause(attempt); // a pending batch claims the value: it commits or gives up soon
            }
        } finally {
            if (fresh != 0) {
                pool.deletePrivate(fresh);
            }
            s.release();
        }
    }

    /**
     * Locates the probe's chunk, publishes there and finds the entry, inserting it if {@code create}: the entry
     * (published in {@code s.chunk}), or {@link Chunk#NONE} if absent and not created (nothing published).
     */
    private int enter(Scratch s, boolean create) {
        if (!s.keyFits()) {
            if (create) {
                throw s.keyTooLarge(pool.maxSliceSize(), "a key takes one slice of the pool");
            }
            return Chunk.NONE;
        }
        Chunk searched = create ? s.searched : null;
        s.searched = null;
        while (true) {
            // A chunk this operation searched and that is still active is the probe's chunk (an active chunk is
            // in the index), and the window found there is still valid (Chunk.link): no need to search again.
            boolean reuse = searched != null;
            Chunk c = reuse ? searched : index.locate(keys, s.key(), s.keyLength());
            searched = null;
            if (!c.publish()) {
                rebalancer.awaitReplaced(c);
                continue;
            }
            int e;
            boolean full = false;
            try {
                long window = reuse ? s.searchedWindow : c.window(keys, s.key(), s.keyLength(), false);
                e = c.holding(keys, s.key(), s.keyLength(), window);
                if (e == Chunk.NONE && create) {
                    e = insertEntry(s, c, window);
                    full = e == Chunk.NONE;
                }
            } catch (RuntimeException | Error t) {
                c.unpublish();
                throw t;
            }
            if (full) {
                // unpublished before the rebalance, which waits for the chunk's writers (and, once the map is
                // closed, throws: outside the try above, whose unpublish would then be a second one)
                c.unpublish();
                rebalancer.rebalance(c);
                continue;
            }
            if (e == Chunk.NONE) {
                c.unpublish();
                return Chunk.NONE;
            }
            s.chunk = c;
            return e;
        }
    }

    /**
     * As {@link #enter} with {@code create}, for an atomic batch that holds claims and so must not wait for a
     * rebalance: the entry (published in {@code s.chunk}); {@link #FROZEN} if the probe's chunk is frozen, or
     * {@link #FULL} if it has no room for the entry (nothing published; {@code s.chunk} is that chunk).
     */
    int enterToClaim(Scratch s) {
        Chunk c = index.locate(keys, s.key(), s.keyLength());
        s.chunk = c;
        if (!c.publish()) {
            return FROZEN;
        }
        try {
            long window = c.window(keys, s.key(), s.keyLength(), false);
            int e = c.holding(keys, s.key(), s.keyLength(), window);
            if (e == Chunk.NONE) {
                e = insertEntry(s, c, window);
            }
            if (e == Chunk.NONE) {
                c.unpublish();
                return FULL;
            }
            return e;
        } catch (RuntimeException | Error t) {
            c.unpublish();
            throw t;
        }
    }

    /**
     * As {@link #enter} without {@code create}, for a committed batch installing its values: waits for
     * rebalances even once the map is closing, since the close waits for running batches before it freezes any
     * chunk (every frozen chunk is then being rebalanced and gets replaced).
     */
    int enterToInstall(Scratch s) {
        while (true) {
            Chunk c = index.locate(keys, s.key(), s.keyLength());
            if (!c.publish()) {
                for (int attempt = 0; !c.isReplaced(); attempt++) {
                    Backoff.pause(attempt);
                }
                continue;
            }
            int e;
            try {
                e = c.holding(keys, s.key(), s.keyLength(), c.window(keys, s.key(), s.keyLength(), false));
            } catch (RuntimeException | Error t) {
                c.unpublish();
                throw t;
            }
            if (e == Chunk.NONE) {
                c.unpublish();
            }
            s.chunk = c;
            return e;
        }
    }

    /**
     * Makes sure the probe's key has an entry that a rebalance keeps, rebalancing if needed: if it has no value, it
     * gets an unlocked placeholder, which every update treats as an absent key. Holds nothing after; returns
     * whether it placed a placeholder.
     */
    boolean ensurePlaceholder(Scratch s) {
        int e = enter(s, true);
        Chunk c = s.chunk;
        try {
            if (c.valueRef(e) != 0) {
                return false;
            }
            long placeholder = values.placeholder(ValueHeader.UNLOCKED_PLACEHOLDER);
            if (c.casValue(e, 0, placeholder)) {
                c.addLive(1); // (a batch's placeholder counts as live: see EntryUpdates)
                return true;
            }
            pool.deletePrivate(placeholder);
            return false;
        } finally {
            c.unpublish();
        }
    }

    /** A scratch for an operation that sets its probe from key bytes ({@link Scratch#setKeyBytes}). */
    Scratch scratch() {
        return scratch.acquire();
    }

    /**
     * Allocates and links an entry for the probe, starting from its {@code window} in {@code c}: the entry holding
     * the key, or NONE if the chunk is full.
     */
    private int insertEntry(Scratch s, Chunk c, long window) {
        long keyRef = pool.allocate(s.keyLength());
        java.lang.foreign.MemorySegment.copy(s.key(), 0, pool.segment(keyRef), pool.payloadOffset(keyRef),
                s.keyLength());
        int e = Chunk.NONE;
        try {
            int slot = c.allocate(keyRef, s.keyLength(), c.prefixOf(keys, s.key(), 0, s.keyLength()));
            if (slot == Chunk.NONE) {
                return Chunk.NONE;
            }
            e = c.link(keys, s.key(), s.keyLength(), slot, window);
            return e;
        } finally {
            if (e == Chunk.NONE || c.keyRef(e) != keyRef) {
                // full chunk, a comparator that threw, or another thread linked the key first (the slot stays
                // unlinked): the key slice was never seen by another thread
                pool.deletePrivate(keyRef);
            }
        }
    }

    // ---- keys and scans

    /** {@code key} serialized on the heap (for bounds and range checks). */
    Key keyOf(K key) {
        Objects.requireNonNull(key, "key");
        return Key.of(keySerializer, key, pool.maxSliceSize());
    }

    /** Deserializes a key from heap bytes. */
    K readKey(java.lang.foreign.MemorySegment segment, int length) {
        SegmentView view = new SegmentView().open(segment, 0, length, false);
        try {
            return keySerializer.read(view);
        } finally {
            view.close();
        }
    }

    /** A cursor over the range, reading the values now or ({@code snapshot} not null) as {@code snapshot} sees them. */
    Cursor cursor(Snapshot snapshot, boolean descending, boolean copyKeys, Key lo, boolean loInclusive, Key hi,
            boolean hiInclusive) {
        checkOpen();
        if (snapshot != null) {
            snapshot.check();
        }
        return new Cursor(keys, index, rebalancer, values, closing, snapshot, descending, copyKeys, lo, loInclusive,
                hi, hiInclusive);
    }

    /**
     * The value of the cursor's current entry: the one it had when the cursor reached it or, if that one left the
     * entry since, the key's value now; {@code null} if the key was removed meanwhile.
     */
    @SuppressWarnings("unchecked")
    V currentValue(Cursor cursor) {
        Scratch s = scratch.acquire();
        try {
            Snapshot snapshot = cursor.snapshot;
            Object value = snapshot == null ? values.read(cursor.valueRef(), s.valueView)
                    : values.readVersion(cursor.valueRef(), s.valueView);
            if (value != Values.RETRY) {
                return (V) value;
            }
            s.setKeyBytes(cursor.keySegment(), cursor.keyLength());
            return snapshot == null ? get(s) : get(s, snapshot);
        } finally {
            s.release();
        }
    }

    // ---- whole map

    /** The number of entries with values, summed over the chunks of one index snapshot. */
    long size() {
        checkOpen();
        long n = 0;
        for (Chunk c : index.snapshot()) {
            n += c.live();
        }
        return n;
    }

    long heapFootprint() {
        checkOpen();
        Chunk[] chunks = index.snapshot();
        long bytes = 16L + chunks.length * 8L;
        for (Chunk c : chunks) {
            bytes += c.heapBytes();
        }
        return bytes;
    }

    /**
     * Deletes every key and value slice of the map, on close (after {@link #markClosed}), while operations may
     * still run. Each chunk is frozen for good first (a chunk a rebalancer froze is waited for and its
     * replacements taken instead), and its writers are drained: no entry or value is linked into it afterwards,
     * and later writers, which cannot publish, throw ({@link Rebalancer#awaitReplaced}). Then the chunk is retired
     * (marked replaced) before any of its keys is deleted (Chunk I4): a reader or scan that copied a key meanwhile
     * finds the chunk replaced after the copy, drops what it read and, looking again, finds the map closed and
     * throws. Each value is deleted under its lock, so an in-place update that holds it finishes first and nobody
     * writes into memory the pool hands to another map; writers that come later find the value gone and throw
     * ({@link Closing}).
     */
    void freeAll() {
        batches.awaitNone(); // (batches that start from now on find the map closed: BatchUpdates#begin)
        Set<Chunk> freed = Collections.newSetFromMap(new IdentityHashMap<>());
        boolean replacedMeanwhile;
        do {
            replacedMeanwhile = false;
            for (Chunk c : index.snapshot()) {
                if (freed.contains(c)) {
                    continue;
                }
                if (!c.freeze()) { // a rebalancer has it: its replacements come into the index
                    for (int attempt = 0; !c.isReplaced(); attempt++) {
                        Backoff.pause(attempt); // parks in the end: the rebalancer may be a virtual thread
                    }
                    replacedMeanwhile = true;
                    continue;
                }
                Rebalancer.drain(c);
                c.markReplaced();
                freeEntries(c);
                freed.add(c);
            }
        } while (replacedMeanwhile);
    }

    private void freeEntries(Chunk c) {
        for (int e = c.first(); e != Chunk.NONE; e = c.next(e)) {
            pool.delete(c.keyRef(e));
            long value = c.valueRef(e);
            if (value != 0) {
                long locked = values.lockUnlessGone(value); // (no batch claims a value once the batches ended)
                if (locked >= 0) {
                    long older = values.versions != null ? values.versions.previous(value) : 0;
                    values.retire(value, locked);
                    if (older != 0) {
                        values.versions.free(older);
                    }
                }
            }
        }
    }

    // ---- snapshots

    /** Opens a snapshot of the map as it is now (a map built to take snapshots). */
    Snapshot openSnapshot() {
        checkOpen();
        if (values.versions == null) {
            throw new IllegalStateException("the map was not built to take snapshots: build it with "
                    + "GroveSortedMap.Builder.snapshots()");
        }
        SnapshotRegistry registry = values.versions.registry;
        int slot = registry.register();
        return new Snapshot(this, slot, registry.timeOf(slot));
    }

    /**
     * What the open snapshots hold ({@link SnapshotFootprint}); all zero for a map that takes no snapshots. Walks
     * the entries of the chunks that noted older versions.
     */
    SnapshotFootprint snapshotFootprint() {
        checkOpen();
        Versions versions = values.versions;
        if (versions == null) {
            return new SnapshotFootprint(0, 0, 0, 0, 0);
        }
        SnapshotRegistry registry = versions.registry;
        int open = registry.openCount();
        long oldest = registry.oldestAfter(0);
        long nextOldest = oldest == Long.MAX_VALUE ? Long.MAX_VALUE : registry.oldestAfter(oldest);
        Versions.Tally tally = new Versions.Tally(oldest, nextOldest);
        for (Chunk c : index.snapshot()) {
            if (c.mayHoldVersions()) {
                for (int e = c.first(); e != Chunk.NONE; e = c.next(e)) {
                    long head = c.valueRef(e);
                    if (head != 0) {
                        versions.tally(head, tally);
                    }
                }
            }
        }
        long age = oldest == Long.MAX_VALUE ? 0 : SnapshotRegistry.now() - oldest;
        return new SnapshotFootprint(open, age, tally.versions, tally.bytes, tally.pinnedByOldest);
    }

    /**
     * Closes a snapshot's registration, then frees the versions no open snapshot reads any more
     * ({@link #requestSweep}).
     */
    void closeSnapshot(int slot) {
        values.versions.registry.deregister(slot);
        requestSweep();
    }

    /**
     * After an atomic batch ended: sweeps again if a sweep met one of the batch's pending claims and left that key
     * (a sweep does not wait for a batch, which may take a millisecond to give its claims up).
     */
    void sweepAfterBatch() {
        if (sweepOwed) {
            sweepOwed = false;
            requestSweep();
        }
    }

    /**
     * Runs a sweep of older versions ({@link #sweepVersions}), or has the running sweeper run another; not from
     * inside a user function (the sweep could wait for the function's own lock): the next request or write sees to
     * the versions then.
     */
    private void requestSweep() {
        if (closing.isClosed() || pool.isClosed() || calls.callerInside()) {
            return;
        }
        // One sweeper at a time, and a sweep after every request: a request during a sweep makes the sweeper go
        // round again (a closing snapshot may still have read entries the sweep left, and noted again, before).
        if (sweepRequests.getAndIncrement() != 0) {
            return;
        }
        for (int seen = 1; ; ) {
            sweepVersions();
            if (sweepRequests.compareAndSet(seen, 0)) {
                return;
            }
            seen = sweepRequests.get();
        }
    }

    /**
     * Frees the versions and tombstones no open snapshot reads ({@link Versions#prune}) in the entries each chunk
     * noted as holding older versions ({@link VersionedEntries}), each under its key's value lock, published in the
     * chunk like an update (installing a committed batch's value as updates do; a key a pending batch claims stays
     * noted, and the batch's end asks for another sweep). A chunk frozen meanwhile is passed, and the sweep goes
     * through the index again once that round ends: the rebalance notes the entries in the replacements
     * ({@link Rebalancer}); after {@value #SWEEP_ROUNDS} rounds that each met a frozen chunk, what is left waits for
     * the next sweep or write of the key. The index is walked only if an entry was noted since the last sweep began
     * ({@link Versions#takeNoted}): a close with no writer keeping versions costs O(1).
     */
    private void sweepVersions() {
        if (!values.versions.takeNoted()) {
            return; // nothing noted since the last sweep began: no need to walk the index
        }
        Scratch s = scratch.acquire();
        try {
            EntrySweep sweep = new EntrySweep(s);
            boolean passed = true;
            for (int round = 0; passed && round < SWEEP_ROUNDS; round++) {
                passed = false;
                for (Chunk c : index.snapshot()) {
                    passed |= !sweep.chunk(c);
                }
            }
        } finally {
            s.release();
        }
    }

    /** One sweep's visits of noted entries, and the entries it leaves with versions, to note again. */
    private final class EntrySweep implements VersionedEntries.Visit {
        private final Scratch s;
        private Chunk chunk;
        private int[] left = new int[16];
        private int leftCount;

        EntrySweep(Scratch s) {
            this.s = s;
        }

        /** Sweeps chunk {@code c}'s noted entries; {@code false} if it is frozen (its replacements note them). */
        boolean chunk(Chunk c) {
            if (!c.mayHoldVersions()) {
                return true;
            }
            if (!c.publish()) {
                return false;
            }
            chunk = c;
            leftCount = 0;
            s.outcome.reset();
            try {
                VersionedEntries noted = c.versioned();
                if (noted.takeAll()) {
                    for (int e = c.first(); e != Chunk.NONE; e = c.next(e)) {
                        entry(e);
                    }
                }
                noted.take(this);
                for (int i = 0; i < leftCount; i++) {
                    values.versions.note(c, left[i]);
                }
            } finally {
                c.unpublish();
            }
            if (s.outcome.compact) {
                rebalancer.compact(c);
            }
            return true;
        }

        @Override
        public void entry(int e) {
            if (sweep(s, chunk, e)) {
                if (leftCount == left.length) {
                    left = Arrays.copyOf(left, 2 * leftCount);
                }
                left[leftCount++] = e;
            }
        }
    }

    /**
     * Unlinks and frees the older versions of entry {@code e}'s value that no open snapshot reads, and takes out a
     * tombstone that then hides nothing; returns whether older versions are left.
     */
    private boolean sweep(Scratch s, Chunk c, int e) {
        Versions versions = values.versions;
        long head;
        long locked;
        boolean owed = false;
        while (true) { // as an update does (EntryUpdates#apply), but not waiting for a pending batch
            head = c.valueRef(e);
            if (head == 0 || versions.previous(head) == 0) {
                return false;
            }
            locked = values.lockUnlessGone(head);
            if (locked == Values.CLAIMED_COMMITTED) {
                long next = values.replacementOf(head);
                if (next != -1) {
                    s.outcome.compact |= entryUpdates.install(c, e, head, next);
                }
            } else if (locked == Values.WAIT) {
                // A pending batch claims it: its end sweeps again (#sweepAfterBatch). Asked first, then looked again,
                // so either the batch is still running and will see the request, or its claim is gone now.
                if (owed) {
                    return true;
                }
                sweepOwed = true;
                owed = true;
            } else if (locked != -1) {
                break;
            }
        }
        boolean tombstone = versions.isTombstone(head, locked);
        versions.prune(head, false);
        if (tombstone && versions.previous(head) == 0) { // (a tombstone stays one only while it hides something)
            c.casValue(e, head, 0);
            values.retire(head, locked);
            c.addTombstones(-1);
            s.outcome.compact |= rebalancer.shouldCompact(c);
            return false;
        }
        values.restore(head, locked - 1); // (the value did not change)
        return versions.previous(head) != 0;
    }
}
