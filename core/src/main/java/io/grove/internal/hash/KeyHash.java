package io.grove.internal.hash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The hash of a serialized key: a function of its bytes alone, so every process that maps the table computes the
 * same hash (a Java {@code hashCode} may differ between processes). Reads eight bytes at a time with a
 * multiply-and-rotate mix, then a final avalanche.
 */
final class KeyHash {
    private static final ValueLayout.OfLong WORD =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final long M1 = 0x9E3779B97F4A7C15L;
    private static final long M2 = 0xC2B2AE3D27D4EB4FL;

    private KeyHash() {}

    static long of(MemorySegment bytes, long offset, int length) {
        long h = M1 ^ length;
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            h = Long.rotateLeft(h ^ bytes.get(WORD, offset + i) * M2, 31) * M1;
        }
        long tail = 0;
        for (int shift = 0; i < length; i++, shift += 8) {
            tail |= (bytes.get(ValueLayout.JAVA_BYTE, offset + i) & 0xFFL) << shift;
        }
        h = Long.rotateLeft(h ^ tail * M2, 31) * M1;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return h;
    }
}
