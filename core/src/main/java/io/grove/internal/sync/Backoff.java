package io.grove.internal.sync;

import java.util.concurrent.locks.LockSupport;

/**
 * How a thread waits for another's progress (a lock holder, a rebalance, a pending operation): spin briefly, then
 * yield (a platform thread only), then park for exponentially longer up to {@value #MAX_PARK_NANOS} ns.
 *
 * <p>A virtual thread never yields here. A yielding virtual thread goes back to its carrier's queues, and while every
 * carrier has such threads to run the scheduler runs nothing else: a thread being waited for that blocked (e.g. on
 * the pool's block reservation) or whose timed park ended, which the scheduler takes from another queue, would not run
 * again for as long as the waiters keep yielding (ARCHITECTURE.md, hash map item 2). A parked waiter frees its
 * carrier. Timed parks of many virtual threads for microseconds overload the scheduler's timer instead, so waits that
 * are long and many, those for a segment lock held in this process, park until the holder wakes them
 * ({@link LockWaiters}).
 */
public final class Backoff {
    /** The first waits, which only spin. */
    public static final int SPINS_BEFORE_YIELD = 64;
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
