package io.grove.internal.sorted;

import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Compares probe keys (serialized on the heap) with keys stored off heap, in a map's {@link KeyOrder}.
 *
 * <p>In the byte order, a key's {@link #prefix} (its first 8 bytes as an unsigned big-endian number, zero-padded)
 * orders keys whose prefixes differ as their bytes do, so a chunk keeps each entry's prefix beside its key
 * reference and compares stored keys without reading them off heap unless the prefixes are equal. (If the first
 * difference of two keys is at byte {@code i < 8}, both prefixes hold it there; if one key ends before {@code i}
 * its zero padding is at most the other's byte, and strictly less or the prefixes would be equal.)
 */
final class Keys {
    private static final ValueLayout.OfLong BIG_ENDIAN_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    final Pool pool;
    final KeyOrder order;
    /** Whether prefixes decide comparisons (the byte order); otherwise every prefix is 0. */
    private final boolean prefixed;

    Keys(Pool pool, KeyOrder order) {
        this.pool = pool;
        this.order = order;
        this.prefixed = order == KeyOrder.BYTES;
    }

    /** The prefix of the key {@code [offset, offset + length)} of {@code source}; 0 unless in the byte order. */
    long prefix(MemorySegment source, long offset, int length) {
        return prefixed ? bytePrefix(source, offset, length) : 0;
    }

    /** The first 8 bytes of {@code [offset, offset + length)} of {@code source}, unsigned big-endian, zero-padded. */
    static long bytePrefix(MemorySegment source, long offset, int length) {
        if (length >= Long.BYTES) {
            return source.get(BIG_ENDIAN_LONG, offset);
        }
        long prefix = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            prefix = (prefix << 8) | (i < length ? source.get(ValueLayout.JAVA_BYTE, offset + i) & 0xFF : 0);
        }
        return prefix;
    }

    /**
     * Compares the probe {@code [0, length)} of {@code probe}, whose {@link #prefix} is {@code probePrefix}, with
     * the stored key {@code keyRef} whose prefix is {@code keyPrefix}: reads the stored key only on equal prefixes.
     */
    int compare(MemorySegment probe, int length, long probePrefix, long keyRef, int keyLength, long keyPrefix) {
        if (probePrefix != keyPrefix) {
            return Long.compareUnsigned(probePrefix, keyPrefix);
        }
        return compare(probe, length, keyRef, keyLength);
    }

    /** Compares the probe {@code [0, length)} of {@code probe} with the stored key {@code keyRef}. */
    int compare(MemorySegment probe, int length, long keyRef, int keyLength) {
        return order.compare(probe, 0, length, pool.segment(keyRef), pool.payloadOffset(keyRef), keyLength);
    }

    /** Compares a heap key with the stored key {@code keyRef} whose {@link #prefix} is {@code keyPrefix}. */
    int compare(Key probe, long keyRef, int keyLength, long keyPrefix) {
        return compare(probe.segment(), probe.length(), prefixed ? probe.prefix() : 0, keyRef, keyLength, keyPrefix);
    }

    /** Compares two heap keys; {@code null} stands for minus infinity. */
    int compareBounds(Key a, Key b) {
        if (a == null || b == null) {
            return a == b ? 0 : a == null ? -1 : 1;
        }
        return order.compare(a, b);
    }

    /** Compares a probe with a heap key ({@code null}: minus infinity). */
    int compare(MemorySegment probe, int length, Key key) {
        if (key == null) {
            return 1;
        }
        if (prefixed) {
            long probePrefix = bytePrefix(probe, 0, length);
            if (probePrefix != key.prefix()) {
                return Long.compareUnsigned(probePrefix, key.prefix());
            }
        }
        return order.compare(probe, 0, length, key.segment(), 0, key.length());
    }

    /** A heap copy of the stored key. */
    Key copy(long keyRef, int keyLength) {
        return Key.copyOf(pool.segment(keyRef), pool.payloadOffset(keyRef), keyLength);
    }
}
