package io.grove.bench.latency;

import io.grove.bench.ThreadContext;
import java.util.concurrent.locks.LockSupport;

/**
 * Which share of the other keys a slow update of one key blocks, found from the maps' public behaviour alone: a
 * holder thread keeps the slow key inside an update ({@link SlowWriterMap#update}) that lasts until a get has been
 * running for {@code thresholdNanos}, while the calling thread gets randomly drawn other keys one at a time, each
 * only while the key is held. A get that returns sooner did not wait. A get that took the threshold or more either
 * waited for the holder (which then ends its update, so that the get completes, and starts the next) or was
 * descheduled on a busy machine; the key is got once more under a new hold and counts as blocked only if that get
 * waits too. For Grove's hash map the share is that of the keys in the slow key's segment, 1 / segments.
 *
 * <p>Stops after {@code maxBlocked} blocked keys, {@code maxProbes} keys, or {@code maxNanos}, whichever comes
 * first: enough to tell 1/16 from 1/2,048 in about a second.
 */
final class BlockedKeyProbe {
    private final SlowWriterMap map;
    private final Long[] keys;
    private final int slowId;
    private final long thresholdNanos;
    /**
     * The generation of the holder's current update (1, 2, ...), written inside the update, so the slow key is held
     * from then until that update ends. An update ends only when a get that began during it has run for the
     * threshold, when the prober asks for its end ({@link #releaseOf}), or when the probe is over.
     */
    private volatile long holds;
    /** The generation the prober wants ended (after a get of it that took the threshold or more). */
    private volatile long releaseOf;
    /** When the prober's latest get began ({@code System.nanoTime()}); published by {@link #getDuring}. */
    private volatile long getStarted;
    /** The generation during which the prober's get in progress began (written after {@link #getStarted}), else 0. */
    private volatile long getDuring;
    private volatile boolean done;
    /** The last generation the prober asked to end (prober thread only). */
    private long released;

    /** What the probe found: keys got, of which blocked. */
    record Result(long probed, long blocked) {
        double share() {
            return probed == 0 ? Double.NaN : blocked / (double) probed;
        }
    }

    BlockedKeyProbe(SlowWriterMap map, Long[] keys, int slowId, long thresholdNanos) {
        this.map = map;
        this.keys = keys;
        this.slowId = slowId;
        this.thresholdNanos = thresholdNanos;
    }

    Result run(ThreadContext random, long maxProbes, long maxBlocked, long maxNanos) throws InterruptedException {
        Thread holder = Thread.ofPlatform().name("probe-holder").start(this::hold);
        long probed = 0;
        long blocked = 0;
        try {
            long end = System.nanoTime() + maxNanos;
            while (probed < maxProbes && blocked < maxBlocked && System.nanoTime() - end < 0) {
                int id = SlowWriterRun.otherId(random, keys.length, slowId);
                boolean waited = waits(id, holder);
                if (waited && waits(id, holder)) { // got again under a new hold: blocked only if both waited
                    blocked++;
                }
                probed++;
            }
        } finally {
            done = true;
            holder.join();
        }
        return new Result(probed, blocked);
    }

    /** Whether a get of key {@code id}, made while the slow key is held, took the threshold or more. */
    private boolean waits(int id, Thread holder) {
        long generation;
        while ((generation = holds) <= released) {
            if (!holder.isAlive()) {
                throw new IllegalStateException("the probe's holder ended: the slow key is missing");
            }
            Thread.onSpinWait();
        }
        long start = System.nanoTime();
        getStarted = start;
        getDuring = generation;
        map.get(keys[id]);
        getDuring = 0;
        // Timed after the clear: if the holder ended this update for the get, it saw the get running for the
        // threshold before the clear, so the get counts as waited and the next one waits for a new update.
        boolean waited = System.nanoTime() - start >= thresholdNanos;
        if (waited) { // if the holder did not end this update for the get, it must, before the next get
            released = generation;
            releaseOf = generation;
        }
        return waited;
    }

    /** The holder: updates the slow key again and again, each update lasting until a get has run too long. */
    private void hold() {
        Runnable untilAGetWaits = () -> {
            long generation = holds + 1;
            holds = generation;
            while (!done && releaseOf != generation) {
                if (getDuring == generation && System.nanoTime() - getStarted >= thresholdNanos) {
                    break;
                }
                LockSupport.parkNanos(10_000);
            }
        };
        while (!done) {
            if (!map.update(keys[slowId], untilAGetWaits)) {
                return;
            }
            // Let a get this update waited for finish before the next one begins: a reader that waits with
            // backoff may not notice a gap of microseconds between two updates.
            while (!done && getDuring != 0) {
                LockSupport.parkNanos(10_000);
            }
        }
    }
}
