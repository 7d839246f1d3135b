package io.grove.internal.hash;

import io.grove.EvictionListener;
import io.grove.GroveHashMap;
import io.grove.MapStats;
import io.grove.MemoryFootprint;
import io.grove.ZeroCopyMap;
import io.grove.internal.memory.Pool;
import io.grove.internal.sync.ScratchPool;
import io.grove.internal.view.SliceWriter;
import io.grove.serial.Serializer;
import java.util.AbstractMap;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * {@link GroveHashMap}: the {@link java.util.concurrent.ConcurrentMap} contract over a {@link HashTable}.
 *
 * <p>Each single-key method serializes the key once into the thread's {@link Scratch}, picks the segment, and
 * either reads lock-free (get, containsKey: retry until the segment's version is unchanged across the read) or
 * updates under the segment's lock. New values are serialized into private slices before they are linked; a
 * value displaced by an update is deserialized (when the method returns it) before its slice is deleted. User
 * functions of {@code compute}, {@code computeIfAbsent}, {@code computeIfPresent} and {@code merge} run once,
 * under the lock; if one throws, the map is unchanged.
 */
public final class OffHeapHashMap<K, V> extends AbstractMap<K, V> implements GroveHashMap<K, V> {
    private final Pool pool;
    private final boolean ownsPool;
    final Serializer<K> keySerializer;
    final Serializer<V> valueSerializer;
    final HashTable table;
    private final ScratchPool<Scratch> scratches;
    private final HashZeroCopy<K, V> zeroCopy;
    private volatile boolean closed;
    private Set<Entry<K, V>> entrySet;
    private Set<K> keySet;
    private final EvictionListener<? super K, ? super V> evictionListener;
    /** Null unless the map records statistics. */
    private final LongAdder hits;
    private final LongAdder misses;
    private final LongAdder puts;
    private final LongAdder evictions;

    /** The bounds of a map and what it records; {@link Long#MAX_VALUE} means unbounded. */
    public record Bounds<K, V>(long maximumSize, long maximumBytes,
            EvictionListener<? super K, ? super V> listener, boolean recordStats) {}

    public OffHeapHashMap(Pool pool, boolean ownsPool, Serializer<K> keySerializer, Serializer<V> valueSerializer,
            long expectedSize, Bounds<K, V> bounds) {
        this.pool = pool;
        this.ownsPool = ownsPool;
        this.keySerializer = keySerializer;
        this.valueSerializer = valueSerializer;
        this.table = new HashTable(pool, !ownsPool, expectedSize, bounds.maximumSize(), bounds.maximumBytes());
        this.evictionListener = bounds.listener();
        this.hits = bounds.recordStats() ? new LongAdder() : null;
        this.misses = bounds.recordStats() ? new LongAdder() : null;
        this.puts = bounds.recordStats() ? new LongAdder() : null;
        this.evictions = bounds.recordStats() ? new LongAdder() : null;
        this.scratches = new ScratchPool<>(() -> new Scratch(pool));
        this.zeroCopy = new HashZeroCopy<>(this);
    }

    // ---- shared steps ------------------------------------------------------------------------------------------

    Pool pool() {
        return pool;
    }

    /** Checks the map is open, takes the thread's scratch and serializes {@code key} into it. */
    @SuppressWarnings("unchecked")
    Scratch begin(Object key) {
        if (closed) {
            throw new IllegalStateException("the map is closed");
        }
        Objects.requireNonNull(key, "key");
        Scratch scratch = scratches.acquire();
        try {
            scratch.setKey(keySerializer, (K) key, maxKeyLength());
        } catch (RuntimeException | Error e) {
            scratch.release();
            throw e;
        }
        return scratch;
    }

    /** The largest key an entry can hold: one with an empty value fills the pool's largest slice. */
    private int maxKeyLength() {
        return pool.maxSliceSize() - EntryLayout.KEY;
    }

    /** A new private entry holding the scratch's key and {@code value}, not linked yet. */
    long newEntry(V value, Scratch scratch) {
        if (!scratch.keyFits()) {
            throw scratch.keyTooLarge(maxKeyLength(), "an entry holds its fields, key and value in one slice of at"
                    + " most " + pool.maxSliceSize() + " bytes");
        }
        int size = SliceWriter.sizeOf(valueSerializer, value);
        long e = table.newEntry(scratch, size);
        SliceWriter.writeOrDelete(pool, valueSerializer, value, size, scratch.writeView, e, table.valueOffset(e));
        return e;
    }

    /**
     * Deserializes entry {@code e}'s value. The entry must be known to be linked: under the lock, or in a lock-free
     * read after a version check that followed the search (its fields are then the entry's own); a lock-free
     * caller checks the version again afterwards for the value's bytes.
     */
    V readValue(long e, Scratch scratch) {
        return read(valueSerializer, e, table.valueOffset(e), table.valueLength(e), scratch);
    }

    /** Deserializes entry {@code e}'s key; the entry must be known to be linked, as for {@link #readValue}. */
    K readKey(long e, Scratch scratch) {
        return readKey(e, table.keyLength(e), scratch);
    }

    /** Deserializes the {@code length} key bytes of entry {@code e}. */
    K readKey(long e, int length, Scratch scratch) {
        return read(keySerializer, e, table.keyOffset(e), length, scratch);
    }

    private <T> T read(Serializer<T> serializer, long ref, long offset, int length, Scratch scratch) {
        scratch.readView.open(pool.segment(ref), offset, length, false);
        try {
            return serializer.read(scratch.readView);
        } finally {
            scratch.readView.close();
        }
    }

    /** Under the lock, after {@link HashTable#findLocked} found nothing: links a new entry holding {@code value}. */
    void insertNew(int s, Scratch scratch, V value) {
        long fresh = newEntry(value, scratch);
        try {
            if (table.isBounded()) {
                makeRoom(s, scratch, 1, pool.length(fresh), 0);
            }
        } catch (RuntimeException | Error e) {
            pool.deletePrivate(fresh);
            throw e;
        }
        table.insert(s, scratch, fresh);
        count(puts);
    }

    /** Under the lock: replaces entry {@code entry} by a new entry holding the same key and {@code value}. */
    void replaceWith(int s, long entry, V value, Scratch scratch) {
        long fresh = newEntry(value, scratch);
        try {
            if (table.isBounded()) {
                makeRoom(s, scratch, 0, pool.length(fresh) - pool.length(entry), entry);
            }
        } catch (RuntimeException | Error e) {
            pool.deletePrivate(fresh);
            throw e;
        }
        table.replace(s, entry, fresh);
        count(puts);
    }

    /**
     * Under the lock of a bounded map: evicts entries of segment {@code s} (never {@code spared}) until
     * {@code entries} more entries and {@code bytes} more bytes fit its quotas. Throws
     * {@link IllegalArgumentException}, evicting nothing, if the one entry being written could never fit.
     */
    void makeRoom(int s, Scratch scratch, long entries, long bytes, long spared) {
        long own = bytes + (spared != 0 ? table.entryBytes(spared) : 0);
        if (own > table.byteQuota(s)) {
            throw new IllegalArgumentException("an entry of " + own + " bytes exceeds its segment's share ("
                    + table.byteQuota(s) + " bytes) of maximumBytes");
        }
        long bucket = scratch.bucket;
        while (table.overQuota(s, entries, bytes)) {
            long victim = table.chooseVictim(s, scratch, spared);
            if (victim == 0) {
                break;
            }
            if (evictionListener != null) {
                scratch.evicted(readKey(victim, scratch), readValue(victim, scratch));
            }
            table.unlink(s, scratch, victim);
            count(evictions);
        }
        scratch.bucket = bucket;
    }

    /** Ends a locked operation: unlocks, tells the listener of its evictions, frees the scratch. */
    @SuppressWarnings("unchecked")
    void finish(int s, Scratch scratch) {
        table.unlock(s, scratch.lockToken);
        try {
            for (int i = 0; i < scratch.evictedCount(); i++) {
                try {
                    evictionListener.onEviction((K) scratch.evictedKey(i), (V) scratch.evictedValue(i));
                } catch (RuntimeException e) {
                    System.getLogger(OffHeapHashMap.class.getName()).log(System.Logger.Level.WARNING,
                            "the eviction listener threw", e);
                }
            }
        } finally {
            scratch.clearEvicted();
            scratch.release();
        }
    }

    /** Records a read's outcome: statistics, and the CLOCK counter of a bounded map. */
    void recordRead(long entry) {
        if (entry != 0) {
            count(hits);
            if (table.isBounded()) {
                table.touch(entry);
            }
        } else {
            count(misses);
        }
    }

    private static void count(LongAdder counter) {
        if (counter != null) {
            counter.increment();
        }
    }

    // ---- ConcurrentMap ------------------------------------------------------------------------------------------

    @Override
    public V get(Object key) {
        Scratch scratch = begin(key);
        try {
            int s = table.segmentOf(scratch.keyHash());
            while (true) {
                long version = table.awaitStable(s);
                V value = null;
                try {
                    long e = table.findLockFree(s, scratch);
                    if (e == HashTable.RETRY) {
                        checkNotCorrupted(s, version);
                        continue;
                    }
                    if (e != 0) {
                        if (!table.isStable(s, version)) {
                            continue; // e may have been deleted: its lengths cannot be trusted
                        }
                        value = readValue(e, scratch);
                    }
                    if (table.isStable(s, version)) {
                        recordRead(e);
                        return value;
                    }
                } catch (RuntimeException stale) {
                    if (table.isStable(s, version)) {
                        throw stale;
                    }
                }
            }
        } finally {
            scratch.release();
        }
    }

    void checkNotCorrupted(int s, long version) {
        if (table.isStable(s, version)) {
            throw new IllegalStateException("segment " + s + " has a chain longer than its count");
        }
    }

    @Override
    public boolean containsKey(Object key) {
        Scratch scratch = begin(key);
        try {
            int s = table.segmentOf(scratch.keyHash());
            while (true) {
                long version = table.awaitStable(s);
                long e;
                try {
                    e = table.findLockFree(s, scratch);
                } catch (RuntimeException stale) {
                    if (table.isStable(s, version)) {
                        throw stale;
                    }
                    continue;
                }
                if (e == HashTable.RETRY) {
                    checkNotCorrupted(s, version);
                } else if (table.isStable(s, version)) {
                    return e != 0;
                }
            }
        } finally {
            scratch.release();
        }
    }

    @Override
    public V put(K key, V value) {
        Objects.requireNonNull(value, "value");
        return update(key, value, null, Mode.PUT);
    }

    @Override
    public V putIfAbsent(K key, V value) {
        Objects.requireNonNull(value, "value");
        return update(key, value, null, Mode.PUT_IF_ABSENT);
    }

    @Override
    public V replace(K key, V value) {
        Objects.requireNonNull(value, "value");
        return update(key, value, null, Mode.REPLACE);
    }

    @Override
    public V remove(Object key) {
        return update(key, null, null, Mode.REMOVE);
    }

    @Override
    public boolean remove(Object key, Object value) {
        Objects.requireNonNull(key, "key");
        if (value == null) {
            return false;
        }
        return update(key, null, value, Mode.REMOVE_IF_EQUAL) != null;
    }

    @Override
    public boolean replace(K key, V oldValue, V newValue) {
        Objects.requireNonNull(oldValue, "oldValue");
        Objects.requireNonNull(newValue, "newValue");
        return update(key, newValue, oldValue, Mode.REPLACE_IF_EQUAL) != null;
    }

    private enum Mode { PUT, PUT_IF_ABSENT, REPLACE, REMOVE, REMOVE_IF_EQUAL, REPLACE_IF_EQUAL }

    /**
     * The updates that return the previous value. For the conditional modes, returns non-null exactly when the
     * condition held and the update was made.
     */
    private V update(Object key, V value, Object expected, Mode mode) {
        Scratch scratch = begin(key);
        int s = table.segmentOf(scratch.keyHash());
        scratch.lockToken = table.lock(s);
        try {
            long e = table.findLocked(s, scratch);
            if (e == 0) {
                if (mode == Mode.PUT || mode == Mode.PUT_IF_ABSENT) {
                    insertNew(s, scratch, value);
                }
                return null;
            }
            V old = readValue(e, scratch);
            switch (mode) {
                case PUT, REPLACE -> replaceWith(s, e, value, scratch);
                case PUT_IF_ABSENT -> { }
                case REMOVE -> table.unlink(s, scratch, e);
                case REMOVE_IF_EQUAL -> {
                    if (!old.equals(expected)) {
                        return null;
                    }
                    table.unlink(s, scratch, e);
                }
                case REPLACE_IF_EQUAL -> {
                    if (!old.equals(expected)) {
                        return null;
                    }
                    replaceWith(s, e, value, scratch);
                }
            }
            return old;
        } finally {
            finish(s, scratch);
        }
    }

    @Override
    public V computeIfAbsent(K key, Function<? super K, ? extends V> mappingFunction) {
        Objects.requireNonNull(mappingFunction, "mappingFunction");
        Scratch scratch = begin(key);
        int s = table.segmentOf(scratch.keyHash());
        scratch.lockToken = table.lock(s);
        try {
            long e = table.findLocked(s, scratch);
            if (e != 0) {
                return readValue(e, scratch);
            }
            V value = mappingFunction.apply(key);
            if (value != null) {
                insertNew(s, scratch, value);
            }
            return value;
        } finally {
            finish(s, scratch);
        }
    }

    @Override
    public V computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
        Objects.requireNonNull(remappingFunction, "remappingFunction");
        return remap(key, null, remappingFunction, false);
    }

    @Override
    public V compute(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
        Objects.requireNonNull(remappingFunction, "remappingFunction");
        return remap(key, null, remappingFunction, true);
    }

    @Override
    public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> remappingFunction) {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(remappingFunction, "remappingFunction");
        return remap(key, value, (k, old) -> remappingFunction.apply(old, value), true);
    }

    /**
     * compute, computeIfPresent and merge: under the lock, applies {@code function} to the present value (or, if
     * {@code whenAbsent}, to {@code null} — merge inserts {@code absentValue} instead) and stores or removes.
     */
    private V remap(K key, V absentValue, BiFunction<? super K, ? super V, ? extends V> function,
            boolean whenAbsent) {
        Scratch scratch = begin(key);
        int s = table.segmentOf(scratch.keyHash());
        scratch.lockToken = table.lock(s);
        try {
            long e = table.findLocked(s, scratch);
            if (e == 0) {
                if (!whenAbsent) {
                    return null;
                }
                V value = absentValue != null ? absentValue : function.apply(key, null);
                if (value != null) {
                    insertNew(s, scratch, value);
                }
                return value;
            }
            V value = function.apply(key, readValue(e, scratch));
            if (value == null) {
                table.unlink(s, scratch, e);
            } else {
                replaceWith(s, e, value, scratch);
            }
            return value;
        } finally {
            finish(s, scratch);
        }
    }

    @Override
    public int size() {
        return (int) Math.min(Integer.MAX_VALUE, mappingCount());
    }

    /** The number of entries as a {@code long}; exact when no update runs. */
    public long mappingCount() {
        checkOpen();
        long n = 0;
        for (int s = 0; s < table.segmentCount(); s++) {
            n += table.count(s);
        }
        return n;
    }

    @Override
    public boolean isEmpty() {
        return mappingCount() == 0;
    }

    @Override
    public boolean containsValue(Object value) {
        Objects.requireNonNull(value, "value");
        for (Entry<K, V> entry : entrySet()) {
            if (value.equals(entry.getValue())) {
                return true;
            }
        }
        return false;
    }

    /** Removes every entry, one segment at a time (atomic per segment, not as a whole). */
    @Override
    public void clear() {
        checkOpen();
        for (int s = 0; s < table.segmentCount(); s++) {
            long token = table.lock(s);
            try {
                table.clear(s);
            } finally {
                table.unlock(s, token);
            }
        }
    }

    @Override
    public Set<Entry<K, V>> entrySet() {
        Set<Entry<K, V>> view = entrySet;
        return view != null ? view : (entrySet = new HashViews.EntrySetView<>(this));
    }

    @Override
    public Set<K> keySet() {
        Set<K> view = keySet;
        return view != null ? view : (keySet = new HashViews.KeySetView<>(this));
    }

    Scratch scratchForIteration() {
        checkOpen();
        return scratches.acquire();
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the map is closed");
        }
    }

    // ---- Grove ---------------------------------------------------------------------------------------------------

    @Override
    public MapStats stats() {
        checkOpen();
        return hits == null ? new MapStats(0, 0, 0, 0)
                : new MapStats(hits.sum(), misses.sum(), puts.sum(), evictions.sum());
    }

    @Override
    public ZeroCopyMap<K, V> zc() {
        checkOpen();
        return zeroCopy;
    }

    @Override
    public MemoryFootprint footprint() {
        checkOpen();
        return pool.footprint();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (ownsPool) {
            pool.close();
        } else if (!pool.isClosed()) {
            table.close();
        }
    }
}
