package io.grove.internal.sorted;

import io.grove.GroveSnapshot;
import io.grove.GroveSortedMap;
import io.grove.MemoryFootprint;
import io.grove.SnapshotFootprint;
import io.grove.WriteBatch;
import io.grove.ZeroCopySortedMap;
import io.grove.internal.memory.Pool;
import io.grove.internal.sync.CallRegistry;
import io.grove.serial.Serializer;
import java.util.Comparator;

/**
 * {@link GroveSortedMap}: the whole-range ascending view of a {@link ChunkMap}, plus the map's life cycle. Its
 * algorithm is described in {@link ChunkMap} (operations), {@link Update} and {@link EntryUpdates} (what each
 * update does to its entry), {@link Chunk} (entries), {@link ChunkIndex} (the index), {@link Rebalancer} (splits,
 * merges, compaction), {@link Values} (value locks and optimistic reads) and {@link Cursor} (ordered scans).
 */
public final class OffHeapSortedMap<K, V> extends SortedRangeMap<K, V> implements GroveSortedMap<K, V> {
    private final boolean ownsPool;

    public OffHeapSortedMap(Pool pool, boolean ownsPool, Serializer<K> keySerializer, Serializer<V> valueSerializer,
            Comparator<? super K> comparator, int chunkSize, boolean snapshots, boolean layOutForScans) {
        super(new ChunkMap<>(pool, keySerializer, valueSerializer, KeyOrder.of(comparator, keySerializer),
                chunkSize, snapshots, layOutForScans), null, Range.all(), false, comparator != null ? comparator
                : new SerializedOrder<>(keySerializer, pool.maxSliceSize()));
        this.ownsPool = ownsPool;
    }

    @Override
    public ZeroCopySortedMap<K, V> zc() {
        return new SortedZeroCopy<>(this);
    }

    @Override
    public WriteBatch<K, V> batch() {
        map.checkOpen();
        return new SortedWriteBatch<>(new BatchUpdates<>(map));
    }

    @Override
    public GroveSnapshot<K, V> snapshot() {
        return new SortedSnapshot<>(map, comparator());
    }

    @Override
    public MemoryFootprint footprint() {
        map.checkOpen();
        return map.pool.footprint();
    }

    @Override
    public SnapshotFootprint snapshotFootprint() {
        return map.snapshotFootprint();
    }

    @Override
    public long heapFootprint() {
        return map.heapFootprint();
    }

    @Override
    public void close() {
        if (map.calls.callerInside()) {
            throw CallRegistry.recursiveUpdate("close() called from a function passed to an operation on this map; "
                    + "the close would wait for the function to return");
        }
        if (!map.markClosed()) {
            return;
        }
        if (ownsPool) {
            map.pool.close();
        } else if (!map.pool.isClosed()) {
            map.freeAll();
        }
    }

    /** The default order as a comparator: serializes both keys and compares their bytes as unsigned. */
    private record SerializedOrder<K>(Serializer<K> serializer, int maxLength) implements Comparator<K> {
        @Override
        public int compare(K a, K b) {
            return KeyOrder.BYTES.compare(Key.of(serializer, a, maxLength), Key.of(serializer, b, maxLength));
        }
    }
}
