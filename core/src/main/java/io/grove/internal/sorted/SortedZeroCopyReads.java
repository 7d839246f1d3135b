package io.grove.internal.sorted;

import io.grove.ZeroCopySortedReads;
import io.grove.internal.view.ReusedEntry;
import io.grove.internal.view.ScanSpliterator;
import io.grove.internal.view.SliceHandle;
import io.grove.view.Handle;
import java.util.AbstractCollection;
import java.util.AbstractSet;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.Spliterator;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The zero-copy reads over a {@link SortedRangeMap}'s range and order, of the map now or of the view's snapshot:
 * {@code get}, and ordered scans whose elements are handles on the off-heap keys and values. A set's iterator hands
 * out a new handle per element; a stream points one handle (and one entry) at element after element. A key outside
 * the range is absent. A snapshot's handles read without a stamp under the snapshot's lease
 * ({@link io.grove.internal.view.SliceHandle.Lease}): the versions it reads do not change while it is open.
 */
class SortedZeroCopyReads<K, V> implements ZeroCopySortedReads<K, V> {
    final SortedRangeMap<K, V> view;
    final ChunkMap<K, V> map;
    /** The snapshot whose versions the handles read, or {@code null}. */
    private final Snapshot snapshot;

    SortedZeroCopyReads(SortedRangeMap<K, V> view) {
        this.view = view;
        this.map = view.map;
        this.snapshot = view.snapshot;
    }

    @Override
    public Handle get(K key) {
        return view.inRange(key) ? map.handle(key, snapshot) : null;
    }

    // ---- ranges

    @Override
    public ZeroCopySortedReads<K, V> descendingMap() {
        return new SortedZeroCopyReads<>((SortedRangeMap<K, V>) view.descendingMap());
    }

