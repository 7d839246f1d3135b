package io.grove.internal.hash;

import io.grove.internal.view.ScanSpliterator;
import java.util.AbstractCollection;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Spliterator;
import java.util.function.Function;

/**
 * The entry-set and key-set views of {@link OffHeapHashMap}, and their weakly consistent iterator.
 *
 * <p>The iterator walks segment by segment. Within a segment it fixes the slot count {@code 2^b} it first saw and
 * visits positions {@code p = 0 .. 2^b - 1}; at each position it reads, in one lock-free read validated by the
 * segment's version, every entry whose hash is {@code p} modulo {@code 2^b} ({@link HashTable#collectPosition}). Slot
 * counts only grow (doubling), so the positions partition the entries however often the segment grows meanwhile: an
 * entry present throughout the iteration is returned exactly once. A position's entries are read in one validated
 * attempt, so an entry lying in a cell, which a removal's shift or a growth moves, is read where it was at that
 * attempt's version, and comes once. They come in probe order from each home in turn, an order that a removal (which
 * shifts a run's later cells back, keeping their order) does not change. A segment whose entry count reads 0 when the
 * walk reaches it is skipped: an entry present throughout the iteration keeps the count of its segment above 0 (a map
 * on a large pool has many segments, mostly empty while it is small; {@link HashTable#segmentCount}). Keys and values
 * are copied to the heap as the iterator advances; {@code remove} removes the last key from the map.
 */
final class HashViews {
    private HashViews() {}

    /**
     * The walk every iterator of the map shares: segment by segment, position by position as described above,
     * collecting the entries of one position per validated lock-free read into a buffer that the subclass keeps.
     */
    abstract static class Walk<K, V> implements HashTable.EntrySink {
        final OffHeapHashMap<K, V> map;
        final HashTable table;
        private int segment = -1;
        private int fixedBits;
        private long position;

        Walk(OffHeapHashMap<K, V> map) {
            this.map = map;
            this.table = map.table;
        }

        /** Drops what the last attempt collected. */
        abstract void reset();

        /**
         * Collects entry {@code e}, which the last validated read of the position (at {@code version} of the
         * segment) found linked; returns {@code false} if the entry was removed or replaced since, before what the
         * walk needs of it could be read (the position is then read again). Validates what it read: the entry's
         * bytes may be reused meanwhile.
         */
        abstract boolean collect(long e, int segment, long version, Scratch scratch);

        /** The entries of the position being read, in the order the table gave them. */
        private long[] found = new long[16];
        private int foundCount;

        @Override
        public final void accept(long e) {
            if (foundCount == found.length) {
                found = Arrays.copyOf(found, foundCount * 2);
            }
            found[foundCount++] = e;
        }

        /** Whether the buffer holds entries not yet returned. */
        abstract boolean buffered();

        /** Fills the buffer with the next non-empty position; {@code false} when the map is exhausted. */
        final boolean fill() {
            while (!buffered()) {
                if (segment >= 0 && position < 1L << fixedBits) {
                    readPosition();
                    position++;
                } else if (segment + 1 < table.segmentCount()) {
                    segment++;
                    fixedBits = table.slotBits(segment);
                    position = table.count(segment) == 0 ? 1L << fixedBits : 0; // nothing to read: skip it
                } else {
                    return false;
                }
            }
            return true;
        }

        private void readPosition() {
            Scratch scratch = map.scratchForIteration();
            try {
                while (!tryReadPosition(scratch)) {
                    // the segment changed under the walk, or an entry left before it was read: read it again
                }
            } finally {
                scratch.release();
            }
        }

        /**
         * One attempt at the current position: finds its entries in one read validated by the segment's version,
         * then collects each; {@code false} if the attempt must be repeated.
         */
        private boolean tryReadPosition(Scratch scratch) {
            reset();
            long version = table.awaitStable(segment);
            try {
                foundCount = 0;
                boolean complete = table.collectPosition(segment, position, fixedBits, this);
                if (!complete && table.isStable(segment, version)) {
                    throw new IllegalStateException("segment " + segment + " has a slot array with no empty slot");
                }
                if (!complete || !table.isStable(segment, version)) {
                    return false;
                }
                for (int i = 0; i < foundCount; i++) {
                    if (!collect(found[i], segment, version, scratch)) {
                        return false;
                    }
                }
                return true;
            } catch (RuntimeException | Error stale) { // a reused entry's bytes made a deserializer fail (Serializer)
                if (table.isStable(segment, version)) {
                    throw stale;
                }
                return false;
            }
        }
    }

    /** Entries copied to the heap as the walk reaches them. */
    static final class EntryIterator<K, V> extends Walk<K, V> implements Iterator<Map.Entry<K, V>> {
        private final ArrayList<K> keys = new ArrayList<>();
        private final ArrayList<V> values = new ArrayList<>();
        private int next;
        private K lastKey;

        EntryIterator(OffHeapHashMap<K, V> map) {
            super(map);
        }

        @Override
        void reset() {
            keys.clear();
            values.clear();
            next = 0;
        }

