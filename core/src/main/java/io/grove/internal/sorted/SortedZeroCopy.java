package io.grove.internal.sorted;

import io.grove.ZeroCopySortedMap;
import io.grove.view.ResizableView;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The zero-copy API over a {@link SortedRangeMap}'s range and order: the reads of {@link SortedZeroCopyReads} and
 * the single-key updates of the {@link ChunkMap}. A key outside the range is absent to {@code get},
 * {@code remove} and {@code computeIfPresent} and rejected by the inserting operations, as by the range's
 * {@link SortedRangeMap}.
 */
final class SortedZeroCopy<K, V> extends SortedZeroCopyReads<K, V> implements ZeroCopySortedMap<K, V> {

    SortedZeroCopy(SortedRangeMap<K, V> view) {
        super(view);
    }

    @Override
    public void put(K key, V value) {
        Objects.requireNonNull(value, "value");
        map.update(view.checkedKey(key), Update.ZC_PUT, value, null, null);
    }

    @Override
    public boolean putIfAbsent(K key, V value) {
        Objects.requireNonNull(value, "value");
        return (Boolean) map.update(view.checkedKey(key), Update.ZC_PUT_IF_ABSENT, value, null, null);
    }

    @Override
    public boolean remove(K key) {
        return view.inRange(key) && (Boolean) map.update(key, Update.ZC_REMOVE, null, null, null);
    }

    @Override
    public boolean computeIfPresent(K key, Consumer<? super ResizableView> computer) {
        Objects.requireNonNull(computer, "computer");
        return view.inRange(key)
                && (Boolean) map.update(key, Update.ZC_COMPUTE_IF_PRESENT, null, null, computer);
    }

    @Override
    public boolean putIfAbsentComputeIfPresent(K key, V value, Consumer<? super ResizableView> computer) {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(computer, "computer");
        return (Boolean) map.update(view.checkedKey(key), Update.ZC_UPSERT, value, null, computer);
    }

    // ---- ranges

    @Override
    public ZeroCopySortedMap<K, V> descendingMap() {
        return new SortedZeroCopy<>((SortedRangeMap<K, V>) view.descendingMap());
    }

    @Override
    public ZeroCopySortedMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive) {
        return new SortedZeroCopy<>((SortedRangeMap<K, V>) view.subMap(fromKey, fromInclusive, toKey, toInclusive));
    }

    @Override
    public ZeroCopySortedMap<K, V> headMap(K toKey, boolean inclusive) {
        return new SortedZeroCopy<>((SortedRangeMap<K, V>) view.headMap(toKey, inclusive));
    }

    @Override
    public ZeroCopySortedMap<K, V> tailMap(K fromKey, boolean inclusive) {
        return new SortedZeroCopy<>((SortedRangeMap<K, V>) view.tailMap(fromKey, inclusive));
    }
}
