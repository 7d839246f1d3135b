package io.grove.internal.sync;

import java.util.concurrent.locks.LockSupport;

/**
 * How a thread waits for another's progress (a lock holder, a rebalance, a pending operation): spin briefly, then
 * yield (a platform thread) or park (a virtual thread), then park for exponentially longer up to
 * {@value #MAX_PARK_NANOS} ns.
 *
 * <p>A virtual thread never yields here. In JDK 25 a virtual thread that yields on a carrier whose local queue is
 * empty resubmits itself to that carrier's external queue, and a carrier keeps taking tasks from the queue it last
 * took from while that queue is not empty: waiters that yield can so keep every carrier on their own queue, and a
 * task waiting elsewhere (a thread being waited for that blocked or parked and is runnable again, any thread just
 * unparked) does not run for as long as they keep yielding. Seen in {@code ScanDuringReplaceStressTest} (160 virtual
 * threads on 2 carriers, another JVM busy beside it): a second before its 20 s cap, 45 threads were yielding in the
 * segment lock's wait and two workers unparked at the start had not run yet. A parked waiter frees its carrier and
 * is resubmitted by the scheduler's timer. Virtual threads that loop on the CPU without blocking (as stress tests'
 * workers do) can still keep runnable threads waiting: the scheduler does not preempt them.
 */
public final class Backoff {
    private static final int SPINS_BEFORE_YIELD = 64;
    private static final int YIELDS_BEFORE_PARK = 64;
    private static final long MAX_PARK_NANOS = 50_000;

    private Backoff() {}

    /** Waits once; {@code attempt} counts the waits so far (0, 1, 2...). */
    public static void pause(int attempt) {
        if (attempt < SPINS_BEFORE_YIELD) {
            Thread.onSpinWait();
        } else if (attempt < SPINS_BEFORE_YIELD + YIELDS_BEFORE_PARK && !Thread.currentThread().isVirtual()) {
            Thread.yield();
        } else {
            int doublings = Math.clamp(attempt - SPINS_BEFORE_YIELD - YIELDS_BEFORE_PARK, 0, 16);
            LockSupport.parkNanos(Math.min(MAX_PARK_NANOS, 1_000L << doublings));
        }
    }
}
