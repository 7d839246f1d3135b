package io.grove.bench.batches;

import java.util.SplittableRandom;

/**
 * One worker thread's buffers for the batch family: the batch being built (ids, and whether each is a removal),
 * one key and one value array per operation of the largest batch (a batch keeps its operations' arrays until it
 * is applied), and the thread's stamps and random ids. A contender keeps its own reusable objects in {@link #own}.
 */
final class BatchThread {
    static final int MAX_BATCH = 100;

    final long[] ids = new long[MAX_BATCH];
    final boolean[] removals = new boolean[MAX_BATCH];
    final byte[][] keys = new byte[MAX_BATCH][BatchCodec.KEY_SIZE];
    final byte[][] values = new byte[MAX_BATCH][BatchCodec.VALUE_SIZE];
    /** The lookup key of single-key operations. */
    final byte[] key = new byte[BatchCodec.KEY_SIZE];
    final byte[] value = new byte[BatchCodec.VALUE_SIZE];
    final SplittableRandom random;
    int size;
    long nextStamp;
    Object own;

    BatchThread(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /**
     * Builds a batch of {@code n} operations, each a put or (one in two) a removal: of ids {@code first},
     * {@code first + 1}... if {@code sequential}, else of random ids below {@code range}.
     */
    void build(int n, long first, boolean sequential, int range) {
        size = n;
        for (int i = 0; i < n; i++) {
            set(i, sequential ? (first + i) % range : random.nextInt(range));
        }
    }

    /** Builds a batch of {@code n} operations on the ids of {@code trace} from a random place (repeats allowed). */
    void build(int n, int[] trace) {
        size = n;
        int at = random.nextInt(trace.length);
        for (int i = 0; i < n; i++) {
            set(i, trace[(at + i) % trace.length]);
        }
    }

    /** Operation {@code i} of the batch: a put or (one in two) a removal of {@code id}. */
    private void set(int i, long id) {
        ids[i] = id;
        removals[i] = random.nextBoolean();
        BatchCodec.setKey(keys[i], id);
        if (!removals[i]) {
            BatchCodec.setValue(values[i], id, ++nextStamp);
        }
    }
}
