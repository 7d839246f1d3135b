package io.grove.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.testing.LinearizabilityGraph.Verdict;
import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link LinearizabilityGraph} on histories of a model of the coming map with atomic batches and snapshots: a
 * {@link TreeMap} behind one lock ({@link LockedModelMap}), driven by eight platform threads with puts, removes,
 * gets, batches of two to four keys (not for the faults of single keys: {@link Fault#batches}) and snapshots read
 * by a get and a scan each. Correct, the model is linearizable and the check must accept every history of it.
 * Broken in one of four ways ({@link Fault}), it is not, and the check must find a cycle: each fault's test runs
 * rounds of the workload until the check finds one, and fails if none is found within {@value #SECONDS_TO_FIND}
 * seconds. The faults' windows (a batch or a snapshot in two steps) yield the processor in the middle, so other
 * threads' operations land inside them. That the same workload, broken in any of the four ways, shows a cycle
 * within its first round is what makes the acceptance of the correct model mean something.
 */
class ModelMapLinearizabilityTest {
    private static final int THREADS = 8;
    private static final int KEYS = 20;
    private static final int OPERATIONS_PER_THREAD = 5_000;
    private static final int OPERATIONS_PER_THREAD_PER_ROUND = 1_000;
    private static final long SECONDS_TO_FIND = 10;
    private static final int FAULT_ONE_IN = 16;
    private static final int WINDOW_YIELDS = 4;

    /** How the model is broken. */
    enum Fault {
        /** Correct. */
        NONE,
        /** A batch applies its first half, unlocks, yields, then applies its second half. */
        BATCH_IN_TWO_STEPS,
        /** A snapshot copies the keys below the middle, unlocks, yields, then copies the others. */
        SNAPSHOT_IN_TWO_HALVES,
        /** One get in {@value #FAULT_ONE_IN} returns the value the key had before its last write, if it had one. */
        STALE_GET,
        /** One put in {@value #FAULT_ONE_IN} returns the previous value but writes nothing. */
        LOST_UPDATE;

        /**
         * Whether the workload that shows this fault has batches. A fault of single keys is shown without: then
         * every write returns the previous value, the writes of a key form long chains, and only the rule meant
         * for the fault (the anti-dependency of a read on the write that overwrote its value) can find it.
         */
        boolean batches() {
            return this != STALE_GET && this != LOST_UPDATE;
        }
    }

    /**
     * The model: a map with atomic batches and snapshots, every operation under one lock (a snapshot is a copy),
     * unless a {@link Fault} breaks it. For {@link Fault#STALE_GET} it also keeps, per key, the value before the
     * last write ({@code null}: absent).
     */
    static final class LockedModelMap {
        private final Fault fault;
        private final ReentrantLock lock = new ReentrantLock();
        private final TreeMap<Long, Long> map = new TreeMap<>();
        private final Map<Long, Long> beforeLastWrite = new HashMap<>();

        LockedModelMap(Fault fault) {
            this.fault = fault;
        }

        private static boolean sometimes() {
            return ThreadLocalRandom.current().nextInt(FAULT_ONE_IN) == 0;
        }

        /** Lets other threads run inside a fault's window. */
        private static void window() {
            for (int i = 0; i < WINDOW_YIELDS; i++) {
                Thread.yield();
            }
        }

        private Long write(long key, long value) {
            Long previous = value == History.ABSENT ? map.remove(key) : map.put(key, value);
            beforeLastWrite.put(key, previous);
            return previous;
        }

        Long put(long key, long value) {
            lock.lock();
            try {
                if (fault == Fault.LOST_UPDATE && sometimes()) {
                    return map.get(key);
                }
                return write(key, value);
            } finally {
                lock.unlock();
            }
        }

        Long remove(long key) {
            lock.lock();
            try {
                return write(key, History.ABSENT);
            } finally {
                lock.unlock();
            }
        }

        Long get(long key) {
            lock.lock();
            try {
                if (fault == Fault.STALE_GET && beforeLastWrite.get(key) != null && sometimes()) {
                    return beforeLastWrite.get(key);
                }
                return map.get(key);
            } finally {
                lock.unlock();
            }
        }

        /** Puts {@code values[i]} at {@code keys[i]} for {@code i < count}, or removes where it is ABSENT. */
        void batch(long[] keys, long[] values, int count) {
            int firstStep = fault == Fault.BATCH_IN_TWO_STEPS ? count / 2 : count;
            apply(keys, values, 0, firstStep);
            if (firstStep < count) {
                window();
                apply(keys, values, firstStep, count);
            }
        }

        private void apply(long[] keys, long[] values, int from, int to) {
            lock.lock();
            try {
                for (int i = from; i < to; i++) {
                    write(keys[i], values[i]);
                }
            } finally {
                lock.unlock();
            }
        }

        NavigableMap<Long, Long> snapshot() {
            if (fault != Fault.SNAPSHOT_IN_TWO_HALVES) {
                return copy(Long.MIN_VALUE, Long.MAX_VALUE);
            }
            NavigableMap<Long, Long> copy = copy(Long.MIN_VALUE, KEYS / 2);
            window();
            copy.putAll(copy(KEYS / 2, Long.MAX_VALUE));
            return copy;
        }

        private NavigableMap<Long, Long> copy(long from, long to) {
            lock.lock();
            try {
                return new TreeMap<>(map.subMap(from, to));
            } finally {
                lock.unlock();
            }
        }
    }

    @Test
    void acceptsEveryHistoryOfTheCorrectModel() throws Exception {
        History h = run(new LockedModelMap(Fault.NONE), OPERATIONS_PER_THREAD);
        Verdict v = LinearizabilityGraph.check(h);
        v.assertNoViolation("the correct model");
        System.out.println("correct model: " + v.figures());
    }

    @ParameterizedTest
    @EnumSource(value = Fault.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void findsACycleInTheHistoriesOfEachBrokenModel(Fault fault) throws Exception {
        long start = System.nanoTime();
        for (int round = 1; ; round++) {
            History h = run(new LockedModelMap(fault), OPERATIONS_PER_THREAD_PER_ROUND);
            Verdict v = LinearizabilityGraph.check(h);
            long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            if (v.found()) {
                assertFalse(v.cycle().isEmpty(), () -> fault + ": a violation without a cycle: " + v.violation());
                System.out.println(fault + " found in round " + round + ", after " + elapsed + " ms ("
                        + v.figures() + "):\n" + v.violation());
                return;
            }
            assertTrue(elapsed < TimeUnit.SECONDS.toMillis(SECONDS_TO_FIND), () -> fault + " not found in "
                    + SECONDS_TO_FIND + " s of histories of " + THREADS * OPERATIONS_PER_THREAD_PER_ROUND
                    + " operations; last: " + v.figures());
        }
    }

    /** Runs the workload on {@code map}: {@value #THREADS} threads of {@code operations} operations each. */
    private static History run(LockedModelMap map, int operations) throws InterruptedException {
        boolean batches = map.fault.batches();
        History history = new History(THREADS);
        StressRun run = new StressRun();
        run.workers(StressRun.Threads.PLATFORM_MORE_THAN_CORES.factory("model"), THREADS, index -> {
            History.Recorder r = history.recorder(index);
            SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
            long[] keys = new long[KEYS];
            long[] values = new long[KEYS];
            for (long i = 0; i < operations && run.proceed(i); i++) {
                step(map, batches, r, random, keys, values);
            }
        });
        run.runAndCheck("model with " + map.fault, () -> history.events() + " events");
        return history;
    }

    /**
     * One operation of the workload, recorded with its timestamps: a put, remove, get, batch (if {@code batches},
     * else a put) or snapshot; {@code keys} and {@code values}: buffers.
     */
    private static void step(LockedModelMap map, boolean batches, History.Recorder r, SplittableRandom random,
            long[] keys, long[] values) {
        long k = random.nextInt(KEYS);
        int choice = random.nextInt(20);
        if (!batches && choice >= 13 && choice < 16) {
            choice = 0;
        }
        long invoked = System.nanoTime();
        if (choice < 5) {
            long v = r.newValue();
            Long previous = map.put(k, v);
            r.put(invoked, System.nanoTime(), k, v, previous);
        } else if (choice < 8) {
            Long previous = map.remove(k);
            r.remove(invoked, System.nanoTime(), k, previous);
        } else if (choice < 13) {
            Long value = map.get(k);
            r.get(invoked, System.nanoTime(), k, value);
        } else if (choice < 16) {
            int n = random.nextInt(2, 5);
            long[] chosen = random.longs(0, KEYS).distinct().limit(n).toArray();
            for (int j = 0; j < n; j++) {
                keys[j] = chosen[j];
                values[j] = random.nextInt(4) == 0 ? History.ABSENT : r.newValue();
            }
            invoked = System.nanoTime();
            map.batch(keys, values, n);
            r.batch(invoked, System.nanoTime(), keys, values, n);
        } else {
            NavigableMap<Long, Long> snapshot = map.snapshot();
            long id = r.snapshot(invoked, System.nanoTime());
            r.snapshotGet(id, k, snapshot.get(k));
            long from = random.nextInt(KEYS / 2);
            long to = from + random.nextInt(KEYS / 2, KEYS + 1);
            int n = 0;
            for (Map.Entry<Long, Long> e : snapshot.subMap(from, to).entrySet()) {
                keys[n] = e.getKey();
                values[n++] = e.getValue();
            }
            r.snapshotScan(id, from, to, keys, values, n);
        }
    }
}
