package io.grove.internal.hash;

import io.grove.ZeroCopyMap;
import io.grove.internal.memory.Pool;
import io.grove.internal.view.SliceHandle;
import io.grove.internal.view.SliceResizer;
import io.grove.view.Handle;
import io.grove.view.ResizableView;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The zero-copy API of {@link OffHeapHashMap}. Writes return no old value, so nothing is deserialized; in-place
 * updates run under the segment's lock inside a mutation, so lock-free readers of the segment retry around them
 * and see the value either before or after.
 */
final class HashZeroCopy<K, V> implements ZeroCopyMap<K, V> {
    private final OffHeapHashMap<K, V> map;
    private final HashTable table;
    private final Pool pool;
    private final HashScans<K, V> scans;

    HashZeroCopy(OffHeapHashMap<K, V> map) {
        this.map = map;
        this.table = map.table;
        this.pool = map.pool();
        this.scans = new HashScans<>(map);
    }

    @Override
    public Set<Handle> keySet() {
        return scans.keySet();
    }

    @Override
    public Collection<Handle> values() {
        return scans.values();
    }

    @Override
    public Set<Map.Entry<Handle, Handle>> entrySet() {
        return scans.entrySet();
    }

    @Override
    public Stream<Handle> keyStream() {
        return scans.keyStream();
    }

    @Override
    public Stream<Handle> valueStream() {
        return scans.valueStream();
    }

    @Override
    public Stream<Map.Entry<Handle, Handle>> entryStream() {
        return scans.entryStream();
    }

    @Override
    public Handle get(K key) {
        Scratch scratch = map.begin(key);
        try {
            int s = table.segmentOf(scratch.keyHash());
            while (true) {
                long version = table.awaitStable(s);
                Handle handle = null;
                try {
                    long e = table.findLockFree(s, scratch);
                    if (e == HashTable.RETRY) {
                        map.checkNotCorrupted(s, version);
                        continue;
                    }
                    if (e != 0) {
                        handle = new SliceHandle(pool).pointAt(e, table.valueStart(e), -1);
                    }
                    if (table.isStable(s, version)) {
                        map.recordRead(e);
                        return handle;
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

    @Override
    public void put(K key, V value) {
        Objects.requireNonNull(value, "value");
        Scratch scratch = map.begin(key);
        int s = table.segmentOf(scratch.keyHash());
        scratch.lockToken = table.lock(s);
        try {
            long e = table.findLocked(s, scratch);
            if (e == 0) {
                map.insertNew(s, scratch, value);
            } else {
                map.replaceWith(s, e, value, scratch);
            }
        } finally {
            map.finish(s, scratch);
        }
    }

    @Override
    public boolean putIfAbsent(K key, V value) {
        return insertOrUpdate(key, value, null);
    }

    @Override
    public boolean remove(K key) {
        Scratch scratch = map.begin(key);
        int s = table.segmentOf(scratch.keyHash());
        scratch.lockToken = table.lock(s);
        try {
            long e = table.findLocked(s, scratch);
            if (e == 0) {
                return false;
            }
            table.unlink(s, scratch, e);
            return true;
        } finally {
            map.finish(s, scratch);
        }
    }

    @Override
    public boolean computeIfPresent(K key, Consumer<? super ResizableView> computer) {
        Objects.requireNonNull(computer, "computer");
        Scratch scratch = map.begin(key);
        int s = table.segmentOf(scratch.keyHash());
        scratch.lockToken = table.lock(s);
        try {
            long e = table.findLocked(s, scratch);
            if (e == 0) {
                return false;
            }
            updateInPlace(s, e, computer, scratch);
            return true;
        } finally {
            map.finish(s, scratch);
        }
    }

    @Override
    public boolean putIfAbsentComputeIfPresent(K key, V value, Consumer<? super ResizableView> computer) {
        Objects.requireNonNull(computer, "computer");
        return insertOrUpdate(key, value, computer);
    }

    /** Inserts if absent; otherwise runs {@code computer} in place unless it is {@code null} (plain putIfAbsent). */
    private boolean insertOrUpdate(K key, V value, Consumer<? super ResizableView> computer) {
        Objects.requireNonNull(value, "value");
        Scratch scratch = map.begin(key);
        int s = table.segmentOf(scratch.keyHash());
        scratch.lockToken = table.lock(s);
        try {
            long e = table.findLocked(s, scratch);
            if (e == 0) {
                map.insertNew(s, scratch, value);
                return true;
            }
            if (computer != null) {
                updateInPlace(s, e, computer, scratch);
            }
            return false;
        } finally {
            map.finish(s, scratch);
        }
    }

    /**
     * Under the lock: runs {@code computer} on entry {@code e}'s value inside a mutation of segment {@code s}. A
     * resize moves the value into a new entry slice (the resizer leaves room for the fields and key, copied here),
     * which takes {@code e}'s place in the same mutation.
     */
    private void updateInPlace(int s, long e, Consumer<? super ResizableView> computer, Scratch scratch) {
        SliceResizer resizer = scratch.resizer;
        int start = table.valueStart(e);
        resizer.start(e, start);
        table.beginMutation(s);
        try {
            scratch.writeView.open(pool.segment(e), pool.payloadOffset(e) + start, pool.length(e) - start, true,
                    resizer);
            computer.accept(scratch.writeView);
        } finally {
            scratch.writeView.close();
            if (resizer.moved()) {
                table.copyKeyAndFields(e, resizer.current(), pool.length(resizer.current()) - start);
                table.replaceInMutation(s, e, resizer.current());
            }
            table.endMutation(s);
            if (resizer.moved()) {
                pool.delete(e);
            }
        }
        if (table.isBounded() && resizer.moved()) {
            map.makeRoom(s, scratch, 0, 0, resizer.current());
        }
    }
}
