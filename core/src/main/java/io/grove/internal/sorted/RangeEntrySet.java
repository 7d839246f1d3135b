package io.grove.internal.sorted;

import io.grove.internal.view.ScanSpliterator;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Spliterator;

/** The entries of a {@link SortedRangeMap}: removal and {@code setValue} write through; adding is not supported. */
final class RangeEntrySet<K, V> extends AbstractSet<Map.Entry<K, V>> {
    private final SortedRangeMap<K, V> map;

    RangeEntrySet(SortedRangeMap<K, V> map) {
        this.map = map;
    }

    @Override
    public Iterator<Map.Entry<K, V>> iterator() {
        return map.iterator(RangeIterator.ENTRIES);
    }

    @Override
    public Spliterator<Map.Entry<K, V>> spliterator() {
        return ScanSpliterator.sorted(iterator(), Spliterator.DISTINCT, Map.Entry.comparingByKey(map.comparator()));
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
        if (!(o instanceof Map.Entry<?, ?> e) || e.getKey() == null || e.getValue() == null) {
            return false;
        }
        Object value = map.get(e.getKey());
        return value != null && value.equals(e.getValue());
    }

    @Override
    public boolean remove(Object o) {
        if (!(o instanceof Map.Entry<?, ?> e) || e.getKey() == null || e.getValue() == null) {
            return false;
        }
        return map.remove(e.getKey(), e.getValue());
    }

    @Override
    public void clear() {
        map.clear();
    }
}
