package io.grove;

/**
 * The zero-copy API of a {@link GroveSortedMap}, over the whole map or a range of it: the operations of
 * {@link ZeroCopyMap} plus ordered scans. The scans ({@code keySet}, {@code values}, {@code entrySet} and the
 * streams that reuse one handle) return entries in this view's order: ascending by key, or descending for a
 * {@link #descendingMap()}. Their spliterators report {@code CONCURRENT}, {@code NONNULL} and {@code ORDERED}
 * (the key and entry sets also {@code DISTINCT}) and no fixed size; the streams that reuse one handle do not
 * split, so a parallel one runs sequentially. On a key outside a range view's bounds, as for
 * {@link java.util.concurrent.ConcurrentSkipListMap}'s sub-maps, the operations that insert nothing answer as for
 * an absent key ({@code get} returns {@code null}, {@code remove} and {@code computeIfPresent} return
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
public interface ZeroCopySortedMap<K, V> extends ZeroCopyMap<K, V> {

    /** The same entries in the opposite order. */
    ZeroCopySortedMap<K, V> descendingMap();

    /** The entries from {@code fromKey} to {@code toKey}, with the {@link java.util.NavigableMap#subMap} bounds. */
    ZeroCopySortedMap<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive);

    /** The entries below {@code toKey} (or equal to it, if {@code inclusive}). */
    ZeroCopySortedMap<K, V> headMap(K toKey, boolean inclusive);

    /** The entries above {@code fromKey} (or equal to it, if {@code inclusive}). */
    ZeroCopySortedMap<K, V> tailMap(K fromKey, boolean inclusive);
}
