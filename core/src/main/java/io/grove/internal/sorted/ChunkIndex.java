package io.grove.internal.sorted;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The index over chunks (Oak §3.1's index): every current chunk in key order, as an immutable array replaced
 * copy-on-write by rebalances.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Oak keeps a skiplist of chunk minimum keys, updated lazily after a rebalance has linked new chunks into a
 * chunk list. Here the chunk ranges are explicit ({@link Chunk#minKey}, {@link Chunk#upperKey}) and the index is
 * one array: a rebalance replaces its frozen chunks by their successors with a single CAS of {@link #chunks}, the
 * linearization point of the whole split, merge or compaction. In every array, chunk {@code i}'s
 * {@code upperKey} equals chunk {@code i + 1}'s {@code minKey}, the first chunk's {@code minKey} is
 * {@code null} and the last one's {@code upperKey} is {@code null}: the chunks partition the key space. A lookup
 * is a binary search of the array with no allocation and no lock. The cost is a copy of the array per rebalance:
 * 8 bytes per chunk, amortized over the chunk size of inserts or removals that caused it.
 */
final class ChunkIndex {
    private static final VarHandle CHUNKS;

    static {
        try {
            CHUNKS = MethodHandles.lookup().findVarHandle(ChunkIndex.class, "chunks", Chunk[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile Chunk[] chunks;

    ChunkIndex(Chunk first) {
        this.chunks = new Chunk[] {first};
    }

    Chunk[] snapshot() {
        return chunks;
    }

    /** The chunk whose range holds the probe. */
    Chunk locate(Keys keys, MemorySegment probe, int length) {
        Chunk[] a = chunks;
        return a[lastAtOrBelow(a, keys, probe, length, true)];
    }

    /** The chunk whose range holds the keys just below the probe: the last chunk whose minimum is below it. */
    Chunk locateBelow(Keys keys, MemorySegment probe, int length) {
        Chunk[] a = chunks;
        return a[lastAtOrBelow(a, keys, probe, length, false)];
    }

    Chunk first() {
        return chunks[0];
    }

    Chunk last() {
        Chunk[] a = chunks;
        return a[a.length - 1];
    }

    /** The index of the last chunk whose minimum is at or below the probe (strictly below unless inclusive). */
    private static int lastAtOrBelow(Chunk[] a, Keys keys, MemorySegment probe, int length, boolean inclusive) {
        int limit = inclusive ? 0 : 1;
        int lo = 1;
        int hi = a.length - 1;
        int found = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (keys.compare(probe, length, a[mid].minKey) >= limit) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** The chunk right after {@code c} in the current array, or {@code null} if {@code c} is last or not current. */
    Chunk successor(Chunk c) {
        Chunk[] a = chunks;
        int i = indexOf(a, c);
        return i >= 0 && i + 1 < a.length ? a[i + 1] : null;
    }

    /** The chunk right before {@code c} in the current array, or {@code null} if {@code c} is first or not current. */
    Chunk predecessor(Chunk c) {
        Chunk[] a = chunks;
        int i = indexOf(a, c);
        return i > 0 ? a[i - 1] : null;
    }

    /**
     * Replaces the consecutive chunks {@code old} (frozen by the caller, so no other thread replaces them) by
     * {@code fresh}, which cover the same range, in one CAS.
     */
    void replace(Chunk[] old, Chunk[] fresh) {
        while (true) {
            Chunk[] a = chunks;
            int i = indexOf(a, old[0]);
            if (i < 0) {
                throw new IllegalStateException("a frozen chunk left the index without its rebalancer");
            }
            Chunk[] b = new Chunk[a.length - old.length + fresh.length];
            System.arraycopy(a, 0, b, 0, i);
            System.arraycopy(fresh, 0, b, i, fresh.length);
            System.arraycopy(a, i + old.length, b, i + fresh.length, a.length - i - old.length);
            if (CHUNKS.compareAndSet(this, a, b)) {
                return;
            }
        }
    }

    private static int indexOf(Chunk[] a, Chunk c) {
        for (int i = 0; i < a.length; i++) { // a linear scan: only rebalances call this
            if (a[i] == c) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        return "ChunkIndex" + Arrays.toString(chunks);
    }
}
