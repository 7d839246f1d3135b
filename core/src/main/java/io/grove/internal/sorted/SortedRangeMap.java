package io.grove.internal.sorted;

import java.util.AbstractMap;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.NavigableSet;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A {@link ConcurrentNavigableMap} over a key range of a {@link ChunkMap}, in ascending or descending order: the
 * whole map ({@link OffHeapSortedMap}) and every sub-map, head map, tail map and descending map of it, with the
 * bound semantics of {@link java.util.concurrent.ConcurrentSkipListMap}'s sub-maps: a key outside the range is
 * absent to reads and removals and rejected by insertions with {@link IllegalArgumentException}; {@code compute}
 * and {@code computeIfAbsent} call their function on it as on an absent key and throw only if it returns a value
 * (CSLM's sub-maps inherit {@link ConcurrentMap}'s default methods, which do that), {@code merge} throws without
 * calling its function.
 *
 * <p>Navigation works in view order: {@code first} of a descending view is the range's greatest key,
 * {@code ceiling} the greatest key at or below the argument in key order, and so on. Single-key operations are
 * those of the {@link ChunkMap}, atomic; navigation and iteration use a {@link Cursor} and are weakly consistent.
 */
class SortedRangeMap<K, V> extends AbstractMap<K, V> implements ConcurrentNavigableMap<K, V> {
    final ChunkMap<K, V> map;
    /** The snapshot whose versions the view reads (then it is read-only: its users wrap it), or {@code null}. */
    final Snapshot snapshot;
    final Range<K> range;
    final boolean descending;
    private final Comparator<? super K> comparator;

    SortedRangeMap(ChunkMap<K, V> map, Snapshot snapshot, Range<K> range, boolean descending,
            Comparator<? super K> comparator) {
        this.map = map;
        this.snapshot = snapshot;
        this.range = range;
        this.descending = descending;
        this.comparator = comparator;
    }

    // ---- range checks

    /** Whether {@code key} lies in the range (always for the whole map). Rejects null keys. */
    final boolean inRange(Object key) {
        Objects.requireNonNull(key, "key");
        if (range.isAll()) {
            return true;
        }
        return range.contains(map.keys, map.keyOf(cast(key)));
    }

    final K checkedKey(K key) {
        if (!inRange(key)) {
            throw outOfRange(key);
        }
        return key;
    }

    private static IllegalArgumentException outOfRange(Object key) {
        return new IllegalArgumentException("key out of range: " + key);
    }

    /**
     * What {@code compute} and {@code computeIfAbsent} return for a key outside the range once their function
     * returned {@code computed}, as {@link java.util.concurrent.ConcurrentSkipListMap}'s sub-maps (whose methods
     * are {@link ConcurrentMap}'s defaults) do: {@code null}, or, for a value to insert, an
     * {@link IllegalArgumentException}.
     */
    private static <V> V outOfRangeResult(Object key, V computed) {
        if (computed != null) {
            throw outOfRange(key);
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private K cast(Object key) {
        return (K) key;
    }

    // ---- single keys

    @Override
    public V get(Object key) {
        return inRange(key) ? map.get(cast(key), snapshot) : null;
    }

    @Override
    public boolean containsKey(Object key) {
        return inRange(key) && map.containsKey(cast(key), snapshot);
    }

    @Override
    @SuppressWarnings("unchecked")
    public V put(K key, V value) {
        Objects.requireNonNull(value, "value");
        return (V) map.update(checkedKey(key), Update.PUT, value, null, null);
    }

    @Override
    @SuppressWarnings("unchecked")
    public V putIfAbsent(K key, V value) {
        Objects.requireNonNull(value, "value");
        return (V) map.update(checkedKey(key), Update.PUT_IF_ABSENT, value, null, null);
    }

    @Override
    @SuppressWarnings("unchecked")
    public V remove(Object key) {
        return inRange(key) ? (V) map.update(cast(key), Update.REMOVE, null, null, null) : null;
    }

    @Override
    @SuppressWarnings("unchecked")
    public boolean remove(Object key, Object value) {
        Objects.requireNonNull(key, "key");
        if (value == null || !inRange(key)) {
            return false;
        }
        return (Boolean) map.update(cast(key), Update.REMOVE_IF_EQUAL, null, (V) value, null);
    }

    @Override
    public boolean replace(K key, V oldValue, V newValue) {
        Objects.requireNonNull(oldValue, "oldValue");
        Objects.requireNonNull(newValue, "newValue");
        return (Boolean) map.update(checkedKey(key), Update.REPLACE_IF_EQUAL, newValue, oldValue, null);
    }

    @Override
    @SuppressWarnings("unchecked")
    public V replace(K key, V value) {
        Objects.requireNonNull(value, "value");
        return (V) map.update(checkedKey(key), Update.REPLACE, value, null, null);
    }

    @Override
    @SuppressWarnings("unchecked")
    public V compute(K key, BiFunction<? super K, ? super V, ? extends V> function) {
        Objects.requireNonNull(function, "function");
        if (!inRange(key)) {
            return outOfRangeResult(key, function.apply(key, null));
        }
        return (V) map.update(key, Update.COMPUTE, null, null, function);
    }

    @Override
    @SuppressWarnings("unchecked")
    public V computeIfAbsent(K key, Function<? super K, ? extends V> function) {
        Objects.requireNonNull(function, "function");
        if (!inRange(key)) {
            return outOfRangeResult(key, function.apply(key));
        }
        return (V) map.update(key, Update.COMPUTE_IF_ABSENT, null, null, function);
    }

    @Override
    @SuppressWarnings("unchecked")
    public V computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends V> function) {
        Objects.requireNonNull(function, "function");
        if (!inRange(key)) {
            return null;
        }
        return (V) map.update(key, Update.COMPUTE_IF_PRESENT, null, null, function);
    }

    @Override
    @SuppressWarnings("unchecked")
    public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> function) {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(function, "function");
        return (V) map.update(checkedKey(key), Update.MERGE, value, null, function);
    }

