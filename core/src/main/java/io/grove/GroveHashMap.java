package io.grove;

import io.grove.internal.hash.OffHeapHashMap;
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
 * <p>Nulls are rejected as keys and values with {@link NullPointerException}. After {@link #close()}, every
 * method throws {@link IllegalStateException}.
 */
public interface GroveHashMap<K, V> extends ConcurrentMap<K, V>, AutoCloseable {

    static <K, V> Builder<K, V> builder(Serializer<K> keySerializer, Serializer<V> valueSerializer) {
        return new Builder<>(keySerializer, valueSerializer);
    }

    /** The zero-copy API over the same entries. */
    ZeroCopyMap<K, V> zc();

    /** Off-heap figures of the map's pool (shared with other maps if the pool is shared). */
    MemoryFootprint footprint();

    /**
     * Releases the map's off-heap memory: closes its own pool, or, on a shared pool, frees the map's slices.
     * Idempotent.
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

        /** The memory limit of the map's own pool; not allowed together with {@link #pool}. */
        public Builder<K, V> memoryLimit(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("memoryLimit must be positive, was " + bytes);
            }
            this.memoryLimit = bytes;
            return this;
        }

        /** A pool to draw on, shared with other maps; the map does not close it. */
        public Builder<K, V> pool(MemoryPool pool) {
            this.pool = Objects.requireNonNull(pool, "pool");
            return this;
        }

        public GroveHashMap<K, V> build() {
            if (pool != null && memoryLimit > 0) {
                throw new IllegalArgumentException("memoryLimit (" + memoryLimit
                        + ") applies to the map's own pool; a shared pool has its own limit (" + pool.memoryLimit()
                        + ")");
            }
            if (pool != null) {
                if (pool.isClosed()) {
                    throw new IllegalStateException("the given pool is closed");
                }
                return new OffHeapHashMap<>((Pool) pool, false, keySerializer, valueSerializer, expectedSize);
            }
            MemoryPool.Builder own = MemoryPool.builder();
            if (memoryLimit > 0) {
                own.memoryLimit(memoryLimit);
            }
            return new OffHeapHashMap<>((Pool) own.build(), true, keySerializer, valueSerializer, expectedSize);
        }
    }
}
