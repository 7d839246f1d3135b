package io.grove.view;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Read access to the bytes of one off-heap key or value, without copying it onto the heap.
 *
 * <p>Multi-byte values are big-endian, like {@link ByteBuffer}'s default order. Every access is bounds-checked:
 * an index outside {@code [0, size())} throws {@link IndexOutOfBoundsException} whose message carries the index,
 * the length of the access and the size of the view.
 *
 * <p>A view passed to a callback is <em>scoped</em>: it is valid only while the callback runs, and any use
 * after the callback returns throws {@link IllegalStateException}. A {@link Handle} is an unscoped view that may
 * be kept.
 *
 * <p>A callback that reads without a lock ({@link Handle#read}, a {@link io.grove.serial.Serializer#read
 * deserializer} during a lock-free read) may run more than once: when a concurrent write overlapped what it read,
 * its result, or what it threw, is discarded and it runs again. Such a callback must have no side effects.
 */
public interface ReadView {

    /** The number of bytes in this view. */
    int size();

    byte getByte(int index);

    short getShort(int index);

    char getChar(int index);

    int getInt(int index);

    long getLong(int index);

    float getFloat(int index);

    double getDouble(int index);

    /** Copies {@code length} bytes starting at {@code index} into {@code target[targetIndex...]}. */
    void copyTo(int index, byte[] target, int targetIndex, int length);

    /**
     * Copies {@code target.remaining()} bytes starting at {@code index} into {@code target} at its position,
     * and advances the position.
     *
     * @throws java.nio.ReadOnlyBufferException if {@code target} is read-only
     */
    void copyTo(int index, ByteBuffer target);

    /** Copies {@code length} bytes starting at {@code index} into {@code target} at {@code targetOffset}. */
    void copyTo(int index, MemorySegment target, long targetOffset, int length);

    /** A new on-heap array holding a copy of all bytes of this view. */
    default byte[] toByteArray() {
        byte[] copy = new byte[size()];
        copyTo(0, copy, 0, copy.length);
        return copy;
    }
}