    // ---- whole range

    @Override
    public int size() {
        if (range.isAll() && snapshot == null) {
            return (int) Math.min(Integer.MAX_VALUE, map.size());
        }
        long n = 0;
        for (Cursor c = cursor(false, false); c.advance(); ) {
            n++;
        }
        return (int) Math.min(Integer.MAX_VALUE, n);
    }

    @Override
    public boolean isEmpty() {
        return !cursor(false, false).advance();
    }

    @Override
    public boolean containsValue(Object value) {
        Objects.requireNonNull(value, "value");
        for (Cursor c = cursor(false); c.advance(); ) {
            if (value.equals(map.currentValue(c))) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void clear() {
        for (Cursor c = cursor(false); c.advance(); ) {
            map.update(map.readKey(c.keySegment(), c.keyLength()), Update.ZC_REMOVE, null, null, null);
        }
    }

    // ---- navigation

    /** A cursor over the range in view order ({@code reverse}: the opposite) that copies each key it emits. */
    final Cursor cursor(boolean reverse) {
        return cursor(reverse, true);
    }

    /** As {@link #cursor(boolean)}; {@code copyKeys}: see {@link Cursor#keySegment}. */
    final Cursor cursor(boolean reverse, boolean copyKeys) {
        return map.cursor(snapshot, descending ^ reverse, copyKeys, range.loKey(), range.loInclusive(), range.hiKey(),
                range.hiInclusive());
    }

    /**
     * The first entry from {@code from} in view order ({@code reverse}: against it), inclusive or not, or
     * {@code null}.
     */
    private Entry<K, V> find(K from, boolean inclusive, boolean reverse) {
        Objects.requireNonNull(from, "key");
        Key key = map.keyOf(from);
        boolean down = descending ^ reverse;
        Cursor c;
        if (down) {
            boolean beyond = range.hiKey() != null && map.keys.compareBounds(key, range.hiKey()) >= 0;
            c = beyond ? map.cursor(snapshot, true, true, range.loKey(), range.loInclusive(), range.hiKey(),
                    range.hiInclusive() && (map.keys.compareBounds(key, range.hiKey()) > 0 || inclusive))
                    : map.cursor(snapshot, true, true, range.loKey(), range.loInclusive(), key, inclusive);
        } else {
            boolean beyond = range.loKey() != null && map.keys.compareBounds(key, range.loKey()) <= 0;
            c = beyond ? map.cursor(snapshot, false, true, range.loKey(), range.loInclusive()
                    && (map.keys.compareBounds(key, range.loKey()) < 0 || inclusive), range.hiKey(),
                    range.hiInclusive())
                    : map.cursor(snapshot, false, true, key, inclusive, range.hiKey(), range.hiInclusive());
        }
        return nextEntry(c);
    }

    private Entry<K, V> nextEntry(Cursor c) {
        while (c.advance()) {
            V value = map.currentValue(c);
            if (value != null) {
                return new SimpleImmutableEntry<>(map.readKey(c.keySegment(), c.keyLength()), value);
            }
        }
        return null;
    }

    private K nextKey(Cursor c) {
        return c.advance() ? map.readKey(c.keySegment(), c.keyLength()) : null;
    }

    @Override
    public Comparator<? super K> comparator() {
        return descending ? Collections.reverseOrder(comparator) : comparator;
    }

    @Override
    public Entry<K, V> firstEntry() {
        return nextEntry(cursor(false));
    }

    @Override
    public Entry<K, V> lastEntry() {
        return nextEntry(cursor(true));
    }

    @Override
    public K firstKey() {
        K key = nextKey(cursor(false));
        if (key == null) {
            throw new NoSuchElementException();
        }
        return key;
    }

    @Override
    public K lastKey() {
        K key = nextKey(cursor(true));
        if (key == null) {
            throw new NoSuchElementException();
        }
        return key;
    }

    @Override
    public Entry<K, V> pollFirstEntry() {
        return poll(false);
    }

    @Override
    public Entry<K, V> pollLastEntry() {
        return poll(true);
    }

    /** Removes and returns the first (last) entry: found, then removed if it still has the value it was found with. */
    @SuppressWarnings("unchecked")
    private Entry<K, V> poll(boolean reverse) {
        while (true) {
            Entry<K, V> e = nextEntry(cursor(reverse));
            if (e == null) {
                return null;
            }
            if ((Boolean) map.update(e.getKey(), Update.REMOVE_IF_EQUAL, null, e.getValue(), null)) {
                return e;
            }
        }
    }

    @Override
    public Entry<K, V> lowerEntry(K key) {
        return find(key, false, true);
    }

    @Override
    public K lowerKey(K key) {
        return keyOf(find(key, false, true));
    }

    @Override
    public Entry<K, V> floorEntry(K key) {
        return find(key, true, true);
    }

    @Override
    public K floorKey(K key) {
        return keyOf(find(key, true, true));
    }

    @Override
    public Entry<K, V> ceilingEntry(K key) {
        return find(key, true, false);
    }

    @Override
    public K ceilingKey(K key) {
        return keyOf(find(key, true, false));
    }

    @Override
    public Entry<K, V> higherEntry(K key) {
        return find(key, false, false);
    }

    @Override
    public K higherKey(K key) {
        return keyOf(find(key, false, false));
    }

    private static <K> K keyOf(Entry<K, ?> e) {
        return e == null ? null : e.getKey();
    }

    // ---- sub-views

    @Override
    public ConcurrentNavigableMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
        Objects.requireNonNull(fromKey, "fromKey");
        Objects.requireNonNull(toKey, "toKey");
        return subView(fromKey, fromInclusive, toKey, toInclusive, true, true);
    }

    @Override
    public ConcurrentNavigableMap<K, V> headMap(K toKey, boolean inclusive) {
        Objects.requireNonNull(toKey, "toKey");
        return subView(null, false, toKey, inclusive, false, true);
    }

    @Override
    public ConcurrentNavigableMap<K, V> tailMap(K fromKey, boolean inclusive) {
        Objects.requireNonNull(fromKey, "fromKey");
        return subView(fromKey, inclusive, null, false, true, false);
    }

    @Override
    public ConcurrentNavigableMap<K, V> subMap(K fromKey, K toKey) {
        return subMap(fromKey, true, toKey, false);
    }

    @Override
    public ConcurrentNavigableMap<K, V> headMap(K toKey) {
        return headMap(toKey, false);
    }

    @Override
    public ConcurrentNavigableMap<K, V> tailMap(K fromKey) {
        return tailMap(fromKey, true);
    }

    /**
     * The view of {@code [from, to]} in view order; an absent side ({@code hasFrom}/{@code hasTo}) keeps this
     * range's bound.
     */
    private SortedRangeMap<K, V> subView(K from, boolean fromInclusive, K to, boolean toInclusive, boolean hasFrom,
            boolean hasTo) {
        map.checkOpen();
        Range<K> r = range;
        // in key order: the lower bound is 'from' unless descending
        K lo = descending ? to : from;
        boolean loInc = descending ? toInclusive : fromInclusive;
        boolean hasLo = descending ? hasTo : hasFrom;
        K hi = descending ? from : to;
        boolean hiInc = descending ? fromInclusive : toInclusive;
        boolean hasHi = descending ? hasFrom : hasTo;
        Key loKey = hasLo ? map.keyOf(lo) : null;
        Key hiKey = hasHi ? map.keyOf(hi) : null;
        if (hasLo && hasHi && map.keys.compareBounds(loKey, hiKey) > 0) {
            throw new IllegalArgumentException("inconsistent range: " + from + " to " + to);
        }
        if (hasLo) {
            if (!r.admitsLo(map.keys, loKey, loInc)) {
                throw new IllegalArgumentException("key out of range: " + lo);
            }
            r = r.withLo(lo, loInc, loKey);
        }
        if (hasHi) {
            if (!r.admitsHi(map.keys, hiKey, hiInc)) {
                throw new IllegalArgumentException("key out of range: " + hi);
            }
            r = r.withHi(hi, hiInc, hiKey);
        }
        if (r.loKey() != null && r.hiKey() != null && map.keys.compareBounds(r.loKey(), r.hiKey()) > 0) {
            throw new IllegalArgumentException("inconsistent range: " + from + " to " + to);
        }
        return new SortedRangeMap<>(map, snapshot, r, descending, comparator);
    }

    @Override
    public ConcurrentNavigableMap<K, V> descendingMap() {
        return new SortedRangeMap<>(map, snapshot, range, !descending, comparator);
    }

    @Override
    public NavigableSet<K> navigableKeySet() {
        return new RangeKeySet<>(this);
    }

    @Override
    public NavigableSet<K> keySet() {
        return navigableKeySet();
    }

    @Override
    public NavigableSet<K> descendingKeySet() {
        return descendingMap().navigableKeySet();
    }

    @Override
    public Set<Entry<K, V>> entrySet() {
        return new RangeEntrySet<>(this);
    }

    @Override
    public Collection<V> values() {
        return new RangeValues<>(this);
    }

    // ---- iteration

    /** An iterator over this view in view order; {@code kind} chooses keys, values or entries. */
    final <T> RangeIterator<K, V, T> iterator(int kind) {
        return new RangeIterator<>(this, cursor(false), kind);
    }
}
