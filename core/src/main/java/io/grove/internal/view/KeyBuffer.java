package io.grove.internal.view;

import io.grove.serial.Serializer;
import java.lang.foreign.MemorySegment;

/**
 * A serialized key on the heap that a thread reuses from operation to operation (a probe key): grows when a key
 * does not fit, never shrinks, so a steady workload allocates nothing.
 */
public final class KeyBuffer {
    private final SegmentView view = new SegmentView();
    private byte[] bytes = new byte[64];
    private MemorySegment segment = MemorySegment.ofArray(bytes);
    private int length;

    /** Serializes {@code key} here (through {@link SliceWriter}: a serializer that lies about its size throws). */
    public <K> void set(Serializer<K> serializer, K key) {
        int size = SliceWriter.sizeOf(serializer, key);
        ensureCapacity(size);
        SliceWriter.writeInto(serializer, key, size, view, segment, 0);
        length = size;
    }

    /** Copies {@code [0, length)} of {@code source} here. */
    public void setBytes(MemorySegment source, int length) {
        ensureCapacity(length);
        MemorySegment.copy(source, 0, segment, 0, length);
        this.length = length;
    }

    private void ensureCapacity(int size) {
        if (size > bytes.length) {
            bytes = new byte[Math.max(size, bytes.length * 2)];
            segment = MemorySegment.ofArray(bytes);
        }
    }

    /** The bytes: {@code [0, length())} of this segment. */
    public MemorySegment segment() {
        return segment;
    }

    public int length() {
        return length;
    }
}
