package io.grove.internal.sorted;

import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;

/**
 * The spliterator of a weakly consistent scan of an ordered map (a view's iterator), for its streams: of unknown
 * size (the default {@code Collection.spliterator()} takes the view's {@code size()} as exact, and a stream that
 * then meets more or fewer elements fails), {@link #CONCURRENT}, {@link #NONNULL} and {@link #ORDERED}, as
 * {@link java.util.concurrent.ConcurrentSkipListMap}'s views report, plus what the elements are: keys and entries
 * {@link #DISTINCT} and, on the heap, {@link #SORTED} by the view's comparator.
 *
 * <p>Splitting takes a batch of elements ahead into an array ({@link Spliterators.AbstractSpliterator}), so a
 * parallel stream works on a scan as a sequential one does. A scan that points one object at element after
 * element (the zero-copy streams) does not split: a batch would hold that one object many times.
 */
final class ScanSpliterator<T> extends Spliterators.AbstractSpliterator<T> {
    private static final int SCAN = CONCURRENT | NONNULL | ORDERED;

    private final Iterator<T> iterator;
    private final Comparator<? super T> comparator;
    private final boolean splits;

    private ScanSpliterator(Iterator<T> iterator, int characteristics, Comparator<? super T> comparator,
            boolean splits) {
        super(Long.MAX_VALUE, SCAN | characteristics);
        this.iterator = iterator;
        this.comparator = comparator;
        this.splits = splits;
    }

    /** The keys of {@code view}, sorted by its comparator. */
    static <K> Spliterator<K> keys(SortedRangeMap<K, ?> view) {
        return new ScanSpliterator<>(view.iterator(RangeIterator.KEYS), DISTINCT | SORTED, view.comparator(), true);
    }

    /** The entries of {@code view}, sorted by its comparator on their keys. */
    static <K, V> Spliterator<Map.Entry<K, V>> entries(SortedRangeMap<K, V> view) {
        return new ScanSpliterator<>(view.iterator(RangeIterator.ENTRIES), DISTINCT | SORTED,
                Map.Entry.comparingByKey(view.comparator()), true);
    }

    /** The values of {@code view}, in its key order. */
    static <V> Spliterator<V> values(SortedRangeMap<?, V> view) {
        return new ScanSpliterator<>(view.iterator(RangeIterator.VALUES), 0, null, true);
    }

    /** Elements of a scan that are objects of their own, {@link #DISTINCT} if {@code distinct}; not sorted. */
    static <T> Spliterator<T> unsorted(Iterator<T> iterator, boolean distinct) {
        return new ScanSpliterator<>(iterator, distinct ? DISTINCT : 0, null, true);
    }

    /**
     * Elements of a scan that points one object at element after element: not {@link #DISTINCT} (the elements
     * are the same object), and not split.
     */
    static <T> Spliterator<T> reusing(Iterator<T> iterator) {
        return new ScanSpliterator<>(iterator, 0, null, false);
    }

    @Override
    public boolean tryAdvance(Consumer<? super T> action) {
        if (!iterator.hasNext()) {
            return false;
        }
        action.accept(iterator.next());
        return true;
    }

    @Override
    public void forEachRemaining(Consumer<? super T> action) {
        iterator.forEachRemaining(action);
    }

    @Override
    public Spliterator<T> trySplit() {
        return splits ? super.trySplit() : null;
    }

    @Override
    public Comparator<? super T> getComparator() {
        if (!hasCharacteristics(SORTED)) {
            throw new IllegalStateException("the elements are not sorted");
        }
        return comparator;
    }
}
