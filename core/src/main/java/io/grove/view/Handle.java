package io.grove.view;

import java.util.ConcurrentModificationException;
import java.util.function.Function;

/**
 * An unscoped read view of one key or value that may be kept and read at any later time, from any thread.
 *
 * <p>Every read is validated against the entry's current state. Once the entry has been removed (and its memory
 * possibly reused for another entry), every read throws {@link ConcurrentModificationException}; a read never
 * returns bytes that belong to another entry. A read of several fields that must be consistent with each other
 * should go through {@link #read(Function)}, which validates once after the whole function ran.
 */
public interface Handle extends ReadView {

    /** Whether the entry behind this handle still exists; a {@code true} may be outdated when it returns. */
    boolean isValid();

    /**
     * Applies {@code reader} to a scoped view of the bytes and returns its result if the entry was not removed
     * while it ran.
     *
     * @throws ConcurrentModificationException if the entry was removed before or while {@code reader} ran; an
     *     exception thrown by {@code reader} on bytes changed by such a removal is replaced by this one
     */
    <T> T read(Function<? super ReadView, ? extends T> reader);
}
