package io.grove.internal.sorted;

/**
 * Whether an ordered map was closed: one flag that the map, its values and its rebalancer share. A closed map's
 * chunks keep referring to values and keys its close deleted, and its chunks stay frozen for good, so every path
 * that would otherwise read an entry again or wait for a replacement asks {@link #check} first.
 */
final class Closing {
    private volatile boolean closed;

    /** Marks the map closed; {@code false} if it already was. */
    synchronized boolean close() {
        if (closed) {
            return false;
        }
        closed = true;
        return true;
    }

    boolean isClosed() {
        return closed;
    }

    /** Throws {@link IllegalStateException} if the map was closed. */
    void check() {
        if (closed) {
            throw new IllegalStateException("the map is closed");
        }
    }
}
