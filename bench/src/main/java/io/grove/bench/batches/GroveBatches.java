package io.grove.bench.batches;

import io.grove.GroveSnapshot;
import io.grove.GroveSortedMap;
import io.grove.WriteBatch;
import io.grove.ZeroCopySortedMap;
import io.grove.bench.ThreadContext;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Map;

/**
 * Grove's ordered map with byte-array keys and values: a batch is one {@link WriteBatch} per thread, cleared and
 * refilled with the thread's arrays, applied atomically; single-key operations and snapshot scans use the zero-copy
 * API.
 */
final class GroveBatches implements BatchStore {
    private final GroveSortedMap<byte[], byte[]> map;
    private final ZeroCopySortedMap<byte[], byte[]> zc;

    GroveBatches(long memoryLimit, boolean snapshots) {
        GroveSortedMap.Builder<byte[], byte[]> builder =
                GroveSortedMap.builder(Serializers.bytes(), Serializers.bytes()).memoryLimit(memoryLimit);
        this.map = (snapshots ? builder.snapshots() : builder).build();
        this.zc = map.zc();
    }

    @Override
    @SuppressWarnings("unchecked")
    public void apply(BatchThread t) {
        if (t.own == null) {
            t.own = map.batch();
        }
        WriteBatch<byte[], byte[]> batch = (WriteBatch<byte[], byte[]>) t.own;
        batch.clear();
        for (int i = 0; i < t.size; i++) {
            if (t.removals[i]) {
                batch.remove(t.keys[i]);
            } else {
                batch.put(t.keys[i], t.values[i]);
            }
        }
        batch.apply();
    }

    @Override
    public void put(BatchThread t) {
        zc.put(t.key, t.value);
    }

    @Override
    public boolean get(long id, BatchThread t, ThreadContext c) {
        while (true) {
            Handle h = zc.get(t.key);
            if (h == null) {
                return false;
            }
            try {
                long stamp = h.getLong(BatchCodec.STAMP);
                if (h.getLong(BatchCodec.ID) != id || h.getLong(BatchCodec.CHECK) != BatchCodec.check(id, stamp)) {
                    c.mismatches++;
                }
                c.sink += stamp;
                return true;
            } catch (ConcurrentModificationException replaced) {
                c.readRetries++;
            }
        }
    }

    /** A zero-copy scan in a snapshot: {@link #scan(Iterator, int, ThreadContext)}. */
    @Override
    public void snapshotScan(BatchThread t, int count, ThreadContext c) {
        try (GroveSnapshot<byte[], byte[]> snapshot = map.snapshot()) {
            scan(snapshot.zc().tailMap(t.key, true).entryStream().iterator(), count, c);
        }
    }

    @Override
    public void scan(BatchThread t, int count, ThreadContext c) {
        scan(zc.tailMap(t.key, true).entryStream().iterator(), count, c);
    }

    /**
     * A zero-copy scan: one reused key and value handle, the id, stamp and check words read in place. A value
     * replaced while it is read (only in a scan of the map itself: a snapshot's versions do not change) counts as a
     * read retry and is skipped.
     */
    private static void scan(Iterator<Map.Entry<Handle, Handle>> entries, int count, ThreadContext c) {
        for (int i = 0; i < count && entries.hasNext(); i++) {
            Map.Entry<Handle, Handle> e = entries.next();
            Handle value = e.getValue();
            try {
                long id = e.getKey().getLong(0);
                long stamp = value.getLong(BatchCodec.STAMP);
                if (value.getLong(BatchCodec.ID) != id
                        || value.getLong(BatchCodec.CHECK) != BatchCodec.check(id, stamp)) {
                    c.mismatches++;
                }
                c.sink += stamp;
            } catch (ConcurrentModificationException replaced) {
                c.readRetries++;
            }
        }
    }

    @Override
    public void snapshotGet(long id, BatchThread t, ThreadContext c) {
        try (GroveSnapshot<byte[], byte[]> snapshot = map.snapshot()) {
            byte[] value = snapshot.get(t.key);
            if (value == null) {
                c.misses++;
            } else if (!BatchCodec.matches(value, id)) {
                c.mismatches++;
            }
        }
    }

    @Override
    public long size() {
        return map.size();
    }

    @Override
    public long verify() {
        long wrong = 0;
        for (Map.Entry<byte[], byte[]> e : map.entrySet()) {
            if (!BatchCodec.matches(e.getValue(), BatchCodec.idOf(e.getKey()))) {
                wrong++;
            }
        }
        return wrong;
    }

    @Override
    public OffHeap offHeap() {
        return OffHeap.of(map.footprint());
    }

    @Override
    public void close() {
        map.close();
    }
}
