package io.grove.bench.ordered;

import java.util.Arrays;

/**
 * A key of bytes on the heap for {@link java.util.concurrent.ConcurrentSkipListMap}, ordered by unsigned bytes
 * like Grove's (the ordered family's 100-byte keys, the batch family's 16-byte ones). A stored key owns its array; a
 * thread's lookup key reuses one array (never stored).
 */
public final class ByteKey implements Comparable<ByteKey> {
    public final byte[] bytes;

    public ByteKey(byte[] bytes) {
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
