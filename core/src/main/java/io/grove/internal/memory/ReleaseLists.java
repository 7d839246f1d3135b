package io.grove.internal.memory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Nova's release lists (Nova, §3.2): slices deleted but not yet reusable, collected until a batch is full and then
 * handed to the reclaimer.
 *
 * <p>Implementation notes.
 *
 * <p>Nova keeps one list per thread, and helpers that drain the lists of stalled threads. Per-thread state
 * does not fit an unbounded number of threads (virtual threads, pools that come and go: a list left by a thread
 * that ended would strand its slices). Here the lists are <em>stripes</em>: a fixed power-of-two number (twice
 * the processors, at least 4), each a batch array guarded by a try-lock. A deleting thread starts at the stripe its
 * thread id picks; if that stripe's guard is taken it moves to the next stripe, so it never waits. The guard
 * covers two stores and an increment; a full batch is swapped for a fresh array under the guard and reclaimed
 * outside it. {@link #drainAll} takes every stripe's partial batch: the allocator calls it before reporting that
 * memory is exhausted, which is the helping that keeps idle stripes from holding memory forever.
 *
 * <p>Robustness: a thread stalled between taking and dropping a stripe's guard delays at most that stripe's
 * current batch (other deleters skip the stripe); a thread stalled anywhere else delays nothing here.
 *
 * <p>Memory ordering: the guard is taken with a CAS (acquire) and dropped with {@code setRelease}, so a batch
 * and its count are seen whole by the next holder.
 */
final class ReleaseLists {
    private static final VarHandle GUARD;

    static {
        try {
            GUARD = MethodHandles.lookup().findVarHandle(Stripe.class, "guard", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Receives batches of deleted references, each batch exactly once. The array is lent for the call only: it is
     * reused for a later batch once {@code reclaim} returns.
     */
    interface BatchSink {
        void reclaim(long[] refs, int count);
    }

    static final class Stripe {
        // Padding keeps neighbouring stripes' guards on different cache lines.
        @SuppressWarnings("unused")
        long p1, p2, p3, p4, p5, p6, p7;
        volatile int guard;
        long[] refs;
        int count;
        /** An empty batch array to swap in when {@link #refs} fills: batches are recycled, not reallocated. */
        long[] spare;
        @SuppressWarnings("unused")
        long q1, q2, q3, q4, q5, q6, q7;

        Stripe(int batchSize) {
            refs = new long[batchSize];
        }

        boolean tryLock() {
            return guard == 0 && GUARD.compareAndSet(this, 0, 1);
        }

        void unlock() {
            GUARD.setRelease(this, 0);
        }
    }

    private final Stripe[] stripes;
    private final int batchSize;

    ReleaseLists(int batchSize) {
        int n = Math.max(4, Integer.highestOneBit(Runtime.getRuntime().availableProcessors() * 2 - 1) << 1);
        this.stripes = new Stripe[n];
        for (int i = 0; i < n; i++) {
            stripes[i] = new Stripe(batchSize);
        }
        this.batchSize = batchSize;
    }

    /** Adds a deleted slice; if that fills a batch, hands the batch to {@code sink} on this thread. */
    void add(long ref, BatchSink sink) {
        int mask = stripes.length - 1;
        int i = (int) Thread.currentThread().threadId();
        while (true) {
            Stripe s = stripes[i & mask];
            if (s.tryLock()) {
                long[] full = null;
                s.refs[s.count++] = ref;
                if (s.count == batchSize) {
                    full = s.refs;
                    s.refs = freshBatch(s);
                    s.count = 0;
                }
                s.unlock();
                if (full != null) {
                    sink.reclaim(full, batchSize);
                    recycle(s, full);
                }
                return;
            }
            i++;
            Thread.onSpinWait();
        }
    }

    /** The stripe's spare array, or a new one; called with the stripe's guard held. */
    private long[] freshBatch(Stripe s) {
        long[] batch = s.spare;
        if (batch == null) {
            return new long[batchSize];
        }
        s.spare = null;
        return batch;
    }

    /**
     * Gives a batch array the sink has finished with back to its stripe as the spare (the sink reads a batch only
     * while {@code reclaim} runs). If the guard is busy right now, or a spare is already there, the array is left
     * to the garbage collector: rare, and never a wait.
     */
    private static void recycle(Stripe s, long[] used) {
        if (s.tryLock()) {
            if (s.spare == null) {
                s.spare = used;
            }
            s.unlock();
        }
    }

    /** Hands every stripe's partial batch to {@code sink}; skips a stripe whose guard is held right now. */
    void drainAll(BatchSink sink) {
        for (Stripe s : stripes) {
            if (s.tryLock()) {
                long[] taken = s.refs;
                int count = s.count;
                if (count > 0) {
                    s.refs = freshBatch(s);
                    s.count = 0;
                }
                s.unlock();
                if (count > 0) {
                    sink.reclaim(taken, count);
                    recycle(s, taken);
                }
            }
        }
    }
}
