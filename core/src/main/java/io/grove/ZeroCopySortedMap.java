package io.grove;

/**
 * The zero-copy API of a {@link GroveSortedMap}, over the whole map or a range of it: the operations of
 * {@link ZeroCopyMap} with the ordered reads of {@link ZeroCopySortedReads}. On a key outside a range view's bounds,
 * as for {@link java.util.concurrent.ConcurrentSkipListMap}'s sub-maps, the operations that insert nothing answer as
 * for an absent key ({@code get} returns {@code null}, {@code remove} and {@code computeIfPresent} return
 * {@code false} without calling the computer), and the inserting ones ({@code put}, {@code putIfAbsent},
 * {@code putIfAbsentComputeIfPresent}) throw {@link IllegalArgumentException} and change nothing.
 *
 * <p>While a computer of {@code computeIfPresent} or {@code putIfAbsentComputeIfPresent} runs, its key's value is
 * locked (the Oak paper's in-place update excludes readers of that value): a copying read of that key
 * ({@link GroveSortedMap#get}, a scan's value or entry for it, {@code containsValue}) waits until the computer
 * returns, and so does a read through a zero-copy handle on that value. Nothing else waits for a slow computer:
 * reads of other keys, {@code containsKey} and zero-copy {@code get} of any key (obtaining the handle),
 * navigation, key-only scans, scans of other keys and the zero-copy scans (obtaining their handles) proceed, even
 * in a chunk that a rebalance has frozen meanwhile. Writes of other keys proceed too, except in that chunk while
 * it must be rebalanced (filled up by inserts, or compacted), since the rebalance waits for the computer.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface ZeroCopySortedMap<K, V> extends ZeroCopyMap<K, V>, ZeroCopySortedReads<K, V> {

    @Override
    ZeroCopySortedMap<K, V> descendingMap();

    @Override
    ZeroCopySortedMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive);

    @Override
    ZeroCopySortedMap<K, V> headMap(K toKey, boolean inclusive);

    @Override
    ZeroCopySortedMap<K, V> tailMap(K fromKey, boolean inclusive);
}
