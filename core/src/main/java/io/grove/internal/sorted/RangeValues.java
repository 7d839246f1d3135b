package io.grove.internal.sorted;

import io.grove.internal.view.ScanSpliterator;
import java.util.AbstractCollection;
import java.util.Iterator;
import java.util.Spliterator;

/** The values of a {@link SortedRangeMap} in its key order; iterator removal writes through. */
final class RangeValues<V> extends AbstractCollection<V> {
    private final SortedRangeMap<?, V> map;

    RangeValues(SortedRangeMap<?, V> map) {
        this.map = map;
    }

    @Override
    public Iterator<V> iterator() {
        return map.iterator(RangeIterator.VALUES);
    }

    @Override
    public Spliterator<V> spliterator() {
        return ScanSpliterator.of(iterator(), Spliterator.ORDERED);
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
        return map.containsValue(o);
    }

    @Override
    public void clear() {
        map.clear();
    }
}
