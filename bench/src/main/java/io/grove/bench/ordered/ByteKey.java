package io.grove.bench.ordered;

import java.util.Arrays;

/**
 * A 100-byte key on the heap for {@link java.util.concurrent.ConcurrentSkipListMap}, ordered by unsigned bytes
 * like Grove's. A stored key owns its array; a thread's lookup key reuses one array (never stored).
 */
final class ByteKey implements Comparable<ByteKey> {
    final byte[] bytes;

    ByteKey(byte[] bytes) {
        this.bytes = bytes;
    }

    @Override
    public int compareTo(ByteKey other) {
        return Arrays.compareUnsigned(bytes, other.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ByteKey k && Arrays.equals(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }
}
