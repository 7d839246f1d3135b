package io.grove.internal.sorted;

import io.grove.GroveSnapshot;
import io.grove.ZeroCopySortedReads;
import java.lang.ref.Cleaner;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.Comparator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Set;
import java.util.SortedMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * {@link GroveSnapshot}: a snapshot-reading {@link SortedRangeMap} over the whole map behind an unmodifiable view,
 * and the snapshot's life cycle (closed explicitly, or by a {@link Cleaner} once unreachable).
 */
final class SortedSnapshot<K, V> extends AbstractMap<K, V> implements GroveSnapshot<K, V> {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Snapshot snapshot;
    /** The snapshot-reading view of the whole map; read-only in use, but its type has mutators: never handed out. */
    private final SortedRangeMap<K, V> reads;
    private final NavigableMap<K, V> view;
    private final Cleaner.Cleanable cleanable;

    SortedSnapshot(ChunkMap<K, V> map, Comparator<? super K> comparator) {
        this.snapshot = map.openSnapshot();
        this.reads = new SortedRangeMap<>(map, snapshot, Range.all(), false, comparator);
        this.view = Collections.unmodifiableNavigableMap(reads);
        this.cleanable = CLEANER.register(this, snapshot);
    }

    @Override
    public void close() {
        cleanable.clean();
    }

    @Override
    public ZeroCopySortedReads<K, V> zc() {
        snapshot.check();
        return new SortedZeroCopyReads<>(reads);
    }

    @Override
    public V get(Object key) {
        return view.get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return view.containsKey(key);
    }

    // ---- changes: refused by the unmodifiable view, whether or not they would change anything

    @Override
    public V put(K key, V value) {
        return view.put(key, value);
    }

    @Override
    public V remove(Object key) {
        return view.remove(key);
    }

    @Override
    public void putAll(Map<? extends K, ? extends V> m) {
        view.putAll(m);
    }

    @Override
    public void clear() {
        view.clear();
    }

    @Override
    public V putIfAbsent(K key, V value) {
        return view.putIfAbsent(key, value);
    }

    @Override
    public boolean remove(Object key, Object value) {
        return view.remove(key, value);
    }

    @Override
    public boolean replace(K key, V oldValue, V newValue) {
        return view.replace(key, oldValue, newValue);
    }

    @Override
    public V replace(K key, V value) {
        return view.replace(key, value);
    }

    @Override
    public void replaceAll(BiFunction<? super K, ? super V, ? extends V> function) {
        view.replaceAll(function);
    }

    @Override
    public V computeIfAbsent(K key, Function<? super K, ? extends V> mappingFunction) {
        return view.computeIfAbsent(key, mappingFunction);
    }

    @Override
    public V computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
        return view.computeIfPresent(key, remappingFunction);
    }

    @Override
    public V compute(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
        return view.compute(key, remappingFunction);
    }

    @Override
    public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> remappingFunction) {
        return view.merge(key, value, remappingFunction);
    }

    // ---- reads

    @Override
    public int size() {
        return view.size();
    }

    @Override
    public boolean isEmpty() {
        return view.isEmpty();
    }

    @Override
    public Set<Entry<K, V>> entrySet() {
        return view.entrySet();
    }

    @Override
    public Comparator<? super K> comparator() {
        return view.comparator();
    }

    @Override
    public K firstKey() {
        return view.firstKey();
    }

    @Override
    public K lastKey() {
        return view.lastKey();
    }

    @Override
    public Entry<K, V> lowerEntry(K key) {
        return view.lowerEntry(key);
    }

    @Override
    public K lowerKey(K key) {
        return view.lowerKey(key);
    }

    @Override
    public Entry<K, V> floorEntry(K key) {
        return view.floorEntry(key);
    }

    @Override
    public K floorKey(K key) {
        return view.floorKey(key);
    }

    @Override
    public Entry<K, V> ceilingEntry(K key) {
        return view.ceilingEntry(key);
    }

    @Override
    public K ceilingKey(K key) {
        return view.ceilingKey(key);
    }

    @Override
    public Entry<K, V> higherEntry(K key) {
        return view.higherEntry(key);
    }

    @Override
    public K higherKey(K key) {
        return view.higherKey(key);
    }

    @Override
    public Entry<K, V> firstEntry() {
        return view.firstEntry();
    }

    @Override
    public Entry<K, V> lastEntry() {
        return view.lastEntry();
    }

    @Override
    public Entry<K, V> pollFirstEntry() {
        return view.pollFirstEntry();
    }

    @Override
    public Entry<K, V> pollLastEntry() {
        return view.pollLastEntry();
    }

    @Override
    public NavigableMap<K, V> descendingMap() {
        return view.descendingMap();
    }

    @Override
    public NavigableSet<K> navigableKeySet() {
        return view.navigableKeySet();
    }

    @Override
    public NavigableSet<K> keySet() {
        return view.navigableKeySet();
    }

    @Override
    public NavigableSet<K> descendingKeySet() {
        return view.descendingKeySet();
    }

    @Override
    public NavigableMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
        return view.subMap(fromKey, fromInclusive, toKey, toInclusive);
    }

    @Override
    public NavigableMap<K, V> headMap(K toKey, boolean inclusive) {
        return view.headMap(toKey, inclusive);
    }

    @Override
    public NavigableMap<K, V> tailMap(K fromKey, boolean inclusive) {
        return view.tailMap(fromKey, inclusive);
    }

    @Override
    public SortedMap<K, V> subMap(K fromKey, K toKey) {
        return view.subMap(fromKey, toKey);
    }

    @Override
    public SortedMap<K, V> headMap(K toKey) {
        return view.headMap(toKey);
    }

    @Override
    public SortedMap<K, V> tailMap(K fromKey) {
        return view.tailMap(fromKey);
    }
}
