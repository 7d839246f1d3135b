package io.grove.internal.sync;

import java.util.concurrent.locks.LockSupport;

/**
 * How a thread waits for another's progress (a lock holder, a rebalance, a pending operation): spin briefly, then
 * yield, then park for exponentially longer up to {@value #MAX_PARK_NANOS} ns. Parking matters for virtual threads:
 * a thread being waited for that blocked (e.g. on the pool's block reservation) is rescheduled from outside its
 * carrier's queue, and waiters that only yield keep every carrier busy with themselves, so it would never run
 * again. A parked waiter frees its carrier.
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
        } else if (attempt < SPINS_BEFORE_YIELD + YIELDS_BEFORE_PARK) {
            Thread.yield();
        } else {
            int doublings = Math.min(attempt - SPINS_BEFORE_YIELD - YIELDS_BEFORE_PARK, 16);
            LockSupport.parkNanos(Math.min(MAX_PARK_NANOS, 1_000L << doublings));
        }
    }
}
