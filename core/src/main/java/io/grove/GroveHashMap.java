package io.grove;

import io.grove.internal.hash.OffHeapHashMap;
import io.grove.internal.hash.OffHeapHashMap.Bounds;
import io.grove.internal.memory.Pool;
import io.grove.serial.Serializer;
import java.util.Objects;
import java.util.concurrent.ConcurrentMap;

/**
 * A concurrent hash map whose keys, values and structure (buckets, entries, locks) live off the Java heap, in a
 * {@link MemoryPool}. Implements {@link ConcurrentMap} completely; {@link #zc()} gives the zero-copy API.
 *
 * <p>Keys are compared and hashed by their serialized bytes: two keys are the same key exactly when their
 * serializer writes the same bytes. Values are compared with {@code equals} after deserialization (in
 * {@code remove(key, value)}, {@code replace(key, old, new)} and {@code containsValue}).
 *
 * <p>Atomicity: every single-key method is atomic, including {@code compute}, {@code computeIfAbsent},
 * {@code computeIfPresent} and {@code merge}, whose function runs at most once, while the key's segment is
 * locked: it must be short and must not use the map. {@code putAll}, {@code replaceAll} and {@code clear} are
 * atomic per key, not as a whole. Iterators and views are weakly consistent, as {@link
 * java.util.concurrent.ConcurrentHashMap}'s: they never throw {@link java.util.ConcurrentModificationException},
 * return each entry present throughout the iteration exactly once, and may or may not show concurrent changes.
 * {@code size()} adds per-segment counts and is exact only when no update runs.
 *
 * <p>Sizes and handles: an entry (24 bytes of fields, the key padded with them to a multiple of 8, then the value)
 * is one slice of the pool, so a key and value together may take at most {@link MemoryPool#maxSliceSize()} minus
 * 24 to 31 bytes; a larger one is rejected with {@link IllegalArgumentException} naming the limit. A key larger
 * than any entry can hold ({@code maxSliceSize() - 24} bytes, by its serializer's {@code size}) is never
 * serialized: reads and removals answer absent, and writes throw {@link IllegalArgumentException} naming its size
 * and the limit. Because key
 * and value share the slice, a put that replaces a value (or an in-place update that resizes it) moves the entry
 * to a new slice: handles from {@link #zc()} on its old value and on its key then fail with
 * {@link java.util.ConcurrentModificationException}, as after a removal.
 *
 * <p>Bounded mode ({@link Builder#maximumSize}, {@link Builder#maximumBytes}): an insertion that would exceed the
 * bound evicts instead of failing. The bound is split exactly into per-segment quotas, so the map never holds more
 * than the bound, and an insertion evicts within its own segment, by a CLOCK sweep whose per-entry counter
 * (0..3) reads raise: an approximation of LRU that also favours frequently read entries, with no global lock and
 * amortized O(1) cost. An entry larger than its segment's byte quota ({@code maximumBytes / segments}) is
 * rejected with {@link IllegalArgumentException}.
 *
 * <p>Nulls are rejected as keys and values with {@link NullPointerException}. After {@link #close()}, every
 * method that reads or changes entries — directly, through a view or its iterator, or through {@link #zc()} — and
 * {@link #footprint()} and {@link #stats()} throw {@link IllegalStateException}; obtaining a view object itself
 * does not.
 */
public interface GroveHashMap<K, V> extends ConcurrentMap<K, V>, AutoCloseable {

    static <K, V> Builder<K, V> builder(Serializer<K> keySerializer, Serializer<V> valueSerializer) {
        return new Builder<>(keySerializer, valueSerializer);
    }

    /** The zero-copy API over the same entries. */
    ZeroCopyMap<K, V> zc();

    /** Hits, misses, puts and evictions if the map was built with {@link Builder#recordStats()}; zeros otherwise. */
    MapStats stats();

    /** Off-heap figures of the map's pool (shared with other maps if the pool is shared). */
    MemoryFootprint footprint();

    /**
     * Releases the map's off-heap memory: closes its own pool, or, on a shared pool, frees the map's slices.
     * Idempotent. Operations that run while the map closes either complete (if they got in first) or throw
     * {@link IllegalStateException}, as all later ones do; on a shared pool none of them touches memory that
     * another map reuses.
     */
    @Override
    void close();

