package io.grove.internal.sorted;

import io.grove.internal.memory.Pool;
import io.grove.internal.sync.Backoff;
import io.grove.internal.sync.CallRegistry;
import io.grove.internal.view.SegmentView;
import io.grove.internal.view.SliceHandle;
import io.grove.internal.view.SliceResizer;
import io.grove.serial.Serializer;
import io.grove.view.ResizableView;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.IdentityHashMap;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The single-key operations of an ordered map (Oak §4): locate the key's chunk, publish there, find or insert the
 * entry, and change its value under the value's lock.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Notation: {@code s} the calling thread's {@link Scratch} (probe key, views), {@code c} a chunk, {@code e} an
 * entry of it, {@code old} the value reference an entry held when read, {@code locked} the header under which
 * the caller holds a value's lock, {@code fresh} a private value slice not yet in any entry.
 *
 * <p>Reads ({@code get}, {@code containsKey}, the zero-copy {@code get}) neither publish nor lock: locate,
 * search, check the chunk was not replaced during the search (Chunk I4: the key bytes read were live), read the
 * entry's value reference (volatile) and the value optimistically ({@link Values#read}). Linearization point: the
 * read of a value reference of 0, or the first header read of a value that then proves stable. A read that meets a
 * frozen chunk needs no help: no entry of it changes until it is replaced, so it shows the map as it was at some
 * moment inside the read.
 *
 * <p>Updates: (1) make the new value's slice, outside any publish (serializers are user code); (2) locate the
 * chunk and publish (a frozen chunk: wait for its rebalance and retry); (3) find the entry, or allocate and link
 * one (a full chunk: unpublish, rebalance, retry); a put-if-absent that already searched the chunk unpublished,
 * to see whether the key was present, publishes in that chunk and reuses its search if the chunk is still active
 * (Scratch#searched); (4) if the entry's value is 0, CAS it to the new value
 * (linearization point of an insertion); otherwise lock the value, decide, and either unlock (no change) or CAS
 * the entry to the new value or to 0 and retire the old value (linearization point: the CAS; no other thread can
 * change the entry meanwhile, since that needs the same lock); (5) unpublish, and, if the operation left an entry
 * without a value, compact the chunk when its dead entries call for it ({@link Rebalancer#shouldCompact}).
 *
 * <p>{@code compute} and {@code computeIfAbsent} on an absent key install a locked placeholder value first
 * ({@link ValueHeader#ABSENT}), so their function runs exactly once and no other update of the key can slip in;
 * readers treat the placeholder as no value, so the key stays absent until the function's result replaces it.
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
    static final int PUT = 0;
    static final int PUT_IF_ABSENT = 1;
    static final int MERGE = 2;
    static final int COMPUTE = 3;
    static final int COMPUTE_IF_ABSENT = 4;
    static final int ZC_PUT = 5;
    static final int ZC_PUT_IF_ABSENT = 6;
    static final int ZC_UPSERT = 7;
    /** Kinds from here on never insert a new entry. */
    static final int REPLACE = 8;
    static final int REPLACE_IF_EQUAL = 9;
    static final int REMOVE = 10;
    static final int REMOVE_IF_EQUAL = 11;
    static final int COMPUTE_IF_PRESENT = 12;
    static final int ZC_REMOVE = 13;
    static final int ZC_COMPUTE_IF_PRESENT = 14;

    /** A decision to leave the value as it is. */
    private static final Object KEEP = new Object();

    final Pool pool;
    final Serializer<K> keySerializer;
    final Values<V> values;
    final Keys keys;
    final ChunkIndex index;
    final Rebalancer rebalancer;
    final int chunkSize;
    private final ThreadLocal<Scratch> scratch;
    private final Closing closing = new Closing();
    /** The operations running a user function now: lets a nested call that would wait for itself throw. */
    final CallRegistry calls = new CallRegistry();

    ChunkMap(Pool pool, Serializer<K> keySerializer, Serializer<V> valueSerializer, KeyOrder order, int chunkSize) {
        this.pool = pool;
        this.keySerializer = keySerializer;
        this.values = new Values<>(pool, valueSerializer, closing, calls);
        this.keys = new Keys(pool, order);
        this.chunkSize = chunkSize;
        this.index = new ChunkIndex(new Chunk(null, null, Rebalancer.capacityFor(0, chunkSize), new long[0],
                new int[0], new long[0], new long[0], 0, 0));
        this.rebalancer = new Rebalancer(index, keys, pool, chunkSize, closing, calls);
        this.scratch = ThreadLocal.withInitial(() -> new Scratch(values));
    }

    void checkOpen() {
        closing.check();
        if (pool.isClosed()) {
            throw new IllegalStateException("the map's memory pool is closed");
        }
    }

    boolean isClosed() {
        return closing.isClosed();
    }

    /** Marks the map closed; {@code false} if it already was. */
    boolean markClosed() {
        return closing.close();
    }

    /** Takes the thread's scratch with {@code key} serialized as the probe. */
    Scratch begin(K key) {
        checkOpen();
        Objects.requireNonNull(key, "key");
        Scratch s = Scratch.acquire(scratch, values);
        try {
            s.setKey(keySerializer, key);
        } catch (RuntimeException | Error e) {
            s.release();
            throw e;
        }
        return s;
    }

    // ---- reads

    /** The value reference of the probe's key (a live, non-placeholder value at some moment), or 0. */
    long valueRefOf(Scratch s) {
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
            if (e == Chunk.NONE) {
                return 0;
            }
            long old = c.valueRef(e);
            if (old == 0) {
                return 0;
            }
            Boolean present = values.isPresent(old);
            if (present != null) {
                return present ? old : 0;
            }
        }
    }

    V get(K key) {
        Scratch s = begin(key);
        try {
            return get(s);
        } finally {
            s.release();
        }
    }

    @SuppressWarnings("unchecked")
    V get(Scratch s) {
        while (true) {
            long old = valueRefOf(s);
            if (old == 0) {
                return null;
            }
            Object value = values.read(old, s.valueView);
            if (value != Values.RETRY) {
                return (V) value;
            }
        }
    }

    boolean containsKey(K key) {
        Scratch s = begin(key);
        try {
            return valueRefOf(s) != 0;
        } finally {
            s.release();
        }
    }

    /** A handle on the value of {@code key}'s bytes, or {@code null}. */
    SliceHandle handle(K key) {
        Scratch s = begin(key);
        try {
            while (true) {
                long old = valueRefOf(s);
                if (old == 0) {
                    return null;
                }
                try {
                    return new SliceHandle(pool).pointAt(old, ValueHeader.HEADER, -1);
                } catch (ConcurrentModificationException replaced) {
                    // the value left its entry after the lookup: look again
                }
            }
        } finally {
            s.release();
        }
    }

    // ---- updates

    /** Runs a single-key update of kind {@code kind} (see the constants); returns what that kind returns. */
    Object update(K key, int kind, V value, V expected, Object function) {
        Scratch s = begin(key);
        long fresh = 0;
        try {
            if (kind == PUT || kind == PUT_IF_ABSENT || kind == MERGE || kind == ZC_PUT || kind == ZC_PUT_IF_ABSENT
                    || kind == ZC_UPSERT) {
                Objects.requireNonNull(value, "value");
                if (kind == PUT_IF_ABSENT || kind == ZC_PUT_IF_ABSENT) {
                    Object present = presentValue(s, kind);
                    if (present != null) {
                        return present;
                    }
                }
                fresh = values.write(value, s.writeView);
            }
            int e = enter(s, kind < REPLACE);
            if (e == Chunk.NONE) {
                return absentResult(kind);
            }
            Chunk c = s.chunk;
            Outcome outcome = s.outcome;
            outcome.reset();
            try {
                return updateEntry(s, c, e, kind, key, value, expected, function, fresh);
            } finally {
                c.unpublish();
                if (outcome.freshUsed) {
                    fresh = 0;
                }
                if (outcome.compact) {
                    rebalancer.compact(c);
                }
            }
        } finally {
            if (fresh != 0) {
                pool.deletePrivate(fresh);
            }
            s.release();
        }
    }

    /** For a put-if-absent: the present value ({@code Boolean.FALSE} for the zero-copy kind), or null. */
    private Object presentValue(Scratch s, int kind) {
        while (true) {
            long old = valueRefOf(s);
            if (old == 0) {
                return null;
            }
            if (kind == ZC_PUT_IF_ABSENT) {
                return Boolean.FALSE;
            }
            Object value = values.read(old, s.valueView);
            if (value != Values.RETRY) {
                return value; // null (a placeholder appeared): go on to the locked path
            }
        }
    }

    private static Object absentResult(int kind) {
        return switch (kind) {
            case REPLACE_IF_EQUAL, REMOVE_IF_EQUAL, ZC_REMOVE, ZC_COMPUTE_IF_PRESENT -> Boolean.FALSE;
            case ZC_PUT_IF_ABSENT, ZC_UPSERT -> Boolean.TRUE;
            default -> null;
        };
    }

    /**
     * Locates the probe's chunk, publishes there and finds the entry, inserting it if {@code create}: the entry
     * (published in {@code s.chunk}), or {@link Chunk#NONE} if absent and not created (nothing published).
     */
    private int enter(Scratch s, boolean create) {
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
     * Allocates and links an entry for the probe, starting from its {@code window} in {@code c}: the entry holding
     * the key, or NONE if the chunk is full.
     */
    private int insertEntry(Scratch s, Chunk c, long window) {
        long keyRef = pool.allocate(s.keyLength());
        java.lang.foreign.MemorySegment.copy(s.key(), 0, pool.segment(keyRef), pool.payloadOffset(keyRef),
                s.keyLength());
        int e = Chunk.NONE;
        try {
            int slot = c.allocate(keyRef, s.keyLength(), keys.prefix(s.key(), 0, s.keyLength()));
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

    @SuppressWarnings("unchecked")
    private Object updateEntry(Scratch s, Chunk c, int e, int kind, K key, V value, V expected, Object function,
            long fresh) {
        Outcome outcome = s.outcome;
        while (true) {
            long old = c.valueRef(e);
            if (old == 0) {
                switch (kind) {
                    case PUT, PUT_IF_ABSENT, MERGE, ZC_PUT, ZC_PUT_IF_ABSENT, ZC_UPSERT -> {
                        if (c.casValue(e, 0, fresh)) {
                            c.addLive(1);
                            outcome.freshUsed = true;
                            return kind == MERGE ? value : absentResult(kind);
                        }
                        continue;
                    }
                    case COMPUTE, COMPUTE_IF_ABSENT -> {
                        long placeholder = values.placeholder();
                        if (!c.casValue(e, 0, placeholder)) {
                            pool.deletePrivate(placeholder);
                            continue;
                        }
                        return computeAbsent(s, c, e, placeholder, kind, key, function);
                    }
                    default -> {
                        return absentResult(kind);
                    }
                }
            }
            long locked = values.lock(old);
            if (locked == -1) {
                continue; // the value left the entry: read it again
            }
            boolean held = true;
            try {
                if (kind == ZC_COMPUTE_IF_PRESENT || kind == ZC_UPSERT) {
                    held = false;
                    updateInPlace(s, c, e, old, locked, (Consumer<? super ResizableView>) function);
                    return kind == ZC_UPSERT ? Boolean.FALSE : Boolean.TRUE;
                }
                V current = kind == ZC_PUT || kind == ZC_PUT_IF_ABSENT || kind == ZC_REMOVE ? null
                        : values.readLocked(old, s.valueView);
                Object next;
                Object result;
                switch (kind) {
                    case PUT, REPLACE -> { next = value; result = current; }
                    case ZC_PUT -> { next = value; result = null; }
                    case PUT_IF_ABSENT, COMPUTE_IF_ABSENT -> { next = KEEP; result = current; }
                    case ZC_PUT_IF_ABSENT -> { next = KEEP; result = Boolean.FALSE; }
                    case REPLACE_IF_EQUAL -> {
                        boolean equal = current.equals(expected);
                        next = equal ? value : KEEP;
                        result = equal;
                    }
                    case REMOVE -> { next = null; result = current; }
                    case ZC_REMOVE -> { next = null; result = Boolean.TRUE; }
                    case REMOVE_IF_EQUAL -> {
                        boolean equal = current.equals(expected);
                        next = equal ? null : KEEP;
                        result = equal;
                    }
                    case COMPUTE, COMPUTE_IF_PRESENT -> {
                        CallRegistry.Slot call = calls.enter(old, c);
                        try {
                            next = ((BiFunction<? super K, ? super V, ? extends V>) function).apply(key, current);
                        } finally {
                            calls.exit(call);
                        }
                        result = next;
                    }
                    case MERGE -> {
                        CallRegistry.Slot call = calls.enter(old, c);
                        try {
                            next = ((BiFunction<? super V, ? super V, ? extends V>) function).apply(current, value);
                        } finally {
                            calls.exit(call);
                        }
                        result = next;
                    }
                    default -> throw new AssertionError(kind);
                }
                if (next == KEEP) {
                    return result;
                }
                if (next == null) {
                    c.casValue(e, old, 0);
                    held = false;
                    values.retire(old, locked);
                    c.addLive(-1);
                    outcome.compact = rebalancer.shouldCompact(c);
                    return result;
                }
                long replacement;
                if (next == value && fresh != 0) {
                    replacement = fresh;
                    outcome.freshUsed = true;
                } else {
                    replacement = values.write((V) next, s.writeView);
                }
                c.casValue(e, old, replacement);
                held = false;
                values.retire(old, locked);
                return result;
            } finally {
                if (held) {
                    values.unlock(old, locked);
                }
            }
        }
    }

    /**
     * Runs a {@code compute} or {@code computeIfAbsent} function on the absent key of entry {@code e}, which holds
     * the locked {@code placeholder}: installs its result, or leaves the entry without a value (it may have been
     * inserted for this call: then the chunk may need a compaction, as after a removal).
     */
    @SuppressWarnings("unchecked")
    private Object computeAbsent(Scratch s, Chunk c, int e, long placeholder, int kind, K key, Object function) {
        long locked = ValueHeader.LOCKED_PLACEHOLDER;
        boolean installed = false;
        try {
            V next;
            CallRegistry.Slot call = calls.enter(placeholder, c);
            try {
                next = kind == COMPUTE
                        ? ((BiFunction<? super K, ? super V, ? extends V>) function).apply(key, null)
                        : ((Function<? super K, ? extends V>) function).apply(key);
            } finally {
                calls.exit(call);
            }
            if (next != null) {
                long ref = values.write(next, s.writeView);
                c.casValue(e, placeholder, ref);
                c.addLive(1);
                installed = true;
            }
            return next;
        } finally {
            if (!installed) {
                c.casValue(e, placeholder, 0);
                s.outcome.compact = rebalancer.shouldCompact(c);
            }
            values.retire(placeholder, locked);
        }
    }

    /**
     * Runs {@code computer} on value {@code old} of entry {@code e}, locked as {@code locked}, in place; a resize
     * moves the value to a new slice, which replaces the old one in the entry when the computer returns or throws
     * (the bytes written so far stay written). Unlocks in every case.
     */
    private void updateInPlace(Scratch s, Chunk c, int e, long old, long locked,
            Consumer<? super ResizableView> computer) {
        SliceResizer resizer = s.resizer;
        resizer.start(old, ValueHeader.HEADER);
        SegmentView view = s.writeView;
        CallRegistry.Slot call = calls.enter(old, c);
        try {
            view.open(values.block(old), values.bytesOffset(old), values.size(old), true, resizer);
            computer.accept(view);
        } finally {
            calls.exit(call);
            view.close();
            if (resizer.moved()) {
                c.casValue(e, old, resizer.current());
                values.retire(old, locked);
            } else {
                values.unlock(old, locked);
            }
        }
    }

    // ---- keys and scans

    /** {@code key} serialized on the heap (for bounds and range checks). */
    Key keyOf(K key) {
        Objects.requireNonNull(key, "key");
        return Key.of(keySerializer, key);
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

    Cursor cursor(boolean descending, Key lo, boolean loInclusive, Key hi, boolean hiInclusive) {
        checkOpen();
        return new Cursor(keys, index, values, closing, descending, lo, loInclusive, hi, hiInclusive);
    }

    /**
     * The value of the cursor's current entry: the one it had when the cursor reached it or, if that one left the
     * entry since, the key's value now; {@code null} if the key was removed meanwhile.
     */
    @SuppressWarnings("unchecked")
    V currentValue(Cursor cursor) {
        Scratch s = Scratch.acquire(scratch, values);
        try {
            Object value = values.read(cursor.valueRef(), s.valueView);
            if (value != Values.RETRY) {
                return (V) value;
            }
            s.setKeyBytes(cursor.keySegment(), cursor.keyLength());
            return get(s);
        } finally {
            s.release();
        }
    }

    /** As {@link #currentValue}, the value reference; 0 if the key was removed meanwhile. */
    long currentValueRef(Cursor cursor) {
        if (Boolean.TRUE.equals(values.isPresent(cursor.valueRef()))) {
            return cursor.valueRef();
        }
        Scratch s = Scratch.acquire(scratch, values);
        try {
            s.setKeyBytes(cursor.keySegment(), cursor.keyLength());
            return valueRefOf(s);
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
                long locked = values.lockUnlessGone(value);
                if (locked != -1) {
                    values.retire(value, locked);
                }
            }
        }
    }

    /** What an update did besides its result, read by {@link #update} after it. */
    static final class Outcome {
        boolean freshUsed;
        boolean compact;

        void reset() {
            freshUsed = false;
            compact = false;
        }
    }
}
