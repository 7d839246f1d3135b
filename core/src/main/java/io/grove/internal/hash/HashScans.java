package io.grove.internal.hash;

import io.grove.internal.memory.Pool;
import io.grove.internal.view.ReusedEntry;
import io.grove.internal.view.SliceHandle;
import io.grove.view.Handle;
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
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The zero-copy scans of {@link OffHeapHashMap}: the walk of {@link HashViews} collecting entry references, turned
 * into handles on keys (inside the entry's slice) and values (their own slices). An entry removed between the
 * walk and the handle is skipped, as a weakly consistent scan may.
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

    /** Entry references, a position's worth at a time. */
    private static final class RefWalk<K, V> extends HashViews.Walk<K, V> {
        private long[] entries = new long[16];
        private int count;
        private int next;

        RefWalk(OffHeapHashMap<K, V> map) {
            super(map);
        }

        @Override
        void reset() {
            count = 0;
            next = 0;
        }

        @Override
        void collect(long e, Scratch scratch) {
            if (count == entries.length) {
                entries = Arrays.copyOf(entries, count * 2);
            }
            entries[count++] = e;
        }

        @Override
        boolean buffered() {
            return next < count;
        }

        /** The next entry's reference, or 0 at the end. */
        long nextEntry() {
            return fill() ? entries[next++] : 0;
        }
    }

    /** Which bytes of an entry a scan hands out. */
    private enum Part { KEY, VALUE }

    /** Points {@code handle} at the part of entry {@code e}; {@code false} if the entry is gone by now. */
    private boolean point(SliceHandle handle, long e, Part part) {
        try {
            if (part == Part.KEY) {
                handle.pointAt(e, EntryLayout.KEY, table.keyLength(e));
            } else {
                handle.pointAt(e, table.valueStart(e), -1);
            }
            return true;
        } catch (ConcurrentModificationException | IndexOutOfBoundsException removed) {
            if (pool.isLive(e)) {
                throw removed;
            }
            return false; // removed (and maybe reused) after the walk collected it
        }
    }

    /** Iterates one part of each entry, with a fresh handle per element or one reused handle. */
    private final class PartIterator implements Iterator<Handle> {
        private final RefWalk<K, V> walk = new RefWalk<>(map);
        private final Part part;
        private final SliceHandle reused;
        private SliceHandle ahead;
        private long aheadEntry;
        private long lastEntry;

        PartIterator(Part part, boolean reuse) {
            map.checkOpen();
            this.part = part;
            this.reused = reuse ? new SliceHandle(pool) : null;
        }

        @Override
        public boolean hasNext() {
            while (ahead == null) {
                long e = walk.nextEntry();
                if (e == 0) {
                    return false;
                }
                SliceHandle handle = reused != null ? reused : new SliceHandle(pool);
                if (point(handle, e, part)) {
                    ahead = handle;
                    aheadEntry = e;
                }
            }
            return true;
        }

        @Override
        public Handle next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Handle result = ahead;
            lastEntry = aheadEntry;
            ahead = null;
            return result;
        }

        /** The entry of the element {@link #next()} returned last. */
        long lastEntry() {
            return lastEntry;
        }

        @Override
        public void remove() {
            if (lastEntry == 0) {
                throw new IllegalStateException("next() has not been called, or remove() was called already");
            }
            Scratch scratch = map.scratchForIteration();
            K key;
            try {
                int length = table.keyLength(lastEntry);
                pool.validate(lastEntry); // fenced: the length is the entry's own, not a reuser's
                key = map.readKey(lastEntry, length, scratch);
                pool.validate(lastEntry);
            } catch (RuntimeException removedMeanwhile) { // a reuser's bytes may also make the serializer throw
                if (pool.isLive(lastEntry)) {
                    throw removedMeanwhile;
                }
                lastEntry = 0;
                return;
            } finally {
                scratch.release();
            }
            map.remove(key);
            lastEntry = 0;
        }
    }

    /** Key and value of each entry; with {@code reuse}, one entry object and two handles for all. */
    private final class EntryIterator implements Iterator<Map.Entry<Handle, Handle>> {
        private final PartIterator keys;
        private final SliceHandle reusedValue;
        private final ReusedEntry reusedEntry;
        private Map.Entry<Handle, Handle> ahead;

        EntryIterator(boolean reuse) {
            this.keys = new PartIterator(Part.KEY, reuse);
            this.reusedValue = reuse ? new SliceHandle(pool) : null;
            this.reusedEntry = reuse ? new ReusedEntry() : null;
        }

        @Override
        public boolean hasNext() {
            while (ahead == null && keys.hasNext()) {
                Handle key = keys.next();
                SliceHandle value = reusedValue != null ? reusedValue : new SliceHandle(pool);
                if (point(value, keys.lastEntry(), Part.VALUE)) {
                    ahead = reusedEntry != null ? reusedEntry.set(key, value)
                            : new java.util.AbstractMap.SimpleImmutableEntry<>(key, value);
                }
            }
            return ahead != null;
        }

        @Override
        public Map.Entry<Handle, Handle> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Map.Entry<Handle, Handle> result = ahead;
            ahead = null;
            return result;
        }

        @Override
        public void remove() {
            keys.remove();
        }
    }

    Set<Handle> keySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Handle> iterator() {
                return new PartIterator(Part.KEY, false);
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
                return new PartIterator(Part.VALUE, false);
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
                return new EntryIterator(false);
            }

            @Override
            public int size() {
                return map.size();
            }
        };
    }

    Stream<Handle> keyStream() {
        return stream(new PartIterator(Part.KEY, true));
    }

    Stream<Handle> valueStream() {
        return stream(new PartIterator(Part.VALUE, true));
    }

    Stream<Map.Entry<Handle, Handle>> entryStream() {
        return stream(new EntryIterator(true));
    }

    private static <T> Stream<T> stream(Iterator<T> iterator) {
        return StreamSupport.stream(
                Spliterators.spliteratorUnknownSize(iterator, Spliterator.NONNULL | Spliterator.DISTINCT), false);
    }
}
