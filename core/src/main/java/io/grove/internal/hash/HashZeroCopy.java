package io.grove.internal.hash;

import io.grove.ZeroCopyMap;
import io.grove.internal.memory.Pool;
import io.grove.internal.view.SliceHandle;
import io.grove.internal.view.SliceResizer;
import io.grove.view.Handle;
import io.grove.view.ResizableView;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The zero-copy API of {@link OffHeapHashMap}. Writes return no old value, so nothing is deserialized; in-place
 * updates run under the segment's lock with the entry's stamp odd, so lock-free readers of that entry's value wait
 * for them and see the value either before or after, while readers of other keys go on.
 */
final class HashZeroCopy<K, V> implements ZeroCopyMap<K, V> {
    private final OffHeapHashMap<K, V> map;
    private final HashTable table;
    private final Pool pool;
    private final HashScans<K, V> scans;
    /** Whether the map is in a file, so that in-place updates save a {@link BeforeImage} there first. */
    private final boolean inFile;

    HashZeroCopy(OffHeapHashMap<K, V> map) {
        this.map = map;
        this.table = map.table;
        this.pool = map.pool();
        this.scans = new HashScans<>(map);
        this.inFile = pool.inFile();
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
                long e = map.findLinked(s, scratch);
                if (HashTable.isInline(e)) {
                    e = map.findApart(s, scratch);
                }
                if (e == 0) {
                    map.recordRead(s, 0);
                    return null;
                }
                try {
                    Handle handle = new SliceHandle(pool, map.valueWriters).pointAt(e,
                            EntryLayout.valueOffset(scratch.keyLength()), -1, EntryLayout.STAMP)
                            .identifiedAt(EntryLayout.IDENTITY);
                    map.recordRead(s, e);
                    return handle;
                } catch (ConcurrentModificationException removedMeanwhile) {
                    // e was linked at the search; it was removed or replaced since: search again
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
        map.lock(s, scratch);
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
        map.lock(s, scratch);
        try {
            long e = table.findLocked(s, scratch);
            if (e == 0) {
                return false;
            }
            map.unlink(s, scratch, e);
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
        map.lock(s, scratch);
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
        map.lock(s, scratch);
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
     * Under the lock: runs {@code computer} on entry {@code e}'s value in place, with the entry's stamp odd so that
     * lock-free readers of this entry's value wait for it (readers of other keys of the segment do not), and every
     * write journaled. A resize moves the value into a new entry slice (the resizer leaves room for the fields and
     * key, copied here), which takes {@code e}'s place in one short mutation of the segment once the computer
     * returned and a bounded map made room for its growth. If the computer throws, or room cannot be made, the
     * journal restores the bytes written in place and the resized copy is dropped: the value is as it was. In a map
     * in a file the value is first saved in the file too ({@link BeforeImage}), for a reopen after the process was
     * killed during the update, and the entry's check word is recomputed before its stamp turns even. In a bounded
     * map an entry in its cell is first moved apart ({@link HashTable#spill}): the evictions that make room for a
     * resize shift cells, and the update's stamp, journal and replacement must stay on its entry.
     */
    private void updateInPlace(int s, long entry, Consumer<? super ResizableView> computer, Scratch scratch) {
        long e = map.isBounded() ? table.spill(s, entry) : entry;
        SliceResizer resizer = scratch.resizer;
        int start = table.valueStart(e);
        long image = inFile ? table.saveBeforeImage(s, e, start) : 0;
        scratch.updating(table, s);
        resizer.start(e, start);
        long odd = table.beginValueWrite(e);
        boolean done = false;
        try {
            scratch.writeView.openJournaled(pool.segment(e), pool.payloadOffset(e) + start,
                    (int) table.entryBytes(e) - start,
                    resizer, scratch.journal);
            computer.accept(scratch.writeView);
            scratch.writeView.close();
            if (resizer.moved()) {
                long fresh = resizer.current();
                long grown = map.reserveGrowth(s, e, fresh, scratch);
                table.copyKeyAndFields(e, fresh);
                table.seal(fresh);
                table.replace(s, scratch.keyHash(), e, fresh); // deletes e, whose stamp stays odd
                map.releaseShrink(s, grown);
            } else {
                table.seal(e);
            }
            done = true;
        } finally {
            scratch.writeView.close();
            if (done) {
                scratch.journal.commit();
            } else {
                scratch.journal.undo();
                resizer.abandon();
            }
            if (!resizer.moved()) {
                table.endValueWrite(e, odd);
            }
            if (image != 0) {
                table.forgetBeforeImage(s, image);
            }
        }
    }
}
