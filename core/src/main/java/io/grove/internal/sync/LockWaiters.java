package io.grove.internal.sync;

import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Virtual threads waiting for locks that threads of this process hold, each parked until a release of its lock wakes
 * it (or, should the release miss it, a time limit): for the spin locks of a table (numbered from 0), whose waiters
 * otherwise yield and park for short times ({@link Backoff}).
 *
 * <p>Implementation notes.
 *
 * <p><b>Why.</b> Neither way {@link Backoff} gives up a carrier is reliable for virtual threads beside CPU-bound ones.
 * A yielding virtual thread goes back to its carrier's queues, and while every carrier has such threads to run the
 * scheduler runs nothing from its other queues, where a thread goes that a platform thread started or unblocked or
 * whose timed park ended: with 40 virtual threads yielding in a loop on 2 carriers, a virtual thread started from the
 * main thread ran after more than 20 s, or not at all (JDK 25). Parks of microseconds instead keep the scheduler's
 * timer busy with the wake-ups of 150 waiters. A waiter that its lock's releaser unparks needs neither: the releaser,
 * a virtual thread too, puts it on its own carrier's queue.
 *
 * <p><b>Protocol.</b> A waiter adds itself to its lock's stripe, then (after a full fence) checks that the lock is
 * still held by a thread of this process, and parks only then. A releaser stores the lock free, then looks in the
 * stripe ({@link #wakeOne}) and unparks the first waiter of its lock, which takes the lock or, if another thread took
 * it first, waits again: that thread's release wakes the next one. The releaser's look is not ordered after its store:
 * a full fence there, which would make the wake-up certain, cost puts 6-13% with platform threads alone (BENCHMARKS.md,
 * "Lock waiters"), as it waits for every store of the write to land. So a waiter that queued itself while the
 * releaser's store was on its way may be missed, and parks have a time limit: {@value #FIRST_PARK_NANOS} ns at first,
 * twice as long after each park that ran out, at most {@value #MAX_PARK_NANOS} ns. A missed wake-up so costs at most
 * about as long as the wait had lasted, and a waiter behind many others (each release wakes one) a few timer wake-ups.
 * A park that no release ended is counted ({@link #timedOut}; the waiter is still in the stripe after it), so that a
 * test can tell waits that releases ended from waits the timer ended. A lock taken by another process (a table in a
 * file) is never waited for here: its release wakes no one in this process, so the waiter uses {@link Backoff}, which
 * watches the holder. Whoever changes a lock in another way than a release by a thread of this process (a close marking
 * it closed for good, a repair giving it back to the process that died holding it) wakes all its waiters ({@link
 * #wakeAll}), which look at it again. A waiter removes itself from the stripe when it wakes; a releaser that removed it
 * first unparks it, which at worst leaves it a permit that makes its next park return at once (and it checks again).
 *
 * <p>Cost outside contention: every release looks at an empty queue (two loads); a platform thread never parks here.
 * Interrupts do not end the wait (the operations it serves are not interruptible): an interrupted waiter's status is
 * cleared while it parks and set again after.
 */
public final class LockWaiters {
    /** Stripes of waiters; a lock's waiters are in the stripe of its number modulo this. */
    private static final int STRIPES = 64;
    /** A waiter's first park, at most. */
    public static final long FIRST_PARK_NANOS = 1_000_000;
    /** A waiter's longest park. */
    static final long MAX_PARK_NANOS = 64_000_000;

    @SuppressWarnings("unchecked")
    private final ConcurrentLinkedQueue<Waiter>[] stripes = new ConcurrentLinkedQueue[STRIPES];
    private final LongAdder parks = new LongAdder();
    private final LongAdder timedOut = new LongAdder();

    /** One wait of one thread (equal only to itself: the queue removes exactly this wait). */
    private static final class Waiter {
        final Thread thread;
        final int lock;

        Waiter(Thread thread, int lock) {
            this.thread = thread;
            this.lock = lock;
        }
    }

    public LockWaiters() {
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new ConcurrentLinkedQueue<>();
        }
    }

    /** Whether the calling thread, waiting for a lock a thread of this process holds, should wait here. */
    public static boolean parksHere() {
        return Thread.currentThread().isVirtual();
    }

    /**
     * Parks the calling thread until a release of lock {@code lock} (or a change by {@link #wakeAll}), or for at most
     * {@code limit} ns, if {@code heldHere} (whether a thread of this process holds the lock) is still true once the
     * thread is queued; returns at once otherwise. The caller then tries the lock again, and passes the limit returned
     * to its next call in the same wait (the first call's is {@link #FIRST_PARK_NANOS}): twice {@code limit} if the
     * park ran out, else {@code limit}. A spurious return is possible.
     */
    public long await(int lock, long limit, BooleanSupplier heldHere) {
        ConcurrentLinkedQueue<Waiter> stripe = stripes[lock & (STRIPES - 1)];
        Waiter self = new Waiter(Thread.currentThread(), lock);
        stripe.add(self);
        VarHandle.fullFence(); // the queue's CAS before the lock's read, whatever order the caller's read asks for
        if (!heldHere.getAsBoolean()) {
            stripe.remove(self);
            return limit;
        }
        boolean interrupted = Thread.interrupted();
        LockSupport.parkNanos(this, limit);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        parks.increment();
        if (stripe.remove(self)) { // no release took it out: the park ran out (or returned spuriously)
            timedOut.increment();
            return Math.min(MAX_PARK_NANOS, 2 * limit);
        }
        return limit;
    }

    /** After lock {@code lock} was released by a thread of this process: unparks its first waiter that it sees. */
    public void wakeOne(int lock) {
        ConcurrentLinkedQueue<Waiter> stripe = stripes[lock & (STRIPES - 1)];
        if (stripe.isEmpty()) {
            return;
        }
        for (Waiter waiter : stripe) {
            if (waiter.lock == lock && stripe.remove(waiter)) {
                LockSupport.unpark(waiter.thread);
                return;
            }
        }
    }

    /** After lock {@code lock} was changed otherwise than by a release: unparks all its waiters. */
    public void wakeAll(int lock) {
        VarHandle.fullFence();
        ConcurrentLinkedQueue<Waiter> stripe = stripes[lock & (STRIPES - 1)];
        for (Waiter waiter : stripe) {
            if (waiter.lock == lock && stripe.remove(waiter)) {
                LockSupport.unpark(waiter.thread);
            }
        }
    }

    /** The parks so far. */
    public long parks() {
        return parks.sum();
    }

    /** The parks so far that ran to their time limit. */
    public long timedOut() {
        return timedOut.sum();
    }
}
