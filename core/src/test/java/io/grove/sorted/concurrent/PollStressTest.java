package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Draining a map concurrently: every thread polls until the map is empty, most with {@code pollFirstEntry}, some
 * from the other end ({@code pollLastEntry}, {@code descendingMap().pollFirstEntry()}) and some through the key set
 * ({@code navigableKeySet().pollFirst()}). {@code pollFirstEntry} and {@code pollLastEntry} remove the entry they
 * return atomically, so every entry must be returned exactly once (at most once: no two threads remove the same
 * entry; at least once: the map ends empty and every key was returned), with its own value. And since no key is
 * inserted meanwhile, the keys one thread polls from the front must strictly increase, and those it polls from
 * the back strictly decrease: a poll that returns a key smaller than one the same thread already took returned an
 * entry that was not the first one at any moment.
 *
 * <p>The map has chunks of four entries, so the polls empty a chunk every few calls and the emptied chunks must be
 * merged away or skipped while other threads poll from them.
 */
class PollStressTest {
    /**
     * Enough keys for thousands of chunk merges per run, few enough to finish well inside StressRun's cap on a
     * loaded machine: with 4-entry chunks every merge copies the index array (one slot per chunk), so the work
     * grows with the square of the keys (40,000 keys came within 4% of the cap under load).
     */
    private static final int KEYS = 10_000;

    static long valueOf(long k) {
        return 7 * k + 3;
    }

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void concurrentPollsReturnEachEntryExactlyOnce(StressRun.Threads threads) throws Exception {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).memoryLimit(64L << 20).build()) {
            for (long i = 0; i < KEYS; i++) {
                long k = i * 7_919 % KEYS; // scrambled, so the chunks are built by splits at random places
                map.put(k, valueOf(k));
            }
            assertEquals(KEYS, map.size());
            AtomicIntegerArray taken = new AtomicIntegerArray(KEYS);
            AtomicLong polled = new AtomicLong();
            ConcurrentLinkedQueue<String> perThread = new ConcurrentLinkedQueue<>();
            StressRun run = new StressRun();
            run.workers(threads.factory("poller"), threads.count, index -> {
                int how = index % 8; // 0..4: pollFirstEntry, 5: keys, 6: pollLastEntry, 7: descending pollFirst
                boolean fromTheBack = how >= 6;
                long previous = fromTheBack ? Long.MAX_VALUE : Long.MIN_VALUE;
                long n = 0;
                for (long i = 0; run.proceed(i); i++) {
                    long k;
                    if (how == 5) {
                        Long key = map.navigableKeySet().pollFirst();
                        if (key == null) {
                            break;
                        }
                        k = key;
                    } else {
                        Map.Entry<Long, Long> e = how == 6 ? map.pollLastEntry()
                                : how == 7 ? map.descendingMap().pollFirstEntry() : map.pollFirstEntry();
                        if (e == null) {
                            break;
                        }
                        k = e.getKey();
                        if (k < 0 || k >= KEYS || e.getValue() != valueOf(k)) {
                            throw new AssertionError("poll returned " + e + ", never inserted");
                        }
                    }
                    if (k < 0 || k >= KEYS) {
                        throw new AssertionError("poll returned key " + k + ", never inserted");
                    }
                    if (fromTheBack ? k >= previous : k <= previous) {
                        throw new AssertionError("thread " + index + " polled " + k + " after " + previous
                                + " from the " + (fromTheBack ? "back" : "front"));
                    }
                    previous = k;
                    int before = taken.getAndIncrement((int) k);
                    if (before != 0) {
                        throw new AssertionError("key " + k + " was polled twice");
                    }
                    n++;
                }
                polled.addAndGet(n);
                if (n > 0) {
                    perThread.add(n + "");
                }
            });
            run.runAndCheck("polls with " + threads, () -> "polled " + polled.get() + " of " + KEYS + " by "
                    + perThread.size() + " threads, size " + map.size());
            for (int k = 0; k < KEYS; k++) {
                if (taken.get(k) != 1) {
                    throw new AssertionError("key " + k + " was polled " + taken.get(k) + " times; get returns "
                            + map.get((long) k));
                }
            }
            assertEquals(KEYS, polled.get());
            if (perThread.size() < 2) {
                throw new AssertionError("vacuous run: only " + perThread.size() + " thread(s) polled anything");
            }
            assertEquals(0, map.size(), "size after the drain");
            assertNull(map.pollFirstEntry(), "pollFirstEntry after the drain");
            assertNull(map.firstEntry(), "firstEntry after the drain");
            assertEquals(false, map.entrySet().iterator().hasNext(), "iteration after the drain");
            assertEquals(false, map.descendingMap().entrySet().iterator().hasNext(), "descending iteration after");
            // the drained map still works: chunks emptied by the polls accept new keys
            for (long k = 0; k < 100; k++) {
                map.put(k, valueOf(k));
            }
            assertEquals(100, map.size());
            assertEquals(0L, map.firstKey());
            assertEquals(99L, map.lastKey());
        }
    }
}
