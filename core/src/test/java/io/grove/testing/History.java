package io.grove.testing;

import java.util.Arrays;

/**
 * A history of operations on an ordered map of {@code long} keys and values with atomic batches and snapshots,
 * recorded by concurrent threads for {@link LinearizabilityGraph} to check.
 *
 * <p>Each thread records into its own {@link Recorder} ({@link #recorder(int)}), which appends to plain arrays:
 * no lock, no shared write, no object per event (a batch's or a scan's pairs are copied into the recorder's own
 * array), so recording barely changes the interleavings it observes. The recorders are read after the threads
 * have stopped (their joins order the reads after the writes).
 *
 * <p>Per operation, a recorder keeps the invocation and response timestamps ({@code System.nanoTime()} read right
 * before the call and right after it returns), the arguments and the result. Every write must put a value that no
 * other write of the history puts ({@link Recorder#newValue} makes such values), so that every read names the
 * write it read; a removal writes "absent" ({@link #ABSENT}), which is not unique. Reads on a snapshot carry no
 * timestamps: they are logically at the snapshot's instant, somewhere inside the interval of its acquisition.
 */
public final class History {
    /** No value: a read that found no mapping, a put or remove that found none, a removal in a batch. */
    public static final long ABSENT = Long.MIN_VALUE;

    /** The kinds of event a recorder holds. */
    enum Kind { PUT, REMOVE, GET, BATCH, SNAPSHOT, SNAPSHOT_GET, SNAPSHOT_SCAN }

    private final Recorder[] recorders;

    /** A history recorded by {@code threads} threads, numbered 0 to {@code threads - 1}. */
    public History(int threads) {
        recorders = new Recorder[threads];
        for (int i = 0; i < threads; i++) {
            recorders[i] = new Recorder(i);
        }
    }

    /** The recorder of thread {@code thread}, which only that thread may use while it runs. */
    public Recorder recorder(int thread) {
        return recorders[thread];
    }

    /** How many threads record. */
    public int threads() {
        return recorders.length;
    }

    /** How many events were recorded in all (each read on a snapshot is one). */
    public long events() {
        long n = 0;
        for (Recorder r : recorders) {
            n += r.size;
        }
        return n;
    }

    private static long unboxed(Long value) {
        return value == null ? ABSENT : value;
    }

    /**
     * One thread's events, in struct-of-arrays form. What each array holds per kind of event:
     *
     * <pre>
     * kind           key    value        result     extra (pairs: keys then values)
     * PUT            k      v            previous   -
     * REMOVE         k      -            previous   -
     * GET            k      -            value      -
     * BATCH          -      -            -          n, keys, values (ABSENT: remove)
     * SNAPSHOT       -      snapshot id  -          -
     * SNAPSHOT_GET   k      snapshot id  value      -
     * SNAPSHOT_SCAN  -      snapshot id  -          from, to, n, keys, values
     * </pre>
     */
    public static final class Recorder {
        private static final int INITIAL = 1024;

        final int thread;
        int size;
        Kind[] kinds = new Kind[INITIAL];
        long[] invoked = new long[INITIAL];
        long[] responded = new long[INITIAL];
        long[] keys = new long[INITIAL];
        long[] values = new long[INITIAL];
        long[] results = new long[INITIAL];
        int[] extraStart = new int[INITIAL];
        long[] extra = new long[INITIAL];
        int extraSize;
        private long nextValue;
        private long nextSnapshot;

        Recorder(int thread) {
            this.thread = thread;
        }

        /**
         * A value that no other call of any recorder of the history returns: the thread's number plus one in the
         * high 32 bits, a sequence number in the low ones. Never {@link #ABSENT}.
         */
        public long newValue() {
            return ((long) (thread + 1) << 32) | ++nextValue;
        }

        /** {@code put(key, value)} returned {@code previous} ({@code null}: there was none). */
        public void put(long invoked, long responded, long key, long value, Long previous) {
            add(Kind.PUT, invoked, responded, key, value, unboxed(previous));
        }

        /** {@code remove(key)} returned {@code previous} ({@code null}: there was none). */
        public void remove(long invoked, long responded, long key, Long previous) {
            add(Kind.REMOVE, invoked, responded, key, ABSENT, unboxed(previous));
        }

        /** {@code get(key)} returned {@code value} ({@code null}: absent). */
        public void get(long invoked, long responded, long key, Long value) {
            add(Kind.GET, invoked, responded, key, ABSENT, unboxed(value));
        }

        /**
         * An atomic batch put {@code values[i]} at {@code keys[i]} for {@code i < count}, or removed the key where
         * the value is {@link #ABSENT}; each key at most once.
         */
        public void batch(long invoked, long responded, long[] keys, long[] values, int count) {
            int at = reserveExtra(1 + 2 * count);
            extra[at] = count;
            System.arraycopy(keys, 0, extra, at + 1, count);
            System.arraycopy(values, 0, extra, at + 1 + count, count);
            add(Kind.BATCH, invoked, responded, ABSENT, ABSENT, ABSENT);
            extraStart[size - 1] = at;
        }

        /**
         * A snapshot was acquired between {@code invoked} and {@code responded}; returns its id, by which any
         * thread records the reads made on it.
         */
        public long snapshot(long invoked, long responded) {
            long id = ((long) (thread + 1) << 32) | ++nextSnapshot;
            add(Kind.SNAPSHOT, invoked, responded, ABSENT, id, ABSENT);
            return id;
        }

        /** A get of {@code key} on snapshot {@code snapshot} returned {@code value} ({@code null}: absent). */
        public void snapshotGet(long snapshot, long key, Long value) {
            add(Kind.SNAPSHOT_GET, 0, 0, key, snapshot, unboxed(value));
        }

        /**
         * A scan of the keys {@code from} (inclusive) to {@code to} (exclusive) on snapshot {@code snapshot}
         * returned the pairs {@code (keys[i], values[i])} for {@code i < count}, in ascending key order: every
         * other key of the range was absent.
         */
        public void snapshotScan(long snapshot, long from, long to, long[] keys, long[] values, int count) {
            int at = reserveExtra(3 + 2 * count);
            extra[at] = from;
            extra[at + 1] = to;
            extra[at + 2] = count;
            System.arraycopy(keys, 0, extra, at + 3, count);
            System.arraycopy(values, 0, extra, at + 3 + count, count);
            add(Kind.SNAPSHOT_SCAN, 0, 0, ABSENT, snapshot, ABSENT);
            extraStart[size - 1] = at;
        }

        private void add(Kind kind, long invoked, long responded, long key, long value, long result) {
            if (size == kinds.length) {
                int n = 2 * size;
                kinds = Arrays.copyOf(kinds, n);
                this.invoked = Arrays.copyOf(this.invoked, n);
                this.responded = Arrays.copyOf(this.responded, n);
                keys = Arrays.copyOf(keys, n);
                values = Arrays.copyOf(values, n);
                results = Arrays.copyOf(results, n);
                extraStart = Arrays.copyOf(extraStart, n);
            }
            kinds[size] = kind;
            this.invoked[size] = invoked;
            this.responded[size] = responded;
            keys[size] = key;
            values[size] = value;
            results[size] = result;
            extraStart[size] = -1;
            size++;
        }

        private int reserveExtra(int n) {
            if (extraSize + n > extra.length) {
                extra = Arrays.copyOf(extra, Math.max(2 * extra.length, extraSize + n));
            }
            int at = extraSize;
            extraSize += n;
            return at;
        }
    }
}
