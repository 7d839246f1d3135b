package io.grove.view;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Read and write access to the bytes of one off-heap value, in place. Always scoped: valid only inside the
 * callback it is passed to. Bounds are checked as in {@link ReadView}; a write out of bounds changes nothing.
 * Writing through a view that was passed to a callback as a {@link ReadView} (by casting it) throws
 * {@link IllegalStateException} and changes nothing.
 */
public interface WriteView extends ReadView {

    WriteView putByte(int index, byte value);

    WriteView putShort(int index, short value);

    WriteView putChar(int index, char value);

    WriteView putInt(int index, int value);

    WriteView putLong(int index, long value);

    WriteView putFloat(int index, float value);

    WriteView putDouble(int index, double value);

    /** Copies {@code length} bytes from {@code source[sourceIndex...]} to this view at {@code index}. */
    WriteView copyFrom(byte[] source, int sourceIndex, int index, int length);

    /** Copies {@code source.remaining()} bytes from {@code source} to this view at {@code index}. */
    WriteView copyFrom(ByteBuffer source, int index);

    /** Copies {@code length} bytes from {@code source} at {@code sourceOffset} to this view at {@code index}. */
    WriteView copyFrom(MemorySegment source, long sourceOffset, int index, int length);

    /** Sets {@code length} bytes starting at {@code index} to {@code value}. */
    WriteView fill(int index, int length, byte value);
}
