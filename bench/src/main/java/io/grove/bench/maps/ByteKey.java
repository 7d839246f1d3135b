package io.grove.bench.maps;

import java.util.Arrays;

/**
 * A {@code byte[]} key for {@link java.util.HashMap}-like maps on the heap: equality and hash by content. A stored
 * key owns a copy; a thread's probe wraps its reused key buffer and is {@link #rehash rehashed} before each lookup.
 */
final class ByteKey {
    private final byte[] bytes;
    private int hash;

    ByteKey(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    /** Recomputes the hash after the wrapped bytes changed (probes only). */
    ByteKey rehash() {
        hash = Arrays.hashCode(bytes);
        return this;
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ByteKey k && k.hash == hash && Arrays.equals(k.bytes, bytes);
    }
}
