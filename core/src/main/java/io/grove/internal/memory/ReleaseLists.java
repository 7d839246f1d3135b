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
 * the processors, at least 4, in memory; {@link #FILE_STRIPES} in a file), each a batch guarded by a try-lock. A
 * deleting thread starts at the stripe its thread id picks; if that stripe's guard is taken it moves to the next
 * stripe. The thread whose deletion fills a batch reclaims it in place, holding the guard (a header and a free-list
 * link written per slice; the other deleters meanwhile use the other stripes); the slices the reclaimer keeps (a writer
 * announced them) stay at the front of the batch. {@link #drainAll} reclaims every stripe's partial batch: the
 * allocator calls it before reporting that memory is exhausted, which is the helping that keeps idle stripes from
 * holding memory forever. Robustness: a thread stalled while it holds a stripe's guard (adding, or reclaiming a
 * batch) delays that stripe's batch only; a thread stalled anywhere else delays nothing here.
 *
 * <p><b>Where the batches live.</b> In an area the pool gives: a heap segment for a pool in memory, this process's
 * part of the file's release area for a pool over a file, so that the deleted slices of a process that ended
 * without closing the file are not lost with its heap: the thread that takes its record over reclaims them
 * ({@link #adopt}). The guards stay on the heap (only this process's threads take them). Stripe {@code i} of an
 * area, at {@code i * stripeBytes(batchSize)}: a count word, then the batch, one reference per word, 0 where none.
 *
 * <p><b>Surviving a kill.</b> Every deleted slice that is not freed yet is named by a non-zero word of some batch
 * at every instruction: a deletion writes the reference before it counts it, a reclaim writes back what it keeps
 * before it clears the rest, an adoption clears a word only after the reference is in a batch of its own. A
 * reference may so be named twice for a moment (a process killed in between leaves both); the reclaimer frees a
 * slice with a CAS on its header ({@link SliceStates#tryFree}), so only the first one frees it. The counts are
 * hints for appending: {@link #adopt} and a pool that takes an area up again read every word.
 *
 * <p>Memory ordering: the guard is taken with a CAS (acquire) and dropped with {@code setRelease}, so a batch
 * and its count are seen whole by the next holder. Another process reads a batch only after the process that
 * filled it ended.
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

    /** Reclaims batches of deleted references. */
    interface BatchSink {
        /**
         * Reclaims the {@code count} references at {@code batch} in {@code area} (one per word): frees those no
         * writer announces, and writes those it keeps, in order, to the batch's first words; returns how many it
         * kept.
         */
        int reclaim(MemorySegment area, long batch, int count);
    }

    /** A stripe's guard and where its count word is; padded so that neighbouring guards do not share a line. */
    static final class Stripe {
        @SuppressWarnings("unused")
        long p1, p2, p3, p4, p5, p6, p7;
        volatile int guard;
        final long at;
        @SuppressWarnings("unused")
        long q1, q2, q3, q4, q5, q6, q7;

        Stripe(long at) {
            this.at = at;
        }

        boolean tryLock() {
            return guard == 0 && GUARD.compareAndSet(this, 0, 1);
        }

        void unlock() {
            GUARD.setRelease(this, 0);
        }
    }

    private final MemorySegment area;
    private final Stripe[] stripes;
    private final int batchSize;

    /**
     * The stripes of {@code area}, as many as it holds for batches of {@code batchSize} (a power of two); takes up
     * what a process that used the area before left in it. Before any use.
     */
    ReleaseLists(MemorySegment area, int batchSize) {
        this.area = area;
        this.batchSize = batchSize;
        int n = (int) (area.byteSize() / stripeBytes(batchSize));
        if (Integer.bitCount(n) != 1) {
            throw new IllegalArgumentException("an area of " + area.byteSize() + " bytes for batches of " + batchSize);
        }
        this.stripes = new Stripe[n];
        for (int i = 0; i < n; i++) {
            stripes[i] = new Stripe(i * stripeBytes(batchSize));
            compact(stripes[i]);
        }
    }

    /** The stripes of a pool in memory: twice the processors, at least 4, a power of two. */
    private static int stripesInMemory() {
        return Math.max(4, Integer.highestOneBit(Runtime.getRuntime().availableProcessors() * 2 - 1) << 1);
    }

    /** The bytes of one stripe: its count word and its batch, on whole 64-byte lines. */
    static long stripeBytes(int batchSize) {
        return (8L * (1 + batchSize) + 63) & -64L;
    }

    /** An area of memory on the heap for the stripes of a pool in memory. */
    static MemorySegment heapArea(int batchSize) {
        return MemorySegment.ofArray(new long[(int) (stripesInMemory() * stripeBytes(batchSize) / 8)]);
    }

    /** Adds a deleted slice; if that fills a batch, reclaims the batch through {@code sink} on this thread. */
    void add(long ref, BatchSink sink) {
        int mask = stripes.length - 1;
        int i = (int) Thread.currentThread().threadId();
        while (true) {
            Stripe s = stripes[i & mask];
            if (s.tryLock()) {
                try {
                    int n = count(s);
                    if (n == batchSize) { // every slice of the batch was announced when it filled
                        n = reclaimLocked(s, n, sink);
                    }
                    if (n < batchSize) {
                        area.set(WORD, s.at + 8 + 8L * n, ref);
                        area.set(WORD, s.at, n + 1);
                        if (n + 1 == batchSize) {
                            reclaimLocked(s, n + 1, sink);
                        }
                        return;
                    }
                } finally {
                    s.unlock();
                }
            }
            i++;
            Thread.onSpinWait();
        }
    }

    /** Reclaims every stripe's partial batch through {@code sink}; skips a stripe whose guard is held right now. */
    void drainAll(BatchSink sink) {
        for (Stripe s : stripes) {
            if (s.tryLock()) {
                try {
                    int n = count(s);
                    if (n > 0) {
                        reclaimLocked(s, n, sink);
                    }
                } finally {
                    s.unlock();
                }
            }
        }
    }

    /**
     * Moves every reference the stripes of {@code other} hold (the area of a process that ended without closing the
     * file; nobody else touches it) into these stripes, each cleared there once it is here (after it was passed to
     * {@code adopting}), and returns how many.
     */
    long adopt(MemorySegment other, BatchSink sink, LongConsumer adopting) {
        long adopted = 0;
        long stripeBytes = stripeBytes(batchSize);
        for (long at = 0; at + stripeBytes <= other.byteSize(); at += stripeBytes) {
            for (long word = at + 8; word < at + 8 + 8L * batchSize; word += 8) {
                long ref = other.get(WORD, word);
                if (ref != Reference.NULL) {
                    adopting.accept(ref);
                    add(ref, sink);
                    other.set(WORD, word, Reference.NULL);
                    adopted++;
                }
            }
            other.set(WORD, at, 0L);
        }
        return adopted;
    }

    /** Under {@code s}'s guard: reclaims its {@code n} references, clears the words freed, returns those kept. */
    private int reclaimLocked(Stripe s, int n, BatchSink sink) {
        int kept = sink.reclaim(area, s.at + 8, n);
        for (int i = kept; i < n; i++) {
            area.set(WORD, s.at + 8 + 8L * i, Reference.NULL);
        }
        area.set(WORD, s.at, kept);
        return kept;
    }

    private int count(Stripe s) {
        return (int) area.get(WORD, s.at);
    }

    /** Before any use: moves the references a batch holds to its first words and counts them. */
    private void compact(Stripe s) {
        int n = 0;
        for (int i = 0; i < batchSize; i++) {
            long ref = area.get(WORD, s.at + 8 + 8L * i);
            if (ref != Reference.NULL) {
                area.set(WORD, s.at + 8 + 8L * n++, ref);
                if (n - 1 != i) {
                    area.set(WORD, s.at + 8 + 8L * i, Reference.NULL);
                }
            }
        }
        area.set(WORD, s.at, n);
    }
}
