package io.grove.internal.view;

import io.grove.serial.Serializer;
import io.grove.view.Handle;
import java.lang.foreign.MemorySegment;

/**
 * A serialized key on the heap that a thread reuses from operation to operation (a probe key).
 *
 * <p>Sizes are checked before anything is allocated. A key larger than the largest key the map can store
 * ({@code maxLength}) is not serialized at all: it cannot be in the map, so {@link #set} only records its size and
 * returns {@code false}, and the map answers a read as absent and rejects a write. A key up to
 * {@value #RETAINED_BYTES} bytes goes into a buffer kept from operation to operation (grown as needed, so a steady
 * workload allocates nothing); a larger one into a buffer of its own, which {@link #release} drops when the
 * operation ends, so one large key does not keep a large buffer for good.
 */
public final class KeyBuffer {
    /** The largest buffer kept between operations. */
    static final int RETAINED_BYTES = 4096;

    private final SegmentView view = new SegmentView();
    private byte[] retained = new byte[64];
    private MemorySegment retainedSegment = MemorySegment.ofArray(retained);
    /** The buffer holding the current key: {@link #retainedSegment}, or one of its own for a large key. */
    private MemorySegment segment = retainedSegment;
    private int length;
    private boolean fits = true;

    /**
     * Serializes {@code key} here (through {@link SliceWriter}: a serializer that lies about its size throws), or,
     * if it declares more than {@code maxLength} bytes, only records its size and returns {@code false}.
     */
    public <K> boolean set(Serializer<K> serializer, K key, int maxLength) {
        int size = SliceWriter.sizeOf(serializer, key);
        length = size;
        fits = size <= maxLength;
        if (fits) {
            arrayFor(size);
            SliceWriter.writeInto(serializer, key, size, view, segment, 0);
        }
        return fits;
    }

    /** Copies {@code [0, length)} of {@code source} here; a stored key, so it fits. */
    public void setBytes(MemorySegment source, int length) {
        ByteCopy.toArray(source, 0, arrayFor(length), 0, length);
        this.length = length;
        this.fits = true;
    }

    /**
     * Copies the bytes of {@code source} here: a stored key read through its handle, so it fits. Throws what the
     * handle's read throws (the key's slice gone).
     */
    public void setBytes(Handle source) {
        int size = source.size();
        source.copyTo(0, arrayFor(size), 0, size);
        this.length = size;
        this.fits = true;
    }

    /** The array the next key of {@code size} bytes goes to, which {@link #segment} then covers. */
    private byte[] arrayFor(int size) {
        if (size > RETAINED_BYTES) {
            byte[] own = new byte[size];
            segment = MemorySegment.ofArray(own);
            return own;
        }
        if (size > retained.length) {
            retained = new byte[Math.min(RETAINED_BYTES, Math.max(size, retained.length * 2))];
            retainedSegment = MemorySegment.ofArray(retained);
        }
        segment = retainedSegment;
        return retained;
    }

    /** Ends the operation: drops the buffer of a large key. */
    public void release() {
        segment = retainedSegment;
    }

    /**
     * The exception for a write of the last key set, which did not fit: names its size and {@code maxLength}, and
     * why that is the limit.
     */
    public IllegalArgumentException tooLarge(int maxLength, String why) {
        return new IllegalArgumentException("a key of " + length + " bytes is larger than the largest key this map "
                + "can store, " + maxLength + " bytes (" + why + ")");
    }

    /** Whether the last key set was at most {@code maxLength} bytes, so that its bytes are here. */
    public boolean fits() {
        return fits;
    }

    /** The bytes: {@code [0, length())} of this segment, if the key {@linkplain #fits fits}. */
    public MemorySegment segment() {
        return segment;
    }

    /** The size of the last key set, whether it fits or not. */
    public int length() {
        return length;
    }

    /** The capacity of the buffer kept between operations. */
    int retainedCapacity() {
        return retained.length;
    }
}
