package io.grove.internal.view;

import io.grove.SerializerException;
import io.grove.internal.memory.Pool;
import io.grove.serial.Serializer;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Serializes a value into off-heap memory: the one way keys and values enter it.
 *
 * <p>The serializer writes through a view of exactly the size it declared, so it cannot write past it. An attempt
 * to write past the declared size, or writes that stop short of it (the view tracks the highest byte written),
 * become a {@link SerializerException} naming the serializer; if the target is a new private slice
 * ({@link #writeOrDelete}), a failure deletes it privately, so nothing is left half-written. Bytes a serializer
 * skips in the middle read as zero: a new slice's payload is zero ({@link Pool#allocate}).
 */
public final class SliceWriter {
    private SliceWriter() {}

    /**
     * Serializes {@code value} ({@link #sizeOf} bytes: {@code size}) at {@code offset} of the new private slice
     * {@code ref} through {@code view} (a closed view, reused by the caller); if that fails in any way, deletes
     * {@code ref} privately and rethrows.
     *
     * @throws SerializerException if the serializer writes past its declared size or not up to it
     */
    public static <T> void writeOrDelete(Pool pool, Serializer<T> serializer, T value, int size, SegmentView view,
            long ref, long offset) {
        boolean written = false;
        try {
            writeInto(serializer, value, size, view, pool.segment(ref), offset);
            written = true;
        } finally {
            if (!written) {
                pool.deletePrivate(ref);
            }
        }
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
     * before and after); a write past {@code size}, or writes that do not reach it, become a
     * {@link SerializerException}.
     */
    public static <T> void writeInto(Serializer<T> serializer, T value, int size, SegmentView view,
            MemorySegment target, long offset) {
        try {
            view.openTracked(target, offset, size);
            serializer.write(value, view);
            int written = view.writtenEnd();
            if (written < size) {
                throw new SerializerException("serializer " + serializer + " declared " + size
                        + " bytes for a value of " + value.getClass().getName() + " but wrote only up to byte "
                        + written + ": nothing was stored");
            }
        } catch (ViewBoundsException e) {
            throw new SerializerException("serializer " + serializer + " wrote past its declared size of " + size
                    + " bytes for a value of " + value.getClass().getName() + ": " + e.getMessage(), e);
        } finally {
            view.close();
        }
    }
}
