package io.grove.internal.sorted;

import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;

/** Compares probe keys (serialized on the heap) with keys stored off heap, in a map's {@link KeyOrder}. */
final class Keys {
    final Pool pool;
    final KeyOrder order;

    Keys(Pool pool, KeyOrder order) {
        this.pool = pool;
        this.order = order;
    }

    /** Compares the probe {@code [0, length)} of {@code probe} with the stored key {@code keyRef}. */
    int compare(MemorySegment probe, int length, long keyRef, int keyLength) {
        return order.compare(probe, 0, length, pool.segment(keyRef), pool.payloadOffset(keyRef), keyLength);
    }

    int compare(Key probe, long keyRef, int keyLength) {
        return compare(probe.segment(), probe.length(), keyRef, keyLength);
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
        return order.compare(probe, 0, length, key.segment(), 0, key.length());
    }

    /** A heap copy of the stored key. */
    Key copy(long keyRef, int keyLength) {
        return Key.copyOf(pool.segment(keyRef), pool.payloadOffset(keyRef), keyLength);
    }
}
