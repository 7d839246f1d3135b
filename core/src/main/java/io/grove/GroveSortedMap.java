package io.grove;

import io.grove.internal.memory.Pool;
import io.grove.internal.sorted.OffHeapSortedMap;
import io.grove.serial.Serializer;
import java.util.Comparator;
import java.util.Objects;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.function.Function;

/**
 * A concurrent ordered map whose keys and values live off the Java heap, in a {@link MemoryPool}, indexed by
 * chunks of entries kept in primitive arrays on the heap (the Oak algorithm). Implements
 * {@link ConcurrentNavigableMap} completely, with every view; {@link #zc()} gives the zero-copy API.
 *
 * <p>Order: by default keys are ordered by their serialized bytes, compared as unsigned bytes, which is the
 * natural order of the keys for the order-preserving serializers of {@link io.grove.serial.Serializers}
 * ({@code comparator()} then returns a comparator that serializes both keys and compares their bytes). With
 * {@link Builder#comparator}, keys are ordered by that comparator, applied to deserialized keys: every comparison
 * inside the map then deserializes a stored key, which is much slower. Two keys are the same key exactly when
 * they compare equal. A read that races with a rebalance may hand the key deserializer the bytes of a key removed
 * meanwhile and already reused: it must then fail (whatever it throws is discarded before the map retries) or
 * return some key, and must end, as {@link io.grove.serial.Serializer}'s contract for reads without a lock says.
 *
 * <p>Atomicity: every single-key method is atomic, including {@code compute}, {@code computeIfAbsent},
 * {@code computeIfPresent} and {@code merge}, whose function runs at most once, while the key's value is locked
 * (it must be short and should not use the map); {@code pollFirstEntry} and {@code pollLastEntry} remove the entry
 * they return atomically. {@code putAll}, {@code replaceAll} and {@code clear} are atomic per key; a
 * {@link #batch()} of puts and removals is atomic as a whole: every read, scan and update sees all of it or none,
 * no reader waits for it, and a writer of one of its keys waits only while it is being applied. A map built with
 * {@link Builder#snapshots()} also gives {@link #snapshot()}: a read-only view of one instant, consistent across
 * keys, acquired in constant time ({@link GroveSnapshot}). Iterators,
 * views and navigation over several keys ({@code firstKey}, {@code ceilingEntry}...) are weakly consistent, as
 * {@link java.util.concurrent.ConcurrentSkipListMap}'s: they never throw
 * {@link java.util.ConcurrentModificationException} and return every entry present throughout the iteration
 * exactly once, in order. Their streams are weakly consistent in the same way: the views' spliterators report
 * {@code CONCURRENT}, {@code NONNULL} and {@code ORDERED} (keys and entries also {@code DISTINCT} and
 * {@code SORTED} by the view's {@code comparator()}) and no fixed size, so sequential and parallel streams work
 * while the map changes. {@code size()} adds per-chunk counts and is exact only when no update runs.
 * {@code containsKey} and {@code get} take O(log n) steps.
 *
 * <p>Sizes: a key takes one slice of the pool and may be as large as {@link MemoryPool#maxSliceSize()}; a value
 * takes one slice with an 8-byte header (its lock, Oak §3.3), so it may be 8 bytes smaller. A larger key (by its
 * serializer's {@code size}) is never serialized: reads and removals answer absent; writes, and the methods
 * that order keys around it (views bounded by it, navigation from it such as {@code floorKey}, and
 * {@code comparator().compare}), throw {@link IllegalArgumentException} naming its size and the limit.
 *
 * <p>Zero-copy key handles ({@code zc().keySet()} and the key streams) differ from the hash map's, which end when
 * their entry is removed or its value replaced (key and value share a slice there): here a key has its own slice,
 * so a key handle survives puts, and a removed key keeps its bytes until the map compacts its chunk (removals
 * trigger that once about half the chunk's entries are removed ones), so a handle on a removed key may still read
 * the key, its own bytes, until then; after the compaction it throws
 * {@link java.util.ConcurrentModificationException}. Value handles fail as soon as the value is removed or
 * replaced. A map built with {@link Builder#layOutForScans()} moves pairs to other memory; its handles never fail
 * because of a move (see there).
 *
 * <p>Memory: removed keys are freed by those compactions, so the pool holds fewer removed keys than live entries
 * plus a few (16 at the default chunk size) per chunk of the map, and none once every key is removed. The heap
 * footprint ({@link #heapFootprint()}) follows the number of entries: 32 to about 130 bytes each (a chunk's array
 * has room for up to twice the entries it was built with, and is compacted once about half of them are removed)
 * plus about 100 bytes per chunk.
 *
 * <p>Functions that call the map: a function passed to {@code compute}, {@code computeIfAbsent},
 * {@code computeIfPresent}, {@code merge} or to a zero-copy in-place update runs on the caller's thread while the
 * operation holds its key's value locked and keeps its chunk of entries from being rebalanced. A call from the
 * function to the same map that would wait for the function itself throws {@link IllegalStateException}
 * ("Recursive update", as {@link java.util.concurrent.ConcurrentHashMap} does) and changes nothing: an update of
 * the same key; a copying read of it ({@code get}, a value or entry scan reaching it); an insert that fills the
 * chunk the operation is in, or one that must wait for a rebalance (by another thread) that waits for the
 * operation; {@code close()}; {@link WriteBatch#apply()} of a batch (which could wait for the function). Reads of
 * other keys, key-only scans, zero-copy {@code get} and inserts that fit work; a nested read of a key being computed
 * while absent sees it absent; a nested update of a key that a running batch holds waits for that batch, which
 * gives its keys up within about a millisecond if it waits for the function. Which calls can wait depends on how
 * the entries are laid out in chunks and on other threads' rebalances, so a function should still not rely on
 * calling the map; two functions on different threads that each update the other's key deadlock, as in
 * {@code ConcurrentHashMap}.
 *
 * <p>Range views ({@code subMap}, {@code headMap}, {@code tailMap}, and their zero-copy versions) treat a key
 * outside their bounds as {@link java.util.concurrent.ConcurrentSkipListMap}'s sub-maps do: reads and removals
 * answer as for an absent key, insertions throw {@link IllegalArgumentException}, {@code compute} and
 * {@code computeIfAbsent} call their function as for an absent key and throw only if it returns a value.
 *
 * <p>Nulls are rejected as keys and values with {@link NullPointerException}. After {@link #close()}, every
 * method that reads or changes entries throws {@link IllegalStateException}.
 */
