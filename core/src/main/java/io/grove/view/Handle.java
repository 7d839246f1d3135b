package io.grove.view;

import java.util.ConcurrentModificationException;
import java.util.function.Function;

/**
 * An unscoped read view of one key or value that may be kept and read at any later time, from any thread.
 *
 * <p>Every read is validated against the entry's current state. Once the entry has been removed (and its memory
 * possibly reused for another entry), every read throws {@link ConcurrentModificationException}; a read never
 * returns bytes that belong to another entry.
 *
 * <p>Consistency with in-place updates: each read method (a getter, a {@code copyTo}, {@link #toByteArray()})
 * returns bytes of one state of the value, never bytes of an in-place update that was still writing; two reads may
 * see two different states. To read several fields of one state, read through {@link #read(Function)}, which runs
 * its function on one state. A read waits while an in-place update of the value runs.
 */
public interface Handle extends ReadView {

    /**
     * Whether the entry behind this handle still exists; a {@code true} may be outdated when it returns. Once the
     * map is closed, {@code false}, whether the map had its own pool or shared one (its reads then throw
     * {@link IllegalStateException} if the map's own pool was closed with it, {@link ConcurrentModificationException}
     * if the pool is shared and stays open).
     */
    boolean isValid();

    /**
     * Applies {@code reader} to a scoped view of the bytes and returns its result: the bytes it saw are one state of
     * the value (no in-place update overlapped them), and the entry was not removed while it ran.
     *
     * <p>If an in-place update overlaps the function, or the map moves the value meanwhile (an ordered map built
     * with {@code layOutForScans()} moves pairs into key order as it is scanned, also when no one writes), what it
     * returned or threw is discarded and it runs again on the new state or place, so it may run more than once: it
     * must have no side effects, and anything it throws on bytes that an update was changing is discarded.
     *
     * @throws ConcurrentModificationException if the entry was removed before or while {@code reader} ran; an
     *     exception thrown by {@code reader} on bytes changed by such a removal is replaced by this one
     */
    <T> T read(Function<? super ReadView, ? extends T> reader);
}
