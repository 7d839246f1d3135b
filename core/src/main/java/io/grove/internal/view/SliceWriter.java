package io.grove.internal.view;

import io.grove.SerializerException;
import io.grove.internal.memory.Pool;
import io.grove.serial.Serializer;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Serializes a value into a new private slice: the one way keys and values enter off-heap memory.
 *
 * <p>The serializer writes through a view of exactly the size it declared, so it cannot write past the slice.
 * If it tries, or fails in any other way, the slice is deleted privately and nothing is left half-written; an
 * attempt to write past the declared size becomes a {@link SerializerException} naming the serializer.
 */
public final class SliceWriter {
    private SliceWriter() {}

    /**
     * Allocates a slice for {@code value}, serializes it there through {@code view} (a closed view, reused by the
     * caller) and returns the slice's reference, still private to the calling thread.
     *
     * @throws NullPointerException if {@code value} is null
     * @throws SerializerException if the serializer declares a negative size or writes past its declared size
     * @throws IllegalArgumentException if the declared size exceeds the largest slice of the pool
     * @throws io.grove.GroveOutOfMemoryException if the pool's memory limit leaves no room
     */
    public static <T> long write(Pool pool, Serializer<T> serializer, T value, SegmentView view) {
        int size = sizeOf(serializer, value);
        long ref = pool.allocate(size);
        boolean written = false;
        try {
            writeInto(serializer, value, size, view, pool.segment(ref), pool.payloadOffset(ref));
            written = true;
        } finally {
            if (!written) {
                pool.deletePrivate(ref);
            }
        }
        return ref;
    }

    /** The size {@code serializer} declares for {@code value}, checked to be at least 0. */
    public static <T> int sizeOf(Serializer<T> serializer, T value) {
        Objects.requireNonNull(value, "value");
        int size = serializer.size(value);
        if (size < 0) {
            throw new SerializerException("serializer " + serializer + " declared a negative size (" + size
                    + ") for a value of " + value.getClass().getName());
        }
        return size;
    }

    /**
     * Serializes {@code value} into {@code [offset, offset + size)} of {@code target} through {@code view} (closed
     * before and after); a write past {@code size} becomes a {@link SerializerException}.
     */
    public static <T> void writeInto(Serializer<T> serializer, T value, int size, SegmentView view,
            MemorySegment target, long offset) {
        try {
            view.open(target, offset, size, true);
            serializer.write(value, view);
        } catch (ViewBoundsException e) {
            throw new SerializerException("serializer " + serializer + " wrote past its declared size of " + size
                    + " bytes for a value of " + value.getClass().getName() + ": " + e.getMessage(), e);
        } finally {
            view.close();
        }
    }
}
