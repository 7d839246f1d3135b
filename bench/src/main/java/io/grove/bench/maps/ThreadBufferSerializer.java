package io.grove.bench.maps;

import io.grove.serial.Serializer;
import io.grove.view.ReadView;
import io.grove.view.WriteView;

/**
 * Grove value serializer for the benchmark: writes a {@code byte[]} as itself and reads a value into the calling
 * thread's reusable array instead of a new one, so that Grove's copying {@code get} makes no garbage (the array
 * returned is overwritten by the thread's next read).
 */
public final class ThreadBufferSerializer implements Serializer<byte[]> {
    public static final ThreadBufferSerializer INSTANCE = new ThreadBufferSerializer();

    private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[0]);

    private ThreadBufferSerializer() {}

    @Override
    public int size(byte[] value) {
        return value.length;
    }

    @Override
    public void write(byte[] value, WriteView target) {
        target.copyFrom(value, 0, 0, value.length);
    }

    @Override
    public byte[] read(ReadView source) {
        byte[] buffer = BUFFERS.get();
        int size = source.size();
        if (buffer.length != size) {
            buffer = new byte[size];
            BUFFERS.set(buffer);
        }
        source.copyTo(0, buffer, 0, size);
        return buffer;
    }
}
