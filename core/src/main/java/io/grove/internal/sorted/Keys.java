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
 *
 * <p>A chunk takes its entries' prefixes after the bytes that every key of its range starts with
 * ({@link Chunk#shared}): keys that share a long prefix ({@code user…}) would otherwise all have nearly the same
 * first 8 bytes, and every comparison would read the stored key. The same argument holds for the bytes after a
 * common start; a probe that does not start with those bytes is ordered against the whole chunk by {@link #outside}.
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

    /**
     * The prefix of the key {@code [offset, offset + length)} of {@code source} in a chunk whose keys share
     * {@code plan.start} first bytes and which takes their prefixes by {@code plan}.
     */
    long prefix(PrefixPlan plan, MemorySegment source, long offset, int length) {
        if (plan.isContiguous()) {
            return prefix(source, offset + plan.start, length - plan.start);
        }
        return plan.gather(source, offset, length);
    }

    /**
     * The plan of a new chunk whose keys share {@code shared} first bytes and are the stored keys
     * {@code keyRefs[from, to)} (sorted, live) of lengths {@code keyLengths}: chosen from up to
     * {@value PrefixPlan#SAMPLES} of them spread evenly; the default plan outside the byte order.
     */
    PrefixPlan planFor(int shared, long[] keyRefs, int[] keyLengths, int from, int to) {
        int count = Math.min(PrefixPlan.SAMPLES, to - from);
        if (!prefixed || count < 2) {
            return PrefixPlan.contiguous(shared);
        }
        long[][] samples = new long[count][];
        for (int i = 0; i < count; i++) {
            int e = from + (int) ((long) (to - from - 1) * i / (count - 1));
            samples[i] = PrefixPlan.sampleOf(pool.segment(keyRefs[e]), pool.payloadOffset(keyRefs[e]), keyLengths[e],
                    shared);
        }
        return PrefixPlan.choose(shared, samples, count);
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

    /** The {@link #prefix} of a heap key, which it keeps. */
    long prefix(Key key) {
        return prefixed ? key.prefix() : 0;
    }

    /**
     * Where the probe {@code [0, length)} of {@code probe} lies against every key that starts with the first
     * {@code shared} bytes of {@code start}: 0 if it starts with them too (then its bytes after them decide), else
     * -1 if it is below all such keys and 1 if above. Always 0 outside the byte order, whose chunks share nothing.
     */
    int outside(MemorySegment probe, int length, Key start, int shared) {
        if (!prefixed || shared == 0) {
            return 0;
        }
        int n = Math.min(length, shared);
        long m = MemorySegment.mismatch(probe, 0, n, start.segment(), 0, shared);
        if (m == -1) {
            return 0;
        }
        if (m == n) { // the probe ends inside the shared bytes: a proper prefix of every such key
            return -1;
        }
        return Integer.compare(probe.get(ValueLayout.JAVA_BYTE, m) & 0xFF,
                start.segment().get(ValueLayout.JAVA_BYTE, m) & 0xFF);
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
