package io.grove.hash.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Insert races: every key is attempted {@value #ATTEMPTS_PER_KEY} times, by whichever threads take its tickets
 * (consecutive tickets of a shared counter, so the attempts on one key run at nearly the same moment), through
 * the five ways to insert if absent: {@code putIfAbsent}, {@code computeIfAbsent}, {@code compute} (inserting
 * only when it sees no value), {@code zc().putIfAbsent} and {@code zc().putIfAbsentComputeIfPresent} with a
 * computer that changes nothing. Exactly one attempt per key may report success, and the map must end holding
 * exactly the winner's value for every key. The map starts at {@code expectedSize(1)}, so every segment grows
 * many times while the races run.
 */
class PutIfAbsentRaceStressTest {
    private static final int ATTEMPTS_PER_KEY = 8;
    private static final int KEYS = 40_000;

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void exactlyOneInsertWinsPerKey(StressRun.Threads threads) throws Exception {
        try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .expectedSize(1).memoryLimit(64L << 20).build()) {
            int bitsBefore = Internals.totalBucketBits(map);
            AtomicLong tickets = new AtomicLong();
            AtomicLongArray winners = new AtomicLongArray(KEYS);
            StressRun run = new StressRun();
            long total = (long) KEYS * ATTEMPTS_PER_KEY;
            run.workers(threads.factory("insert-race"), threads.count, index -> {
                for (long i = 0; run.proceed(i); i++) {
                    long ticket = tickets.getAndIncrement();
                    if (ticket >= total) {
                        return;
                    }
                    int key = (int) (ticket / ATTEMPTS_PER_KEY);
                    long value = ticket + 1; // never 0, unique per attempt
                    if (insertIfAbsent(map, key, value, (int) (ticket % 5))) {
                        long previous = winners.compareAndExchange(key, 0, value);
                        if (previous != 0) {
                            throw new AssertionError("key " + key + ": two inserts succeeded, with values "
                                    + previous + " and " + value);
                        }
                    }
                }
            });
            run.runAndCheck("insert races with " + threads, () -> "tickets taken: " + tickets.get() + " of " + total);
            for (int key = 0; key < KEYS; key++) {
                long winner = winners.get(key);
                if (winner == 0) {
                    throw new AssertionError("key " + key + ": none of its " + ATTEMPTS_PER_KEY
                            + " inserts succeeded; the map holds " + map.get((long) key));
                }
                assertEquals(winner, map.get((long) key), "key " + key + " holds another value than its winner's");
            }
            assertEquals(KEYS, map.size());
            int grown = Internals.totalBucketBits(map) - bitsBefore;
            if (grown < Internals.segmentCount(map)) {
                throw new AssertionError("the segments grew only " + grown + " times: the test assumes growth");
            }
        }
    }

    /** One attempt to insert {@code value} if {@code key} is absent, by method {@code how}; whether it inserted. */
    private static boolean insertIfAbsent(GroveHashMap<Long, Long> map, long key, long value, int how) {
        switch (how) {
            case 0:
                return map.putIfAbsent(key, value) == null;
            case 1: {
                boolean[] called = new boolean[1];
                Long result = map.computeIfAbsent(key, k -> {
                    called[0] = true;
                    return value;
                });
                if (called[0] != Long.valueOf(value).equals(result)) {
                    throw new AssertionError("computeIfAbsent returned " + result + " though its function "
                            + (called[0] ? "ran" : "did not run"));
                }
                return called[0];
            }
            case 2: {
                int[] calls = new int[1];
                boolean[] inserted = new boolean[1];
                map.compute(key, (k, old) -> {
                    if (calls[0]++ > 0) {
                        throw new AssertionError("compute ran its function twice");
                    }
                    inserted[0] = old == null;
                    return old == null ? value : old;
                });
                return inserted[0];
            }
            case 3:
                return map.zc().putIfAbsent(key, value);
            default:
                return map.zc().putIfAbsentComputeIfPresent(key, value, view -> { });
        }
    }
}
