package io.grove.internal.view;

import java.util.Iterator;
import java.util.Spliterator;
import java.util.function.Consumer;

/**
 * A spliterator over an iterator that never splits: for zero-copy streams that point one handle at element after
 * element. The JDK's iterator spliterators split by buffering elements into arrays, which would hand a parallel
 * stream the same reused handle many times, each time pointed at whatever the scan reached last; this one keeps a
 * parallel stream over it sequential, so each element is consumed before the handle moves on.
 */
public final class UnsplittableSpliterator<T> implements Spliterator<T> {
    private final Iterator<T> iterator;
    private final int characteristics;

    public UnsplittableSpliterator(Iterator<T> iterator, int characteristics) {
        this.iterator = iterator;
        this.characteristics = characteristics;
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
        return null;
    }

    @Override
    public long estimateSize() {
        return Long.MAX_VALUE;
    }

    @Override
    public int characteristics() {
        return characteristics;
    }
}