        @Override
        @SuppressWarnings("unchecked")
        boolean collect(long e, int segment, long version, Scratch scratch) {
            int keyLength = table.keyLength(e);
            K key = map.readKey(e, keyLength, scratch);
            Object value = map.readValueLockFree(segment, version, e, table.valueOffset(e, keyLength),
                    table.valueLength(e), scratch);
            if (value == OffHeapHashMap.REMOVED) {
                return false;
            }
            keys.add(key);
            values.add((V) value);
            return true;
        }

        @Override
        boolean buffered() {
            return next < keys.size();
        }

        @Override
        public boolean hasNext() {
            map.checkOpen();
            return fill();
        }

        @Override
        public Map.Entry<K, V> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            K key = keys.get(next);
            V value = values.get(next);
            next++;
            lastKey = key;
            return new WriteThroughEntry<>(map, key, value);
        }

        @Override
        public void remove() {
            if (lastKey == null) {
                throw new IllegalStateException("next() has not been called, or remove() was called already");
            }
            map.remove(lastKey);
            lastKey = null;
        }
    }

    /** An entry copied to the heap; {@code setValue} writes through to the map, as ConcurrentHashMap's does. */
    static final class WriteThroughEntry<K, V> extends java.util.AbstractMap.SimpleEntry<K, V> {
        private static final long serialVersionUID = 1L;
        private final transient OffHeapHashMap<K, V> map;

        WriteThroughEntry(OffHeapHashMap<K, V> map, K key, V value) {
            super(key, value);
            this.map = map;
        }

        @Override
        public V setValue(V value) {
            Objects.requireNonNull(value, "value");
            V previous = super.setValue(value);
            map.put(getKey(), value);
            return previous;
        }
    }

    /**
     * What the key and entry sets share: size, emptiness and clearing are the map's, and their spliterators are
     * weakly consistent like their iterators (neither sized nor subsized: the map may change meanwhile).
     */
    private abstract static class SetView<K, V, T> extends AbstractSet<T> {
        final OffHeapHashMap<K, V> map;

        SetView(OffHeapHashMap<K, V> map) {
            this.map = map;
        }

        @Override
        public final Spliterator<T> spliterator() {
            return ScanSpliterator.of(iterator(), Spliterator.DISTINCT);
        }

        @Override
        public final int size() {
            return map.size();
        }

        @Override
        public final boolean isEmpty() {
            return map.isEmpty();
        }

        @Override
        public final void clear() {
            map.clear();
        }
    }

    static final class EntrySetView<K, V> extends SetView<K, V, Map.Entry<K, V>> {
        EntrySetView(OffHeapHashMap<K, V> map) {
            super(map);
        }

        @Override
        public Iterator<Map.Entry<K, V>> iterator() {
            map.checkOpen();
            return new EntryIterator<>(map);
        }

        @Override
        public boolean contains(Object o) {
            if (!(o instanceof Map.Entry<?, ?> entry) || entry.getKey() == null || entry.getValue() == null) {
                return false;
            }
            Object value = map.get(entry.getKey());
            return value != null && value.equals(entry.getValue());
        }

        @Override
        public boolean remove(Object o) {
            return o instanceof Map.Entry<?, ?> entry && entry.getKey() != null && entry.getValue() != null
                    && map.remove(entry.getKey(), entry.getValue());
        }
    }

    static final class KeySetView<K, V> extends SetView<K, V, K> {
        KeySetView(OffHeapHashMap<K, V> map) {
            super(map);
        }

        @Override
        public Iterator<K> iterator() {
            map.checkOpen();
            return new PartIterator<>(new EntryIterator<>(map), Map.Entry::getKey);
        }

        @Override
        public boolean contains(Object o) {
            return map.containsKey(o);
        }

        @Override
        public boolean remove(Object o) {
            return map.remove(o) != null;
        }
    }

    /** The values: removal through the iterator writes through; adding is not supported, as for every map. */
    static final class ValuesView<K, V> extends AbstractCollection<V> {
        private final OffHeapHashMap<K, V> map;

        ValuesView(OffHeapHashMap<K, V> map) {
            this.map = map;
        }

        @Override
        public Iterator<V> iterator() {
            map.checkOpen();
            return new PartIterator<>(new EntryIterator<>(map), Map.Entry::getValue);
        }

        @Override
        public Spliterator<V> spliterator() {
            return ScanSpliterator.of(iterator(), 0);
        }

        @Override
        public int size() {
            return map.size();
        }

        @Override
        public boolean isEmpty() {
            return map.isEmpty();
        }

        @Override
        public boolean contains(Object o) {
            return o != null && map.containsValue(o);
        }

        @Override
        public void clear() {
            map.clear();
        }
    }

    /** The keys or the values of an entry iterator; {@code remove} removes the entry. */
    private record PartIterator<K, V, T>(EntryIterator<K, V> entries, Function<Map.Entry<K, V>, T> part)
            implements Iterator<T> {
        @Override
        public boolean hasNext() {
            return entries.hasNext();
        }

        @Override
        public T next() {
            return part.apply(entries.next());
        }

        @Override
        public void remove() {
            entries.remove();
        }
    }
}