public interface GroveSortedMap<K, V> extends ConcurrentNavigableMap<K, V>, AutoCloseable {

    static <K, V> Builder<K, V> builder(Serializer<K> keySerializer, Serializer<V> valueSerializer) {
        return new Builder<>(keySerializer, valueSerializer);
    }

    /** The zero-copy API over the same entries, ascending. */
    ZeroCopySortedMap<K, V> zc();

    /**
     * A new, empty batch of puts and removals that {@link WriteBatch#apply()} applies to this map atomically.
     *
     * @throws IllegalStateException if the map is closed
     */
    WriteBatch<K, V> batch();

    /**
     * A read-only view of the map as it is now, which does not change when the map does ({@link GroveSnapshot});
     * constant time. The map keeps the older versions an open snapshot reads: close it when done.
     *
     * @throws IllegalStateException if the map was not built with {@link Builder#snapshots()}, is closed, or has
     *     1024 snapshots open (after asking for a garbage collection and waiting up to half a second for snapshots
     *     dropped without {@code close()} to be closed: {@link GroveSnapshot})
     */
    GroveSnapshot<K, V> snapshot();

    /**
     * Runs {@code reader} on a snapshot of the map taken now ({@link #snapshot()}) and closes the snapshot when
     * {@code reader} returns or throws: the way to make scans, and any reads of several keys or ranges, linearizable
     * (they all see the map at the instant the snapshot was taken), while the map's own views stay weakly consistent
     * and as fast as before. Returns what {@code reader} returns, which must not keep the snapshot or its views.
     *
     * @throws IllegalStateException as {@link #snapshot()}
     */
    default <R> R withSnapshot(Function<? super GroveSnapshot<K, V>, ? extends R> reader) {
        try (GroveSnapshot<K, V> snapshot = snapshot()) {
            return reader.apply(snapshot);
        }
    }