    @Override
    public ZeroCopySortedReads<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
        return new SortedZeroCopyReads<>(
                (SortedRangeMap<K, V>) view.subMap(fromKey, fromInclusive, toKey, toInclusive));
    }

    @Override
    public ZeroCopySortedReads<K, V> headMap(K toKey, boolean inclusive) {
        return new SortedZeroCopyReads<>((SortedRangeMap<K, V>) view.headMap(toKey, inclusive));
    }

    @Override
    public ZeroCopySortedReads<K, V> tailMap(K fromKey, boolean inclusive) {
        return new SortedZeroCopyReads<>((SortedRangeMap<K, V>) view.tailMap(fromKey, inclusive));
    }

    // ---- scans

    @Override
    public Set<Handle> keySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Handle> iterator() {
                return new Scan(false).parts(true);
            }

            @Override
            public Spliterator<Handle> spliterator() {
                return ScanSpliterator.of(iterator(), Spliterator.ORDERED | Spliterator.DISTINCT);
            }

            @Override
            public int size() {
                return view.size();
            }
        };
    }

    @Override
    public Collection<Handle> values() {
        return new AbstractCollection<>() {
            @Override
            public Iterator<Handle> iterator() {
                return new Scan(false).parts(false);
            }

            @Override
            public Spliterator<Handle> spliterator() {
                return ScanSpliterator.of(iterator(), Spliterator.ORDERED);
            }

            @Override
            public int size() {
                return view.size();
            }
        };
    }

    @Override
    public Set<Map.Entry<Handle, Handle>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<Handle, Handle>> iterator() {
                return new Scan(false);
            }

            @Override
            public Spliterator<Map.Entry<Handle, Handle>> spliterator() {
                return ScanSpliterator.of(iterator(), Spliterator.ORDERED | Spliterator.DISTINCT);
            }

            @Override
            public int size() {
                return view.size();
            }
        };
    }

    @Override
    public Stream<Handle> keyStream() {
        return stream(new Scan(true).parts(true));
    }

    @Override
    public Stream<Handle> valueStream() {
        return stream(new Scan(true).parts(false));
    }

    @Override
    public Stream<Map.Entry<Handle, Handle>> entryStream() {
        return stream(new Scan(true));
    }

    private static <T> Stream<T> stream(Iterator<T> reusing) {
        return StreamSupport.stream(ScanSpliterator.reusing(reusing, Spliterator.ORDERED), false);
    }

    /**
     * Key and value handles of each entry in view order; with {@code reuse}, one entry object and two handles for
     * all. An entry removed between the cursor and the handles is skipped, as a weakly consistent scan may; a
     * snapshot's entries are never removed under it (its slices stay while it is open).
     */
    private final class Scan implements Iterator<Map.Entry<Handle, Handle>> {
        private final Cursor cursor;
        private final boolean reuse;
        private final SliceHandle reusedKey;
        private final SliceHandle reusedValue;
        private final ReusedEntry reusedEntry;
        private SliceHandle aheadKey;
        private SliceHandle aheadValue;
        private Key aheadKeyBytes;
        private Key lastKey;

        Scan(boolean reuse) {
            this.cursor = view.cursor(false, !reuse); // reused handles: no key bytes to keep
            this.reuse = reuse;
            this.reusedKey = reuse ? newReusedHandle(true) : null;
            this.reusedValue = reuse ? newReusedHandle(false) : null;
            this.reusedEntry = reuse ? new ReusedEntry() : null;
        }

        @Override
        public boolean hasNext() {
            map.checkOpen();
            while (aheadKey == null) {
                if (!cursor.advance()) {
                    return false;
                }
                SliceHandle key = reuse ? reusedKey : newHandle(true);
                SliceHandle value = reuse ? reusedValue : newHandle(false);
                try {
                    if (reuse) {
                        // The cursor has just found the value live and read its length, and the key's length is in
                        // its entry: point without reading the headers again. A value replaced or removed since
                        // fails the reads, as it would a moment after pointing.
                        key.pointAtLive(cursor.keyRef(), cursor.keySliceLength(), 0, -1, SliceHandle.NO_STAMP)
                                .from(cursor.entryChunk(), cursor.entryIndex());
                        value.pointAtLive(cursor.valueRef(), cursor.valueLength(), map.values.headerSize, -1,
                                valueStamp()).from(cursor.entryChunk(), cursor.entryIndex());
                    } else if (snapshot != null) {
                        key.pointAt(cursor.keyRef());
                        value.pointAt(cursor.valueRef(), map.values.headerSize, -1, SliceHandle.NO_STAMP);
                    } else {
                        if (map.rebalancer.laysOut() && !cursor.entryChunk().handOut()) {
                            // these handles outlive the element: mark their chunk, active, so that no rebalance
                            // moves the pair (Moves); this one may be rebuilt with moves: take the key again there
                            map.rebalancer.awaitReplaced(cursor.entryChunk());
                            cursor.again();
                            continue;
                        }
                        key.pointAt(cursor.keyRef());
                        if (!point(value, cursor.valueRef())) {
                            // the value the cursor saw was replaced since: take the key's value now, if any
                            long now = map.currentValueRef(cursor);
                            if (now == 0 || !point(value, now)) {
                                continue;
                            }
                        }
                    }
                } catch (ConcurrentModificationException removedMeanwhile) {
                    if (snapshot != null) {
                        snapshot.check(); // a snapshot's slices are freed only once it is closed
                        throw removedMeanwhile;
                    }
                    continue; // the key's slice is gone: the entry was removed and compacted
                }
                aheadKey = key;
                aheadValue = value;
                aheadKeyBytes = reuse ? null : Key.copyOf(cursor.keySegment(), 0, cursor.keyLength());
            }
            return true;
        }

        @Override
        public Map.Entry<Handle, Handle> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Map.Entry<Handle, Handle> result = reuse ? reusedEntry.set(aheadKey, aheadValue)
                    : new java.util.AbstractMap.SimpleImmutableEntry<>(aheadKey, aheadValue);
            lastKey = aheadKeyBytes;
            aheadKey = null;
            aheadValue = null;
            return result;
        }

        @Override
        public void remove() {
            if (snapshot != null) {
                throw new UnsupportedOperationException("a snapshot is read-only");
            }
            if (lastKey == null) {
                throw new IllegalStateException("next() has not been called, or remove() was called already");
            }
            map.update(map.readKey(lastKey.segment(), lastKey.length()), Update.REMOVE, null, null, null);
            lastKey = null;
        }

        /**
         * A stream's reused handle for keys or values: as {@link #newHandle}, and outside a snapshot one told the entry
         * it reads ({@link EntryOrigin}), which validates its reads and follows its pair when a rebalance moves it.
         */
        private SliceHandle newReusedHandle(boolean forKeys) {
            if (snapshot != null) {
                return newHandle(forKeys);
            }
            return forKeys ? new SliceHandle(map.pool, null, EntryOrigin.KEY)
                    : new SliceHandle(map.pool, map.values, EntryOrigin.VALUE);
        }

        /** A handle for keys or values: a snapshot's reads under its lease, a map's value handle under its stamp. */
        private SliceHandle newHandle(boolean forKeys) {
            return snapshot != null ? new SliceHandle(map.pool, snapshot)
                    : forKeys ? new SliceHandle(map.pool) : new SliceHandle(map.pool, map.values);
        }

        private int valueStamp() {
            return snapshot != null ? SliceHandle.NO_STAMP : ValueHeader.STAMP;
        }

        /** Points {@code handle} at value {@code ref}'s bytes; {@code false} if that value is gone. */
        private boolean point(SliceHandle handle, long ref) {
            try {
                handle.pointAt(ref, map.values.headerSize, -1, ValueHeader.STAMP);
                return true;
            } catch (ConcurrentModificationException gone) {
                return false;
            }
        }

        /** The key (or value) handles of this scan. */
        Iterator<Handle> parts(boolean keys) {
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return Scan.this.hasNext();
                }

                @Override
                public Handle next() {
                    Map.Entry<Handle, Handle> e = Scan.this.next();
                    return keys ? e.getKey() : e.getValue();
                }

                @Override
                public void remove() {
                    Scan.this.remove();
                }
            };
        }
    }
}