    /** Builds a {@link GroveHashMap}; each setter validates its argument, {@link #build()} checks them together. */
    final class Builder<K, V> {
        private final Serializer<K> keySerializer;
        private final Serializer<V> valueSerializer;
        private long expectedSize = 16;
        private long memoryLimit = -1;
        private MemoryPool pool;
        private long maximumSize = Long.MAX_VALUE;
        private long maximumBytes = Long.MAX_VALUE;
        private EvictionListener<? super K, ? super V> evictionListener;
        private boolean recordStats;

        Builder(Serializer<K> keySerializer, Serializer<V> valueSerializer) {
            this.keySerializer = Objects.requireNonNull(keySerializer, "keySerializer");
            this.valueSerializer = Objects.requireNonNull(valueSerializer, "valueSerializer");
        }

        /** How many entries to size the table for at first; it grows beyond that. At least 0. */
        public Builder<K, V> expectedSize(long entries) {
            if (entries < 0) {
                throw new IllegalArgumentException("expectedSize must be at least 0, was " + entries);
            }
            this.expectedSize = entries;
            return this;
        }

        /**
         * The memory limit of the map's own pool; not allowed together with {@link #pool}. Default: the
         * {@linkplain MemoryPool.Builder#memoryLimit default of a pool}, half of the memory the process may use
         * (the machine's, or its container's limit) beyond the Java heap's maximum; a map that needs more throws
         * {@link GroveOutOfMemoryException}.
         */
        public Builder<K, V> memoryLimit(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("memoryLimit must be positive, was " + bytes);
            }
            this.memoryLimit = bytes;
            return this;
        }

        /** Bounds the number of entries: an insertion beyond it evicts. At least 1. */
        public Builder<K, V> maximumSize(long entries) {
            if (entries < 1) {
                throw new IllegalArgumentException("maximumSize must be at least 1, was " + entries);
            }
            this.maximumSize = entries;
            return this;
        }

        /**
         * Bounds the bytes of the entries (per entry: 24 bytes of fields, the key padded with them to a multiple of
         * 8, and the value; slice headers and rounding not counted): an insertion beyond it evicts. At least 1,024.
         */
        public Builder<K, V> maximumBytes(long bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maximumBytes must be at least 1024, was " + bytes);
            }
            this.maximumBytes = bytes;
            return this;
        }

        /** Told of every eviction; needs {@link #maximumSize} or {@link #maximumBytes}. */
        public Builder<K, V> evictionListener(EvictionListener<? super K, ? super V> listener) {
            this.evictionListener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** Counts hits, misses, puts and evictions ({@link GroveHashMap#stats()}), at a small cost per operation. */
        public Builder<K, V> recordStats() {
            this.recordStats = true;
            return this;
        }

        /** A pool to draw on, shared with other maps; the map does not close it. */
        public Builder<K, V> pool(MemoryPool pool) {
            this.pool = Objects.requireNonNull(pool, "pool");
            return this;
        }

        public GroveHashMap<K, V> build() {
            if (evictionListener != null && maximumSize == Long.MAX_VALUE && maximumBytes == Long.MAX_VALUE) {
                throw new IllegalArgumentException("an eviction listener needs maximumSize or maximumBytes");
            }
            Bounds<K, V> bounds = new Bounds<>(maximumSize, maximumBytes, evictionListener, recordStats);
            if (pool != null && memoryLimit > 0) {
                throw new IllegalArgumentException("memoryLimit (" + memoryLimit
                        + ") applies to the map's own pool; a shared pool has its own limit (" + pool.memoryLimit()
                        + ")");
            }
            if (pool != null) {
                if (pool.isClosed()) {
                    throw new IllegalStateException("the given pool is closed");
                }
                return new OffHeapHashMap<>((Pool) pool, false, keySerializer, valueSerializer, expectedSize, bounds);
            }
            MemoryPool.Builder own = MemoryPool.builder();
            if (memoryLimit > 0) {
                own.memoryLimit(memoryLimit);
            }
            Pool ownPool = (Pool) own.build();
            try {
                return new OffHeapHashMap<>(ownPool, true, keySerializer, valueSerializer, expectedSize, bounds);
            } catch (RuntimeException | Error e) {
                ownPool.close();
                throw e;
            }
        }
    }
}
