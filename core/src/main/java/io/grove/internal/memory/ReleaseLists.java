package io.grove.internal.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.LongConsumer;

/**
 * Nova's release lists (Nova, §3.2): slices deleted but not yet reusable, collected until a batch is full and then
 * handed to the reclaimer.
 *
 * <p>Implementation notes.
 *
 * <p>Nova keeps one list per thread, and helpers that drain the lists of stalled threads. Per-thread state
 * does not fit an unbounded number of threads (virtual threads, pools that come and go: a list left by a thread
 * that ended would strand its slices). Here the lists are <em>stripes</em>: a fixed power-of-two number (twice
 * the processors, at least 4, in memory; {@link #FILE_STRIPES} in a file), each a batch array guarded by a try-lock.
 * A deleting thread starts at the stripe its thread id picks; if that stripe's guard is taken it moves to the next
 * stripe, so it never waits. The guard covers a few stores and an increment; a full batch is swapped for a fresh
 * array under the guard and reclaimed outside it. {@link #drainAll} takes every stripe's partial batch: the
 * allocator calls it before reporting that memory is exhausted, which is the helping that keeps idle stripes from
 * holding memory forever.
 *
 * <p>Robustness: a thread stalled between taking and dropping a stripe's guard delays at most that stripe's
 * current batch (other deleters skip the stripe); a thread stalled anywhere else delays nothing here.
 *
 * <p><b>In a file</b> the batches are also written to this process's part of the file's release area (stripe
 * {@code i} at {@code i * stripeBytes(batchSize)}, one reference per word, 0 where none), so that the deleted slices of
 * a process that ended without closing the file are not lost with its heap: the thread that takes its record over
 * reclaims them ({@link #adopt}). A reference is written to its stripe's word before it is counted, and the words
 * of a batch swapped out for reclaiming are left as they are until new deletions overwrite them: the area names
 * every slice deleted and not yet reclaimed, except, after a process was killed inside a reclaim, those of that
 * batch already overwritten (at most a batch, which the recovery of the whole file frees: a salvage leads to one).
 * It may also name slices freed since, and name a slice twice (a kept slice added again to another stripe); the
 * reclaimer frees a slice with a CAS on its header ({@link SliceStates#tryFree}), so such a name frees nothing.
 *
 * <p>Memory ordering: the guard is taken with a CAS (acquire) and dropped with {@code setRelease}, so a batch
 * and its count are seen whole by the next holder. Another process reads an area only after the process that
 * wrote it ended.
 */
final class ReleaseLists {
    /** The stripes each process has in a file's release area. */
    static final int FILE_STRIPES = 16;

    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG;
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
        /** Where the stripe's words are in the area, in a file. */
        final long at;
        @SuppressWarnings("unused")
        long q1, q2, q3, q4, q5, q6, q7;

        Stripe(int batchSize, long at) {
            refs = new long[batchSize];
            this.at = at;
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
    /** This process's part of the file's release area; {@code null} in memory. */
    private final MemorySegment area;

    /** The stripes of a pool in memory. */
    ReleaseLists(int batchSize) {
        this(null, Math.max(4, Integer.highestOneBit(Runtime.getRuntime().availableProcessors() * 2 - 1) << 1),
                batchSize);
    }

    /**
     * The stripes of a pool over a file, written to {@code area} ({@link #FILE_STRIPES} of {@link #stripeBytes});
     * takes up the references a process that used the area before left there. Before any use.
     */
    ReleaseLists(MemorySegment area, int batchSize) {
        this(area, FILE_STRIPES, batchSize);
    }

    private ReleaseLists(MemorySegment area, int n, int batchSize) {
        this.area = area;
        this.batchSize = batchSize;
        this.stripes = new Stripe[n];
        for (int i = 0; i < n; i++) {
            stripes[i] = new Stripe(batchSize, i * stripeBytes(batchSize));
            if (area != null) {
                takeUp(stripes[i]);
            }
        }
    }

    /** The bytes of one stripe in a file's release area: its batch, one word per reference. */
    static long stripeBytes(int batchSize) {
        return 8L * batchSize;
    }

    /** Adds a deleted slice; if that fills a batch, hands the batch to {@code sink} on this thread. */
    void add(long ref, BatchSink sink) {
        int mask = stripes.length - 1;
        int i = (int) Thread.currentThread().threadId();
        while (true) {
            Stripe s = stripes[i & mask];
            if (s.tryLock()) {
                long[] full = null;
                if (s.count == batchSize) { // a whole batch taken up from the area
                    full = swapOut(s);
                }
                if (area != null) {
                    area.set(WORD, s.at + 8L * s.count, ref);
                }
                s.refs[s.count++] = ref;
                if (full == null && s.count == batchSize) {
                    full = swapOut(s);
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

    /** Under {@code s}'s guard: its full batch, replaced by an empty one. */
    private long[] swapOut(Stripe s) {
        long[] full = s.refs;
        s.refs = freshBatch(s);
        s.count = 0;
        return full;
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

    /** Passes every reference the stripes hold to {@code action} and returns how many; before any use. */
    long forEachHeld(LongConsumer action) {
        long held = 0;
        for (Stripe s : stripes) {
            for (int i = 0; i < s.count; i++) {
                action.accept(s.refs[i]);
            }
            held += s.count;
        }
        return held;
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

    /**
     * Moves every reference the words of {@code other} hold (the area of a process that ended without closing the
     * file; nobody else touches it) into these stripes, each cleared there once it is here (after it was passed to
     * {@code adopting}), and returns how many.
     */
    long adopt(MemorySegment other, BatchSink sink, LongConsumer adopting) {
        long adopted = 0;
        for (long word = 0; word + 8 <= other.byteSize(); word += 8) {
            long ref = other.get(WORD, word);
            if (ref != Reference.NULL) {
                adopting.accept(ref);
                add(ref, sink);
                other.set(WORD, word, Reference.NULL);
                adopted++;
            }
        }
        return adopted;
    }

    /**
     * Forgets every reference its stripes took up from the area, whose caller zeroes every process's part of the file's
     * release area: the recovery of the whole file frees them all. Before any use.
     */
    void clear() {
        for (Stripe s : stripes) {
            s.count = 0;
        }
    }

    /**
     * Before any use: moves the references stripe {@code s}'s words hold to its first words and into its batch (at
     * most a batch: the words are the batch's).
     */
    private void takeUp(Stripe s) {
        for (int i = 0; i < batchSize; i++) {
            long ref = area.get(WORD, s.at + 8L * i);
            if (ref != Reference.NULL) {
                area.set(WORD, s.at + 8L * s.count, ref);
                if (s.count != i) {
                    area.set(WORD, s.at + 8L * i, Reference.NULL);
                }
                s.refs[s.count++] = ref;
            }
        }
    }
}