    /** Off-heap figures of the map's pool (shared with other maps if the pool is shared). */
    MemoryFootprint footprint();

    /**
     * What the open snapshots hold: how many are open, the oldest one's age, and the older versions the map keeps
     * for them ({@link SnapshotFootprint}). Walks the entries of the chunks holding older versions (at most linear
     * in the map's size, like {@code size()}); read without stopping writers, so exact only when none runs. All
     * zero for a map built without {@link Builder#snapshots()}.
     *
     * @throws IllegalStateException if the map is closed
     */
    SnapshotFootprint snapshotFootprint();

    /**
     * Bytes of Java heap the map's metadata takes now (chunk arrays and their index), an estimate within a few
     * percent; keys and values are off heap and not counted.
     */
    long heapFootprint();

    /**
     * Releases the map's off-heap memory: closes its own pool, or, on a shared pool, frees the map's slices.
     * Idempotent. Operations that run while the map closes either complete (if they got in first) or throw
     * {@link IllegalStateException}, as all later ones do; on a shared pool none of them touches memory that
     * another map reuses.
     */
    @Override
    void close();

    /** Builds a {@link GroveSortedMap}; each setter validates its argument, {@link #build()} checks them together. */
    final class Builder<K, V> {
        /** Entries per chunk unless set: the configuration of Oak's evaluation (Oak, §5). */
        public static final int DEFAULT_CHUNK_SIZE = 4096;
        public static final int MIN_CHUNK_SIZE = 4;
        public static final int MAX_CHUNK_SIZE = 1 << 20;

        private final Serializer<K> keySerializer;
        private final Serializer<V> valueSerializer;
        private Comparator<? super K> comparator;
        private long memoryLimit = -1;
        private MemoryPool pool;
        private int chunkSize = DEFAULT_CHUNK_SIZE;
        private boolean hugePages;
        private boolean snapshots;
        private boolean layOutForScans;

        Builder(Serializer<K> keySerializer, Serializer<V> valueSerializer) {
            this.keySerializer = Objects.requireNonNull(keySerializer, "keySerializer");
            this.valueSerializer = Objects.requireNonNull(valueSerializer, "valueSerializer");
        }

