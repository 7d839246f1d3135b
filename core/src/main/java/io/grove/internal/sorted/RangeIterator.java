package io.grove.internal.sorted;

import java.util.AbstractMap;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * A weakly consistent iterator over a {@link SortedRangeMap} in its order: keys, values or write-through entries.
 * {@code remove} removes the last key returned, whatever its value is then.
 */
final class RangeIterator<K, V, T> implements Iterator<T> {
    static final int KEYS = 0;
    static final int VALUES = 1;
    static final int ENTRIES = 2;

    private final SortedRangeMap<K, V> view;
    private final Cursor cursor;
    private final int kind;
    private K nextKey;
    private V nextValue;
    private K lastKey;

    RangeIterator(SortedRangeMap<K, V> view, Cursor cursor, int kind) {
        this.view = view;
        this.cursor = cursor;
        this.kind = kind;
    }

    @Override
    public boolean hasNext() {
        view.map.checkOpen(); // also before an entry read ahead: after close() the iterator ends with the map
        if (nextKey != null) {
            return true;
        }
        while (cursor.advance()) {
            V value = null;
            if (kind != KEYS) {
                value = view.map.currentValue(cursor);
                if (value == null) {
                    continue; // removed since the cursor reached it
                }
            }
            nextKey = view.map.readKey(cursor.keySegment(), cursor.keyLength());
            nextValue = value;
            return true;
        }
        return false;
    }

    @Override
    @SuppressWarnings("unchecked")
    public T next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        K key = nextKey;
        V value = nextValue;
        nextKey = null;
        nextValue = null;
        lastKey = key;
        return switch (kind) {
            case KEYS -> (T) key;
            case VALUES -> (T) value;
            default -> (T) new WriteThroughEntry<>(view, key, value);
        };
    }

    @Override
    public void remove() {
        if (lastKey == null) {
            throw new IllegalStateException("next() was not called, or remove() was called after it already");
        }
        view.remove(lastKey);
        lastKey = null;
    }

    /** An entry whose {@code setValue} puts the new value into the map. */
    private static final class WriteThroughEntry<K, V> extends AbstractMap.SimpleEntry<K, V> {
        private static final long serialVersionUID = 1L;
        private final transient SortedRangeMap<K, V> view;

        WriteThroughEntry(SortedRangeMap<K, V> view, K key, V value) {
            super(key, value);
            this.view = view;
        }

        @Override
        public V setValue(V value) {
            java.util.Objects.requireNonNull(value, "value");
            view.put(getKey(), value);
            return super.setValue(value);
        }
    }
}
