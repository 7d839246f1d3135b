package io.grove.internal.sorted;

import java.lang.foreign.MemorySegment;

/**
 * A serialized key on the heap: a chunk's lower bound, a view's bound, or an iterator's last key. Immutable.
 *
 * @param segment the bytes (a heap segment of exactly {@code length} bytes)
 * @param length the key's length
 * @param prefix the key's first 8 bytes as {@link Keys#prefix} computes them in the byte order
 */
record Key(MemorySegment segment, int length, long prefix) {

    Key(MemorySegment segment, int length) {
        this(segment, length, Keys.bytePrefix(segment, 0, length));
    }

    /**
     * {@code key} serialized by {@code serializer} (a serializer that lies about its size throws), checked first
     * against {@code maxLength}, the largest key the map stores: a larger one throws
     * {@link IllegalArgumentException} naming both sizes before anything is allocated.
     */
    static <K> Key of(io.grove.serial.Serializer<K> serializer, K key, int maxLength) {
        int size = io.grove.internal.view.SliceWriter.sizeOf(serializer, key);
        if (size > maxLength) {
            throw new IllegalArgumentException("a key of " + size + " bytes is larger than the largest key this map"
                    + " can store, " + maxLength + " bytes, and cannot bound or order its keys");
        }
        MemorySegment segment = MemorySegment.ofArray(new byte[size]);
        io.grove.internal.view.SliceWriter.writeInto(serializer, key, size, new io.grove.internal.view.SegmentView(),
                segment, 0);
        return new Key(segment, size);
    }

    /**
     * The number of first bytes {@code a} and {@code b} have in common: every key between them starts with those
     * bytes (in the byte order). 0 if either is {@code null} (an open end).
     */
    static int sharedLength(Key a, Key b) {
        if (a == null || b == null) {
            return 0;
        }
        long m = MemorySegment.mismatch(a.segment(), 0, a.length(), b.segment(), 0, b.length());
        return m == -1 ? a.length() : (int) m;
    }

    static Key copyOf(MemorySegment source, long offset, int length) {
        byte[] bytes = new byte[length];
        MemorySegment.copy(source, java.lang.foreign.ValueLayout.JAVA_BYTE, offset, bytes, 0, length);
        return new Key(MemorySegment.ofArray(bytes), length);
    }
}