        /** Orders keys by {@code comparator} on deserialized keys instead of by their serialized bytes (slower). */
        public Builder<K, V> comparator(Comparator<? super K> comparator) {
            this.comparator = Objects.requireNonNull(comparator, "comparator");
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

        /**
         * Entries per chunk, {@value #MIN_CHUNK_SIZE} to {@value #MAX_CHUNK_SIZE}; default
         * {@value #DEFAULT_CHUNK_SIZE}.
         */
        public Builder<K, V> chunkSize(int entries) {
            if (entries < MIN_CHUNK_SIZE || entries > MAX_CHUNK_SIZE) {
                throw new IllegalArgumentException("chunkSize must be between " + MIN_CHUNK_SIZE + " and "
                        + MAX_CHUNK_SIZE + ", was " + entries);
            }
            this.chunkSize = entries;
            return this;
        }

        /**
         * Asks for huge pages for the map's own pool ({@link MemoryPool.Builder#hugePages}: fewer TLB misses when
         * gets and scans reach keys and values spread over a large map, memory committed 2 MiB at a time; the JVM
         * must run with {@code --enable-native-access}, else {@link #build()} throws
         * {@link IllegalStateException}); not allowed together with {@link #pool} (build that pool with it).
         */
        public Builder<K, V> hugePages() {
            this.hugePages = true;
            return this;
        }

        /**
         * Lets the map take snapshots ({@link GroveSortedMap#snapshot()}): each value records when it was written and
         * the value it replaced, 16 more bytes per value, and updates keep the values an open snapshot may read.
         * Without snapshots open, updates cost about as much as without this option.
         */
        public Builder<K, V> snapshots() {
            this.snapshots = true;
            return this;
        }

        /**
         * Lays out pairs in key order for scans. Pairs are otherwise where their inserts put them, in insertion order,
         * so a scan of a map filled in random order misses the cache on every key and value. With this option, a scan
         * that reads a chunk to its end (whose pairs are not in key order, and which scans reached more than once
         * since it was built) copies the chunk's keys and values into fresh memory one pair after another, in key
         * order, so later scans read them as one stream; a chunk is laid out again once a quarter as many pairs were
         * inserted into it since. Ascending zero-copy scans of a map filled in random order ran 2.2-3x faster
         * after the layout ({@code BENCHMARKS.md}).
         *
         * <p>Costs. Memory: the copies take fresh memory of the pool (never reused memory, which is scattered), and
         * the old slices go to the pool's free lists, reused by later writes, so laying out a whole map may reserve up
         * to twice the bytes of its pairs; when the pool's limit leaves no fresh memory, pairs stay where they are.
         * Time: the scan that lays a chunk out copies its pairs (a few milliseconds for 4,096 pairs of 1 KB).
         * Handles: a stream's handles follow the pair they point at when it moves (so one thread at a time reads an
         * element's handles, as the stream re-points them at the next element anyway), and a consistent read that a
         * move overlaps runs its function again at the new place ({@link io.grove.view.Handle#read}, whose function
         * must so have no side effects even when nothing writes the map); a handle that outlives its read
         * ({@code zc().get}, the iterators of the {@code zc()} sets) marks its chunk, and the pairs of a marked chunk's
         * range are never moved again; so a set's iterator lays a chunk whose pairs are out of order out before it
         * marks it (the iterator's first step into such a chunk pays the copy). Not allowed together with
         * {@link #snapshots()}, nor with a shared {@link #pool} whose reclamation never reuses memory
         * ({@link Reclamation#GROW_ONLY}).
         */
        public Builder<K, V> layOutForScans() {
            this.layOutForScans = true;
            return this;
        }

        /** A pool to draw on, shared with other maps; the map does not close it. */
        public Builder<K, V> pool(MemoryPool pool) {
            this.pool = Objects.requireNonNull(pool, "pool");
            return this;
        }

        public GroveSortedMap<K, V> build() {
            if (pool != null && memoryLimit > 0) {
                throw new IllegalArgumentException("memoryLimit (" + memoryLimit
                        + ") applies to the map's own pool; a shared pool has its own limit (" + pool.memoryLimit()
                        + ")");
            }
            if (hugePages && pool != null) {
                throw new IllegalArgumentException("hugePages applies to the map's own pool; build the shared pool"
                        + " with MemoryPool.Builder.hugePages");
            }
            if (layOutForScans && snapshots) {
                throw new IllegalArgumentException("layOutForScans and snapshots cannot be combined: a snapshot reads "
                        + "values in place, where the layout would move them");
            }
            if (pool != null) {
                if (pool.isClosed()) {
                    throw new IllegalStateException("the given pool is closed");
                }
                if (layOutForScans && pool.reclamation() != Reclamation.NOVA) {
                    throw new IllegalArgumentException("layOutForScans needs a pool that reuses the memory of the "
                            + "slices it moves away from; the given pool's reclamation is " + pool.reclamation());
                }
                return new OffHeapSortedMap<>((Pool) pool, false, keySerializer, valueSerializer, comparator,
                        chunkSize, snapshots, layOutForScans);
            }
            MemoryPool.Builder own = MemoryPool.builder().hugePages(hugePages);
            if (memoryLimit > 0) {
                own.memoryLimit(memoryLimit);
            }
            Pool ownPool = (Pool) own.build();
            try {
                return new OffHeapSortedMap<>(ownPool, true, keySerializer, valueSerializer, comparator, chunkSize,
                        snapshots, layOutForScans);
            } catch (RuntimeException | Error e) {
                ownPool.close();
                throw e;
            }
        }
    }
}
