package io.grove.internal.sorted;

import io.grove.internal.view.ScanSpliterator;
import java.util.AbstractSet;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableSet;
import java.util.SortedSet;
import java.util.Spliterator;
import java.util.concurrent.ConcurrentNavigableMap;

/** The keys of a {@link SortedRangeMap} as a {@link NavigableSet}: removal writes through; adding is not supported. */
final class RangeKeySet<K> extends AbstractSet<K> implements NavigableSet<K> {
    private final ConcurrentNavigableMap<K, ?> map;

    RangeKeySet(ConcurrentNavigableMap<K, ?> map) {
        this.map = map;
    }

    @Override
    public Iterator<K> iterator() {
        return ((SortedRangeMap<K, ?>) map).iterator(RangeIterator.KEYS);
    }

    @Override
    public Spliterator<K> spliterator() {
        return ScanSpliterator.sorted(iterator(), Spliterator.DISTINCT, map.comparator());
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

    @Override
    public Comparator<? super K> comparator() {
        return map.comparator();
    }

    @Override
    public K first() {
        return map.firstKey();
    }

    @Override
    public K last() {
        return map.lastKey();
    }

    @Override
    public K lower(K k) {
        return map.lowerKey(k);
    }

    @Override
    public K floor(K k) {
        return map.floorKey(k);
    }

    @Override
    public K ceiling(K k) {
        return map.ceilingKey(k);
    }

    @Override
    public K higher(K k) {
        return map.higherKey(k);
    }

    @Override
    public K pollFirst() {
        Map.Entry<K, ?> e = map.pollFirstEntry();
        return e == null ? null : e.getKey();
    }

    @Override
    public K pollLast() {
        Map.Entry<K, ?> e = map.pollLastEntry();
        return e == null ? null : e.getKey();
    }

    @Override
    public NavigableSet<K> descendingSet() {
        return new RangeKeySet<>(map.descendingMap());
    }

    @Override
    public Iterator<K> descendingIterator() {
        return descendingSet().iterator();
    }

    @Override
    public NavigableSet<K> subSet(K from, boolean fromInclusive, K to, boolean toInclusive) {
        return new RangeKeySet<>(map.subMap(from, fromInclusive, to, toInclusive));
    }

    @Override
    public NavigableSet<K> headSet(K to, boolean inclusive) {
        return new RangeKeySet<>(map.headMap(to, inclusive));
    }

    @Override
    public NavigableSet<K> tailSet(K from, boolean inclusive) {
        return new RangeKeySet<>(map.tailMap(from, inclusive));
    }

    @Override
    public SortedSet<K> subSet(K from, K to) {
        return subSet(from, true, to, false);
    }

    @Override
    public SortedSet<K> headSet(K to) {
        return headSet(to, false);
    }

    @Override
    public SortedSet<K> tailSet(K from) {
        return tailSet(from, true);
    }
}
