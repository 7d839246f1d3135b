package io.grove.sorted.concurrent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Runs the workers of one stress test of the sorted map and bounds it in time: the run ends when every worker did
 * its fixed amount of work, when one fails, or at the hard cap, which fails the test (a run cut short did not do
 * the work it claims). The sorted map's own small version of the hash map tests' helper of the same name (which
 * is package-private there); see that class for why a virtual thread parks instead of yielding in
 * {@link #letOthersRun}.
 */
final class StressRun {
    /** How a test's threads are made. */
    enum Threads {
        /** Eight platform threads on (typically) two cores: threads get descheduled in the middle of a step. */
        PLATFORM_MORE_THAN_CORES(8, false),
        /** More than 64 distinct platform threads (per-thread structures must not assume a small number). */
        PLATFORM_OVER_64(72, false),
        /** Many virtual threads on a few carriers: a waiter that spins must let the thread it waits for run. */
        VIRTUAL(160, true);

        final int count;
        final boolean virtual;

        Threads(int count, boolean virtual) {
            this.count = count;
            this.virtual = virtual;
        }

        ThreadFactory factory(String name) {
            return virtual ? Thread.ofVirtual().name(name + "-v", 0).factory()
                    : Thread.ofPlatform().name(name + "-p", 0).daemon(true).factory();
        }
    }

    /** One worker's body; {@code index} is its number among all workers of the run. */
    interface Worker {
        void run(int index) throws Exception;
    }

    private static final long HARD_CAP_NANOS = TimeUnit.SECONDS.toNanos(20);

    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final CountDownLatch go = new CountDownLatch(1);
    private final List<Thread> threads = new ArrayList<>();
    private volatile long deadline = Long.MAX_VALUE;
    private volatile boolean cappedOut;

    /** Adds {@code count} workers made by {@code factory}, numbered from the current number of workers. */
    StressRun workers(ThreadFactory factory, int count, Worker worker) {
        for (int i = 0; i < count; i++) {
            int index = threads.size();
            threads.add(factory.newThread(() -> {
                try {
                    go.await();
                    worker.run(index);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        return this;
    }

    /** Whether a worker should go on (call once per iteration with its own counter); false on failure or at the cap. */
    boolean proceed(long iteration) {
        letOthersRun(iteration);
        if ((iteration & 255) == 0 && System.nanoTime() - deadline > 0) {
            cappedOut = true;
        }
        return failure.get() == null && !cappedOut;
    }

    /** From a CPU-bound loop: a platform thread yields every 32 calls, a virtual thread parks 1 us every 256. */
    static void letOthersRun(long counter) {
        if (Thread.currentThread().isVirtual()) {
            if ((counter & 255) == 255) {
                LockSupport.parkNanos(1_000);
            }
        } else if ((counter & 31) == 31) {
            Thread.yield();
        }
    }

    /** Records a failure found outside a worker's own exceptions. */
    void fail(Throwable e) {
        failure.compareAndSet(null, e);
    }

    /**
     * Starts every worker, waits for all and throws the first failure (with {@code figures}); fails if the cap was
     * reached, or if a worker does not stop within 10 s after it (with the stacks of the live workers).
     */
    long runAndCheck(String what, Supplier<String> figures) throws InterruptedException {
        long start = System.nanoTime();
        deadline = start + HARD_CAP_NANOS;
        for (Thread t : threads) {
            t.start();
        }
        go.countDown();
        for (Thread t : threads) {
            long left = deadline + TimeUnit.SECONDS.toNanos(10) - System.nanoTime();
            if (!t.join(Duration.ofNanos(Math.max(1, left)))) {
                cappedOut = true;
                failure.compareAndSet(null, new AssertionError(what + ": worker " + t
                        + " did not stop within 10 s after the cap (deadlock or livelock?); " + figures.get()
                        + "\n" + stacksOfLiveWorkers()));
                break;
            }
        }
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        Throwable f = failure.get();
        if (f != null) {
            throw new AssertionError(what + " failed after " + elapsed + " ms; " + figures.get(), f);
        }
        if (cappedOut) {
            throw new AssertionError(what + " reached the hard cap of " + TimeUnit.NANOSECONDS.toSeconds(HARD_CAP_NANOS)
                    + " s before finishing its work; " + figures.get() + "\n" + stacksOfLiveWorkers());
        }
        System.out.println(what + ": " + elapsed + " ms; " + figures.get());
        return elapsed;
    }

    /** Each distinct stack of the live workers once, with how many threads show it. */
    private String stacksOfLiveWorkers() {
        Map<String, Integer> stacks = new LinkedHashMap<>();
        for (Thread t : threads) {
            if (t.isAlive()) {
                StringBuilder b = new StringBuilder();
                StackTraceElement[] frames = t.getStackTrace();
                for (int i = 0; i < Math.min(frames.length, 16); i++) {
                    b.append("\n        at ").append(frames[i]);
                }
                stacks.merge(b.toString(), 1, Integer::sum);
            }
        }
        StringBuilder out = new StringBuilder("stacks of the live workers:");
        stacks.forEach((stack, n) -> out.append("\n    ").append(n).append(" thread(s):").append(stack));
        return out.toString();
    }
}
