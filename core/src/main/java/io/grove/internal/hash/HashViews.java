package io.grove.internal.hash;

import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * The entry-set and key-set views of {@link OffHeapHashMap}, and their weakly consistent iterator.
 *
 * <p>The iterator walks segment by segment. Within a segment it fixes the bucket count {@code 2^b} it first saw
 * and visits positions {@code p = 0 .. 2^b - 1}; at each position it reads, in one lock-free read validated by the
 * segment's version, every entry whose hash is {@code p} modulo {@code 2^b} ({@link HashTable#collectPosition}).
 * Bucket counts only grow (doubling), so the positions partition the entries however often the segment grows
 * meanwhile: an entry present throughout the iteration is returned exactly once. Within a position, entries come
 * in the order of their references, which moving buckets does not change. Keys and values
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
         * Collects entry {@code e}, found linked (its fields are its own); runs inside a read the version check
         * may discard, as the bytes may change meanwhile.
         */
        abstract void collect(long e, Scratch scratch);

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
                    fixedBits = table.bucketBits(segment);
                    position = 0;
                } else {
                    return false;
                }
            }
            return true;
        }

        private void readPosition() {
            Scratch scratch = map.scratchForIteration();
            try {
                while (true) {
                    reset();
                    long version = table.awaitStable(segment);
                    try {
                        foundCount = 0;
                        boolean complete = table.collectPosition(segment, position, fixedBits, this);
                        if (!complete && table.isStable(segment, version)) {
                            throw new IllegalStateException("segment " + segment + " has more entries than its count");
                        }
                        // Entries keep their references when buckets move, so this order does not change
                        // while the segment grows: two walks of an unchanged position agree.
                        Arrays.sort(found, 0, foundCount);
                        if (!table.isStable(segment, version)) {
                            continue; // the entries may have been deleted: their lengths cannot be trusted
                        }
                        for (int i = 0; i < foundCount; i++) {
                            collect(found[i], scratch);
                        }
                    } catch (RuntimeException stale) {
                        if (table.isStable(segment, version)) {
                            throw stale;
                        }
                        continue;
                    }
                    if (table.isStable(segment, version)) {
                        return;
                    }
                }
            } finally {
                scratch.release();
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
        void collect(long e, Scratch scratch) {
            keys.add(map.readKey(e, scratch));
            values.add(map.readValue(e, scratch));
        }

        @Override
        boolean buffered() {
            return next < keys.size();
        }

        @Override
        public boolean hasNext() {
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

    static final class EntrySetView<K, V> extends AbstractSet<Map.Entry<K, V>> {
        private final OffHeapHashMap<K, V> map;

        EntrySetView(OffHeapHashMap<K, V> map) {
            this.map = map;
        }

        @Override
        public Iterator<Map.Entry<K, V>> iterator() {
            map.checkOpen();
            return new EntryIterator<>(map);
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

        @Override
        public void clear() {
            map.clear();
        }
    }

    static final class KeySetView<K, V> extends AbstractSet<K> {
        private final OffHeapHashMap<K, V> map;

        KeySetView(OffHeapHashMap<K, V> map) {
            this.map = map;
        }

        @Override
        public Iterator<K> iterator() {
            map.checkOpen();
            EntryIterator<K, V> entries = new EntryIterator<>(map);
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return entries.hasNext();
                }

                @Override
                public K next() {
                    return entries.next().getKey();
                }

                @Override
                public void remove() {
                    entries.remove();
                }
            };
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
            return map.containsKey(o);
        }

        @Override
        public boolean remove(Object o) {
            return map.remove(o) != null;
        }

        @Override
        public void clear() {
            map.clear();
        }
    }
}
