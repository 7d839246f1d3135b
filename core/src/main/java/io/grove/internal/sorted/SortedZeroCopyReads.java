package io.grove.internal.sorted;

import io.grove.ZeroCopySortedReads;
import io.grove.internal.view.KeyBuffer;
import io.grove.internal.view.ReusedEntry;
import io.grove.internal.view.ScanSpliterator;
import io.grove.internal.view.SliceHandle;
import io.grove.internal.view.StreamHandle;
import io.grove.view.Handle;
import java.lang.foreign.MemorySegment;
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
import java.util.Spliterators;
import java.util.function.Consumer;
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
                return new Scan().parts(true);
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
                return new Scan().parts(false);
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
                return new Scan();
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
        PairStream<Handle> pairs = new PairStream<>();
        return StreamSupport.stream(pairs.of(pairs.key), false);
    }

    @Override
    public Stream<Handle> valueStream() {
        PairStream<Handle> pairs = new PairStream<>();
        return StreamSupport.stream(pairs.of(pairs.value), false);
    }

    @Override
    public Stream<Map.Entry<Handle, Handle>> entryStream() {
        PairStream<Map.Entry<Handle, Handle>> pairs = new PairStream<>();
        return StreamSupport.stream(pairs.of(new ReusedEntry().set(pairs.key, pairs.value)), false);
    }

    /**
     * A handle for keys or values that several threads may read: a snapshot's reads under its lease; a map's told the
     * entry it reads, which vouches for its slice (a set's iterator marks the entry's chunk so that no rebalance moves
     * it, {@link Chunk#handOut}), a value's reads under its stamp.
     */
    private SliceHandle newHandle(boolean forKeys) {
        return snapshot != null ? new SliceHandle(map.pool, snapshot)
                : forKeys ? new SliceHandle(map.pool, null, EntryOrigin.KEY)
                : new SliceHandle(map.pool, map.values, EntryOrigin.VALUE);
    }

    /**
     * A zero-copy stream: one element (the entry, or its key or value handle) whose two handles are pointed at pair
     * after pair in view order. The cursor has just found the value live and read its length, and the key's length
     * is in its entry: the handles are pointed without reading the headers again; a value replaced or removed since
     * fails their reads, as it would a moment after pointing. Outside a snapshot the handles are told the entry they
     * read ({@link EntryOrigin}), which validates their reads and follows their pair when a rebalance moves it.
     *
     * <p>Of unknown size, {@link #CONCURRENT}, {@link #NONNULL} and {@link #ORDERED}; not {@link #DISTINCT} (the
     * elements are one object) and never split, for the reasons {@link ScanSpliterator#reusing} gives.
     */
    private final class PairStream<T> extends Spliterators.AbstractSpliterator<T> {
        private final Cursor cursor = view.cursor(false, false); // reused handles: no key bytes to keep
        final Handle key = newReusedHandle(true);
        final Handle value = newReusedHandle(false);
        private T element;

        PairStream() {
            super(Long.MAX_VALUE, CONCURRENT | NONNULL | ORDERED);
        }

        /** This stream, handing out {@code element}. */
        PairStream<T> of(T element) {
            this.element = element;
            return this;
        }

        @Override
        public boolean tryAdvance(Consumer<? super T> action) {
            Objects.requireNonNull(action, "action");
            map.checkOpen();
            if (!cursor.advance()) {
                return false;
            }
            Chunk chunk = cursor.entryChunk();
            int entry = cursor.entryIndex();
            long keyRef = cursor.keyRef();
            MemorySegment keyBlock = map.pool.segment(keyRef);
            long keyPayload = map.pool.payloadOffset(keyRef);
            if (snapshot == null) {
                ((StreamHandle) key).pointAt(keyRef, keyBlock, keyPayload, cursor.keySliceLength(), chunk, entry);
                ((StreamHandle) value).pointAt(cursor.valueRef(), cursor.valueBlock(), cursor.valuePayload(),
                        cursor.valueLength(), chunk, entry);
            } else {
                ((SliceHandle) key).pointAtNext(keyRef, keyBlock, keyPayload, cursor.keySliceLength(), 0,
                        SliceHandle.NO_STAMP, chunk, entry);
                ((SliceHandle) value).pointAtNext(cursor.valueRef(), cursor.valueBlock(), cursor.valuePayload(),
                        cursor.valueLength(), map.values.headerSize, SliceHandle.NO_STAMP, chunk, entry);
            }
            action.accept(element);
            return true;
        }

        @Override
        public Spliterator<T> trySplit() {
            return null;
        }

        /**
         * A reused handle for keys or values: a snapshot's as {@link #newHandle}; outside a snapshot, a
         * {@link StreamHandle}, read by one thread, which also follows its pair when a layout moves it.
         */
        private Handle newReusedHandle(boolean forKeys) {
            if (snapshot != null) {
                return newHandle(forKeys);
            }
            return forKeys ? new StreamHandle(map.pool, null, EntryOrigin.KEY, 0, SliceHandle.NO_STAMP)
                    : new StreamHandle(map.pool, map.values, EntryOrigin.VALUE, map.values.headerSize,
                            ValueHeader.STAMP);
        }
    }

    /**
     * Key and value handles of each entry in view order, new ones for each, pointed as a stream's are (from what the
     * cursor read when it found the value live): a value replaced or removed since fails their reads, as it would a
     * moment after {@code next} returned it; an element whose key was removed and its slice dropped since is
     * skipped, as a weakly consistent scan may. A snapshot's entries are never removed under it (its slices stay
     * while it is open). Each element's key is copied, through its handle, into one of two buffers the scan reuses,
     * for {@code remove}: one copy, and the cursor copies none.
     */
    private final class Scan implements Iterator<Map.Entry<Handle, Handle>> {
        private final Cursor cursor = view.cursor(false, false);
        private SliceHandle aheadKey;
        private SliceHandle aheadValue;
        /** The key bytes of the element read ahead, and of the last one returned (for remove); swapped by next. */
        private KeyBuffer aheadKeyBytes = new KeyBuffer();
        private KeyBuffer lastKey = new KeyBuffer();
        private boolean removable;

        @Override
        public boolean hasNext() {
            map.checkOpen();
            while (aheadKey == null) {
                if (!cursor.advance()) {
                    return false;
                }
                Chunk chunk = cursor.entryChunk();
                if (snapshot == null && map.rebalancer.laysOut()
                        && (map.rebalancer.layOutBeforeHandOut(chunk) || !chunk.handOut())) {
                    // these handles outlive the element: mark their chunk, active, so that no rebalance moves the
                    // pair (Moves), after laying its pairs out if they are out of order (they will stay where they
                    // are); a chunk found frozen may be rebuilt with moves: take the key again from the new chunks
                    map.rebalancer.awaitReplaced(chunk);
                    cursor.again();
                    continue;
                }
                int entry = cursor.entryIndex();
                long keyRef = cursor.keyRef();
                aheadKey = newHandle(true).pointAtNext(keyRef, map.pool.segment(keyRef),
                        map.pool.payloadOffset(keyRef), cursor.keySliceLength(), 0, SliceHandle.NO_STAMP, chunk,
                        entry);
                aheadValue = newHandle(false).pointAtNext(cursor.valueRef(), cursor.valueBlock(),
                        cursor.valuePayload(), cursor.valueLength(), map.values.headerSize,
                        snapshot != null ? SliceHandle.NO_STAMP : ValueHeader.STAMP, chunk, entry);
                try {
                    aheadKeyBytes.setBytes(aheadKey);
                } catch (ConcurrentModificationException removedMeanwhile) {
                    aheadKey = null;
                    aheadValue = null;
                    if (snapshot != null) {
                        snapshot.check(); // a snapshot's slices are freed only once it is closed
                        throw removedMeanwhile;
                    }
                }
            }
            return true;
        }

        @Override
        public Map.Entry<Handle, Handle> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Map.Entry<Handle, Handle> result = new java.util.AbstractMap.SimpleImmutableEntry<>(aheadKey, aheadValue);
            KeyBuffer returned = aheadKeyBytes;
            aheadKeyBytes = lastKey;
            lastKey = returned;
            removable = true;
            aheadKey = null;
            aheadValue = null;
            return result;
        }

        @Override
        public void remove() {
            if (snapshot != null) {
                throw new UnsupportedOperationException("a snapshot is read-only");
            }
            if (!removable) {
                throw new IllegalStateException("next() has not been called, or remove() was called already");
            }
            map.update(map.readKey(lastKey.segment(), lastKey.length()), Update.REMOVE, null, null, null);
            removable = false;
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
