package io.grove.internal.hash;

import io.grove.internal.memory.Pool;
import io.grove.internal.view.ReusedEntry;
import io.grove.internal.view.ScanSpliterator;
import io.grove.internal.view.SliceHandle;
import io.grove.view.Handle;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.AbstractCollection;
import java.util.AbstractSet;
import java.util.Arrays;
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
 * The zero-copy scans of {@link OffHeapHashMap}: the walk of {@link HashViews} collects, position by position, each
 * entry's reference and a heap copy of its key; the scan then points handles at the key and the value inside the
 * entry's slice.
 *
 * <p>An entry collected by the walk may be gone by the time its handles are made: removed, or replaced by a put
 * or a resizing in-place update, which link a new entry for the same key. The scan then looks the key up again
 * by its copied bytes and points the handles at the entry holding it now, so a key present throughout the scan is
 * returned even if its value was replaced meanwhile; only a key that is absent when looked up again is skipped.
 * Keys are immutable, so a copy validated once (the walk checks the entry was intact after copying) names the key.
 */
final class HashScans<K, V> {
    private final OffHeapHashMap<K, V> map;
    private final HashTable table;
    private final Pool pool;

    HashScans(OffHeapHashMap<K, V> map) {
        this.map = map;
        this.table = map.table;
        this.pool = map.pool();
    }

    /** Entry references and copies of their keys, a position's worth at a time. */
    private static final class RefWalk<K, V> extends HashViews.Walk<K, V> {
        private final Pool pool;
        private long[] entries = new long[16];
        /** Key {@code i} is {@code keys[keyStarts[i], keyStarts[i + 1])}. */
        private int[] keyStarts = new int[17];
        private byte[] keys = new byte[256];
        private MemorySegment keySegment = MemorySegment.ofArray(keys);
        private int count;
        private int next;

        RefWalk(OffHeapHashMap<K, V> map) {
            super(map);
            this.pool = map.pool();
        }

        @Override
        void reset() {
            count = 0;
            next = 0;
        }

        @Override
        boolean collect(long e, int segment, long version, Scratch scratch) {
            int keyLength = table.keyLength(e);
            if (keyLength < 0 || keyLength > pool.maxSliceSize()) {
                if (table.isIntact(segment, version, e)) {
                    throw new IllegalStateException("entry " + e + " of segment " + segment
                            + " records a key length of " + keyLength);
                }
                return false; // a length read from an entry deleted and reused since
            }
            if (count == entries.length) {
                entries = Arrays.copyOf(entries, count * 2);
                keyStarts = Arrays.copyOf(keyStarts, count * 2 + 1);
            }
            int start = keyStarts[count];
            if (start + keyLength > keys.length) {
                keys = Arrays.copyOf(keys, Math.max(start + keyLength, keys.length * 2));
                keySegment = MemorySegment.ofArray(keys);
            }
            MemorySegment.copy(pool.segment(e), ValueLayout.JAVA_BYTE, table.keyOffset(e), keys, start, keyLength);
            if (!table.isIntact(segment, version, e)) {
                return false;
            }
            entries[count] = e;
            keyStarts[++count] = start + keyLength;
            return true;
        }

        @Override
        boolean buffered() {
            return next < count;
        }

        /** Moves to the next collected entry; {@code false} at the end of the map. */
        boolean advance() {
            if (!fill()) {
                return false;
            }
            next++;
            return true;
        }

        long entry() {
            return entries[next - 1];
        }

        MemorySegment keySegment() {
            return keySegment;
        }

        int keyStart() {
            return keyStarts[next - 1];
        }

        int keyLength() {
            return keyStarts[next] - keyStarts[next - 1];
        }

        /** A copy of the current key's bytes. */
        byte[] keyCopy() {
            return Arrays.copyOfRange(keys, keyStart(), keyStart() + keyLength());
        }
    }

    /** What a scan hands out per entry. */
    private enum Part { KEY, VALUE, ENTRY }

    /**
     * Key and value handles of each entry, fresh per element or (for streams) one pair reused for all; a set's
     * iterator returns the part it was made for.
     */
    private final class ScanIterator<T> implements Iterator<T> {
        private final RefWalk<K, V> walk = new RefWalk<>(map);
        private final Part part;
        private final boolean reuse;
        private final SliceHandle reusedKey;
        private final SliceHandle reusedValue;
        private final ReusedEntry reusedEntry;
        private SliceHandle aheadKey;
        private SliceHandle aheadValue;
        private long aheadEntry;
        /** The key of the element {@link #next()} returned last, for {@link #remove()}; {@code null} if none. */
        private byte[] lastKey;

