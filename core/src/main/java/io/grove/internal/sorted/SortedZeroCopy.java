package io.grove.internal.sorted;

import io.grove.ZeroCopySortedMap;
import io.grove.internal.view.ReusedEntry;
import io.grove.internal.view.ScanSpliterator;
import io.grove.internal.view.SliceHandle;
import io.grove.view.Handle;
import io.grove.view.ResizableView;
import java.util.AbstractCollection;
import java.util.AbstractSet;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.Spliterator;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The zero-copy API over a {@link SortedRangeMap}'s range and order: single-key operations of the
 * {@link ChunkMap}, and ordered scans whose elements are handles on the off-heap keys and values. A set's iterator
 * hands out a new handle per element; a stream points one handle (and one entry) at element after element. A key
 * outside the range is absent to {@code get}, {@code remove} and {@code computeIfPresent} and rejected by the
 * inserting operations, as by the range's {@link SortedRangeMap}.
 */
final class SortedZeroCopy<K, V> implements ZeroCopySortedMap<K, V> {
    private final SortedRangeMap<K, V> view;
    private final ChunkMap<K, V> map;

    SortedZeroCopy(SortedRangeMap<K, V> view) {
        this.view = view;
        this.map = view.map;
    }

    @Override
    public Handle get(K key) {
        return view.inRange(key) ? map.handle(key) : null;
    }

    @Override
    public void put(K key, V value) {
        Objects.requireNonNull(value, "value");
        map.update(view.checkedKey(key), Update.ZC_PUT, value, null, null);
    }

    @Override
    public boolean putIfAbsent(K key, V value) {
        Objects.requireNonNull(value, "value");
        return (Boolean) map.update(view.checkedKey(key), Update.ZC_PUT_IF_ABSENT, value, null, null);
    }

    @Override
    public boolean remove(K key) {
        return view.inRange(key) && (Boolean) map.update(key, Update.ZC_REMOVE, null, null, null);
    }

    @Override
    public boolean computeIfPresent(K key, Consumer<? super ResizableView> computer) {
        Objects.requireNonNull(computer, "computer");
        return view.inRange(key)
                && (Boolean) map.update(key, Update.ZC_COMPUTE_IF_PRESENT, null, null, computer);
    }

    @Override
    public boolean putIfAbsentComputeIfPresent(K key, V value, Consumer<? super ResizableView> computer) {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(computer, "computer");
        return (Boolean) map.update(view.checkedKey(key), Update.ZC_UPSERT, value, null, computer);
    }

    // ---- ranges

    @Override
    public ZeroCopySortedMap<K, V> descendingMap() {
        return new SortedZeroCopy<>((SortedRangeMap<K, V>) view.descendingMap());
    }

    @Override
    public ZeroCopySortedMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
        return new SortedZeroCopy<>((SortedRangeMap<K, V>) view.subMap(fromKey, fromInclusive, toKey, toInclusive));
    }

    @Override
    public ZeroCopySortedMap<K, V> headMap(K toKey, boolean inclusive) {
        return new SortedZeroCopy<>((SortedRangeMap<K, V>) view.headMap(toKey, inclusive));
    }

    @Override
    public ZeroCopySortedMap<K, V> tailMap(K fromKey, boolean inclusive) {
        return new SortedZeroCopy<>((SortedRangeMap<K, V>) view.tailMap(fromKey, inclusive));
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
     * all. An entry removed between the cursor and the handles is skipped, as a weakly consistent scan may.
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
            this.reusedKey = reuse ? new SliceHandle(map.pool) : null;
            this.reusedValue = reuse ? new SliceHandle(map.pool, map.values) : null;
            this.reusedEntry = reuse ? new ReusedEntry() : null;
        }

        @Override
        public boolean hasNext() {
            map.checkOpen();
            while (aheadKey == null) {
                if (!cursor.advance()) {
                    return false;
                }
                SliceHandle key = reuse ? reusedKey : new SliceHandle(map.pool);
                SliceHandle value = reuse ? reusedValue : new SliceHandle(map.pool, map.values);
                try {
                    if (reuse) {
                        // The cursor has just found the value live and read its length, and the key's length is in
                        // its entry: point without reading the headers again. A value replaced or removed since
                        // fails the reads, as it would a moment after pointing.
                        key.pointAtLive(cursor.keyRef(), cursor.keySliceLength(), 0, -1, SliceHandle.NO_STAMP);
                        value.pointAtLive(cursor.valueRef(), cursor.valueLength(), map.values.headerSize, -1,
                                ValueHeader.STAMP);
                    } else {
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
            if (lastKey == null) {
                throw new IllegalStateException("next() has not been called, or remove() was called already");
            }
            map.update(map.readKey(lastKey.segment(), lastKey.length()), Update.REMOVE, null, null, null);
            lastKey = null;
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
