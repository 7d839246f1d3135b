package io.grove.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
 * Runs the workers of one stress test (of the hash map or the sorted map) and bounds it in time. A test gives each
 * worker a fixed amount of work; the run ends when all workers are done, when one fails, or at the hard cap.
 * Reaching the cap fails the test (with the progress figures the test provides), because a run cut short did not
 * do the work it claims: on an idle machine every test finishes in a small fraction of the cap.
 *
 * <p>Workers call {@link #proceed} in their loops: it stops them on a failure elsewhere or at the cap, and lets
 * other threads run now and then ({@link #letOthersRun}), since virtual threads are not preempted in CPU-bound
 * loops.
 */
public final class StressRun {
    /** How a test's threads are made. */
    public enum Threads {
        /** Eight platform threads on (typically) fewer cores: threads get descheduled in the middle of a step. */
        PLATFORM_MORE_THAN_CORES(8, false),
        /** More than 64 distinct platform threads (per-thread structures must not assume a small number). */
        PLATFORM_OVER_64(72, false),
        /** Many virtual threads on a few carriers: a waiter that spins must let the thread it waits for run. */
        VIRTUAL(160, true);

        /** How many threads a test of this kind starts in all. */
        public final int count;
        /** Whether the threads are virtual. */
        public final boolean virtual;

        Threads(int count, boolean virtual) {
            this.count = count;
            this.virtual = virtual;
        }

        /** A factory of threads of this kind, named {@code name} with a suffix and a number. */
        public ThreadFactory factory(String name) {
            return virtual ? Thread.ofVirtual().name(name + "-v", 0).factory()
                    : Thread.ofPlatform().name(name + "-p", 0).daemon(true).factory();
        }
    }

    /** One worker's body; {@code index} is its number among all workers of the run. */
    public interface Worker {
        /** Does the worker's work; what it throws fails the run. */
        void run(int index) throws Exception;
    }

    /**
     * How many rounds a stress test that repeats runs: {@code ci} in the build (which must stay short), or
     * {@code onDemand} with {@code -Dgrove.stress.long=true} on the Maven command line.
     */
    public static int rounds(int ci, int onDemand) {
        return Boolean.getBoolean("grove.stress.long") ? onDemand : ci;
    }

    /** The hard cap of every run. */
    public static final long HARD_CAP_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static final int STACK_FRAMES = 16;

    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final CountDownLatch go = new CountDownLatch(1);
    private final List<Thread> threads = new ArrayList<>();
    private volatile long deadline = Long.MAX_VALUE;
    private volatile boolean cappedOut;

    /** Adds {@code count} workers made by {@code factory}, numbered from the current number of workers. */
    public StressRun workers(ThreadFactory factory, int count, Worker worker) {
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

    /**
     * Whether a worker should go on; call it once per iteration with a counter that the worker increments.
     * {@code false} after a failure anywhere or at the hard cap.
     */
    public boolean proceed(long iteration) {
        letOthersRun(iteration);
        if ((iteration & 255) == 0 && System.nanoTime() - deadline > 0) {
            cappedOut = true;
        }
        return failure.get() == null && !cappedOut;
    }

    /**
     * Called with a counter from a CPU-bound loop: a platform thread yields every 32 calls, a virtual thread parks
     * for a microsecond every 256 calls and never yields.
     *
     * <p>Why virtual threads must not yield here (JDK 25): a virtual thread that yields on a carrier whose local
     * queue is empty resubmits itself to the pool's external queue of that carrier, and a ForkJoinPool worker
     * keeps taking tasks from the queue it last took from while that queue is not empty
     * ({@code ForkJoinPool.runWorker}). Virtual threads that loop with {@code Thread.yield} can so keep every
     * carrier on their own queues, and tasks in other queues wait indefinitely: the wake-up of a timed park
     * (which the map's lock waiters use after spinning), the unblocking of a monitor. Seen in the hash map tests:
     * with yields, 160 virtual threads incrementing counters next to two yielding readers hit the 20 s cap in 3 of
     * 3 runs (75 writers parked, every lock free), and 80 writers stayed parked for 30 s while 45 iterator threads
     * yielded.
     */
    public static void letOthersRun(long counter) {
        if (Thread.currentThread().isVirtual()) {
            if ((counter & 255) == 255) {
                LockSupport.parkNanos(1_000);
            }
        } else if ((counter & 31) == 31) {
            Thread.yield();
        }
    }

    /** Whether the run is stopping (failure or cap), for workers that wait on each other. */
    public boolean stopping() {
        return failure.get() != null || cappedOut || System.nanoTime() - deadline > 0;
    }

    /** Records a failure found outside the workers' own exceptions (e.g. by a checker thread). */
    public void fail(Throwable e) {
        failure.compareAndSet(null, e);
    }

    /**
     * Starts every worker, waits for all and throws the first failure (with {@code figures}); fails if the cap was
     * reached before the work was done, or if a worker does not stop within 10 s after it (with the stacks of the
     * live workers). Returns the elapsed milliseconds.
     */
    public long runAndCheck(String what, Supplier<String> figures) throws InterruptedException {
        long start = System.nanoTime();
        deadline = start + HARD_CAP_NANOS;
        MachineLoad load = new MachineLoad();
        Runnable release = () -> {
            for (Thread t : threads) {
                t.start();
            }
            go.countDown();
        };
        if (threads.stream().anyMatch(Thread::isVirtual)) {
            // from a virtual thread, so that the workers' first runs go to a carrier's own queue: started or unparked
            // by this platform thread, they would go to the scheduler's shared queue, which JDK 25 serves only when a
            // carrier's own queue is empty; the workers that run first keep the carriers' queues full (each park of
            // letOthersRun comes back to one), so that workers still in the shared queue did not start for 19 s
            // (ScanDuringReplaceStressTest in CI, 2026-12-07: its 40 replacers were still waiting for go)
            Thread.ofVirtual().start(release).join();
        } else {
            release.run();
        }
        String beforeCap = stacksBeforeCap();
        for (Thread t : threads) {
            long left = deadline + TimeUnit.SECONDS.toNanos(10) - System.nanoTime();
            if (!t.join(Duration.ofNanos(Math.max(1, left)))) {
                cappedOut = true;
                failure.compareAndSet(null, new AssertionError(what + ": a worker (" + t
                        + ") did not stop within 10 s after the cap: hung (deadlock or livelock)? " + figures.get()
                        + "\n" + load.since() + "\n" + stacksOfLiveWorkers() + "\n" + otherRunnableThreads()));
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
                    + " s before finishing its work; " + figures.get() + "\n" + load.since() + "\n" + beforeCap + "\n"
                    + otherRunnableThreads());
        }
        System.out.println(what + ": " + elapsed + " ms; " + figures.get());
        return elapsed;
    }

    /**
     * Waits until a second before the cap for the workers to end; if some have not, returns their stacks then
     * (workers stop at the cap, so a run that reaches it has none left to show), else an empty string.
     */
    private String stacksBeforeCap() throws InterruptedException {
        for (Thread t : threads) {
            long left = deadline - TimeUnit.SECONDS.toNanos(1) - System.nanoTime();
            if (left <= 0 || !t.join(Duration.ofNanos(left))) {
                return "a second before the cap, " + stacksOfLiveWorkers();
            }
        }
        return "";
    }

    /**
     * The platform threads of this JVM that are not workers of this run and are runnable now, with their first frames:
     * a thread an earlier test left running would slow this run down (the carriers of virtual threads are among them).
     */
    private String otherRunnableThreads() {
        StringBuilder out = new StringBuilder("other runnable platform threads of this JVM:");
        Thread.getAllStackTraces().forEach((t, frames) -> {
            if (t.getState() == Thread.State.RUNNABLE && t != Thread.currentThread() && !threads.contains(t)
                    && t.getThreadGroup() != null && !"system".equals(t.getThreadGroup().getName())
                    && !t.getName().startsWith("surefire-")) {
                out.append("\n    ").append(t);
                for (int i = 0; i < Math.min(frames.length, 6); i++) {
                    out.append("\n        at ").append(frames[i]);
                }
            }
        });
        return out.toString();
    }

    /**
     * The stacks of the workers still alive, each distinct stack once with the number of threads showing it and
     * their states.
     */
    private String stacksOfLiveWorkers() {
        Map<String, Integer> stacks = new LinkedHashMap<>();
        Map<String, String> firstThread = new HashMap<>();
        for (Thread t : threads) {
            if (t.isAlive()) {
                StringBuilder b = new StringBuilder();
                StackTraceElement[] frames = t.getStackTrace();
                for (int i = 0; i < Math.min(frames.length, STACK_FRAMES); i++) {
                    b.append("\n        at ").append(frames[i]);
                }
                String stack = " (" + t.getState() + ")" + b;
                stacks.merge(stack, 1, Integer::sum);
                firstThread.putIfAbsent(stack, t.toString());
            }
        }
        StringBuilder out = new StringBuilder("stacks of the live workers:");
        stacks.forEach((stack, n) -> out.append("\n    ").append(n).append(" thread(s), e.g. ")
                .append(firstThread.get(stack)).append(stack));
        return out.toString();
    }
}