        ScanIterator(Part part, boolean reuse) {
            map.checkOpen();
            this.part = part;
            this.reuse = reuse;
            this.reusedKey = reuse ? new SliceHandle(pool) : null;
            this.reusedValue = reuse ? new SliceHandle(pool, map.valueWriters) : null;
            this.reusedEntry = reuse ? new ReusedEntry() : null;
        }

        @Override
        public boolean hasNext() {
            map.checkOpen();
            while (aheadEntry == 0) {
                if (!walk.advance()) {
                    return false;
                }
                SliceHandle key = part == Part.VALUE ? null : reuse ? reusedKey : new SliceHandle(pool);
                SliceHandle value = part == Part.KEY ? null
                        : reuse ? reusedValue : new SliceHandle(pool, map.valueWriters);
                long e = walk.entry();
                while (HashTable.isInline(e) || (e != 0 && !point(key, value, e, walk.keyLength()))) {
                    e = entryNow(); // in its cell, or gone since the walk (the key may be in a new entry)
                }
                if (e != 0) {
                    aheadKey = key;
                    aheadValue = value;
                    aheadEntry = e;
                }
            }
            return true;
        }

        /** Points the handles the scan needs at entry {@code e}'s key and value; {@code false} if {@code e} is gone. */
        private boolean point(SliceHandle key, SliceHandle value, long e, int keyLength) {
            try {
                if (key != null) {
                    key.pointAt(e, EntryLayout.KEY, keyLength).identifiedAt(EntryLayout.IDENTITY);
                }
                if (value != null) {
                    value.pointAt(e, EntryLayout.valueOffset(keyLength), -1, EntryLayout.STAMP)
                            .identifiedAt(EntryLayout.IDENTITY);
                }
                return true;
            } catch (ConcurrentModificationException gone) {
                return false;
            }
        }

        /**
         * The entry holding the walk's current key now, moved out of its cell if it lay in one
         * ({@link OffHeapHashMap#findApart}), or 0 if the key is absent.
         */
        private long entryNow() {
            Scratch scratch = map.scratchForIteration();
            try {
                scratch.setKeyBytes(walk.keySegment(), walk.keyStart(), walk.keyLength());
                return map.findApart(table.segmentOf(scratch.keyHash()), scratch);
            } finally {
                scratch.release();
            }
        }

        @Override
        @SuppressWarnings("unchecked")
        public T next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Object result = switch (part) {
                case KEY -> aheadKey;
                case VALUE -> aheadValue;
                case ENTRY -> reuse ? reusedEntry.set(aheadKey, aheadValue)
                        : new java.util.AbstractMap.SimpleImmutableEntry<Handle, Handle>(aheadKey, aheadValue);
            };
            lastKey = reuse ? null : walk.keyCopy(); // streams have no remove()
            aheadEntry = 0;
            aheadKey = null;
            aheadValue = null;
            return (T) result;
        }

        @Override
        public void remove() {
            if (lastKey == null) {
                throw new IllegalStateException("next() has not been called, or remove() was called already");
            }
            Scratch scratch = map.scratchForIteration();
            K key;
            try {
                key = map.readKey(MemorySegment.ofArray(lastKey), scratch);
            } finally {
                scratch.release();
            }
            map.remove(key);
            lastKey = null;
        }
    }

    Set<Handle> keySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Handle> iterator() {
                return new ScanIterator<>(Part.KEY, false);
            }

            @Override
            public Spliterator<Handle> spliterator() {
                return ScanSpliterator.of(iterator(), Spliterator.DISTINCT);
            }

            @Override
            public int size() {
                return map.size();
            }
        };
    }

    Collection<Handle> values() {
        return new AbstractCollection<>() {
            @Override
            public Iterator<Handle> iterator() {
                return new ScanIterator<>(Part.VALUE, false);
            }

            @Override
            public Spliterator<Handle> spliterator() {
                return ScanSpliterator.of(iterator(), 0);
            }

            @Override
            public int size() {
                return map.size();
            }
        };
    }

    Set<Map.Entry<Handle, Handle>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<Handle, Handle>> iterator() {
                return new ScanIterator<>(Part.ENTRY, false);
            }

            @Override
            public Spliterator<Map.Entry<Handle, Handle>> spliterator() {
                return ScanSpliterator.of(iterator(), Spliterator.DISTINCT);
            }

            @Override
            public int size() {
                return map.size();
            }
        };
    }

    Stream<Handle> keyStream() {
        return stream(new ScanIterator<>(Part.KEY, true));
    }

    Stream<Handle> valueStream() {
        return stream(new ScanIterator<>(Part.VALUE, true));
    }

    Stream<Map.Entry<Handle, Handle>> entryStream() {
        return stream(new ScanIterator<>(Part.ENTRY, true));
    }

    private static <T> Stream<T> stream(Iterator<T> reusing) {
        return StreamSupport.stream(ScanSpliterator.reusing(reusing, 0), false);
    }
}
