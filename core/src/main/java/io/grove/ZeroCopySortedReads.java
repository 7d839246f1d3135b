package io.grove;

/**
 * The zero-copy reads of a {@link GroveSortedMap} or of a {@link GroveSnapshot}, over the whole or a range of it:
 * the reads of {@link ZeroCopyReads} in order. The scans ({@code keySet}, {@code values}, {@code entrySet} and the
 * streams that reuse one handle) return entries in this view's order: ascending by key, or descending for a
 * {@link #descendingMap()}. Their spliterators report {@code CONCURRENT}, {@code NONNULL} and {@code ORDERED} (the
 * key and entry sets also {@code DISTINCT}) and no fixed size; the streams that reuse one handle do not split, so a
 * parallel one runs sequentially. On a key outside a range view's bounds {@code get} returns {@code null}.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface ZeroCopySortedReads<K, V> extends ZeroCopyReads<K, V> {

    /** The same entries in the opposite order. */
    ZeroCopySortedReads<K, V> descendingMap();

    /** The entries from {@code fromKey} to {@code toKey}, with the {@link java.util.NavigableMap#subMap} bounds. */
    ZeroCopySortedReads<K, V> subMap(K fromKey, boolean fromInclusive, K toKey, boolean toInclusive);

    /** The entries below {@code toKey} (or equal to it, if {@code inclusive}). */
    ZeroCopySortedReads<K, V> headMap(K toKey, boolean inclusive);

    /** The entries above {@code fromKey} (or equal to it, if {@code inclusive}). */
    ZeroCopySortedReads<K, V> tailMap(K fromKey, boolean inclusive);
}
