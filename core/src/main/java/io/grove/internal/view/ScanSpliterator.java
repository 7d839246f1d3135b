package io.grove.internal.view;

import java.util.Comparator;
import java.util.Iterator;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;

/**
 * The spliterator of a weakly consistent scan of a map (a view's iterator), for its streams: of unknown size (the
 * default {@code Collection.spliterator()} takes the view's {@code size()} as exact, and a stream that then meets
 * more or fewer elements fails), {@link #CONCURRENT} and {@link #NONNULL}, as the views of
 * {@link java.util.concurrent.ConcurrentHashMap} and {@link java.util.concurrent.ConcurrentSkipListMap} report,
 * plus what the caller says of the elements ({@link #DISTINCT}, {@link #ORDERED}, {@link #SORTED}).
 *
 * <p>Splitting takes a batch of elements ahead into an array ({@link Spliterators.AbstractSpliterator}), so a
 * parallel stream works on a scan as a sequential one does. A scan that points one object at element after
 * element (the zero-copy streams) does not split: a batch would hold that one object many times, each time pointed
 * at whatever the scan reached last; a parallel stream over it runs sequentially.
 */
public final class ScanSpliterator<T> extends Spliterators.AbstractSpliterator<T> {
    private static final int SCAN = CONCURRENT | NONNULL;

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

    /** A scan of elements that are objects of their own, with {@code characteristics}; not {@link #SORTED}. */
    public static <T> Spliterator<T> of(Iterator<T> iterator, int characteristics) {
        return new ScanSpliterator<>(iterator, characteristics, null, true);
    }

    /** A scan of objects of their own, {@link #SORTED} (and {@link #ORDERED}) by {@code comparator}. */
    public static <T> Spliterator<T> sorted(Iterator<T> iterator, int characteristics,
            Comparator<? super T> comparator) {
        return new ScanSpliterator<>(iterator, characteristics | SORTED | ORDERED, comparator, true);
    }

    /**
     * A scan that points one object at element after element: not {@link #DISTINCT} (the elements are the same
     * object), and never split.
     */
    public static <T> Spliterator<T> reusing(Iterator<T> iterator, int characteristics) {
        return new ScanSpliterator<>(iterator, characteristics & ~DISTINCT, null, false);
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
