package io.grove.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.ZeroCopyMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongUnaryOperator;

/**
 * Insert races, shared by the hash map's and the sorted map's tests: every key is attempted a number of times, by
 * whichever threads take its tickets (consecutive tickets of a shared counter, so the attempts on one key run at
 * nearly the same moment), through the five ways to insert if absent: {@code putIfAbsent},
 * {@code computeIfAbsent}, {@code compute} (inserting only when it sees no value), {@code zc().putIfAbsent} and
 * {@code zc().putIfAbsentComputeIfPresent} with a computer that changes nothing. Exactly one attempt per key may
 * report success, and the map must end holding exactly the winner's value for every key.
 */
public final class InsertRace {
    private InsertRace() {}

    /**
     * Runs the races on {@code map} (whose zero-copy API is {@code zc}) for keys {@code keyOf(0 .. keys-1)}, each
     * attempted {@code attemptsPerKey} times, and checks the winners and the size. Returns the winning value of
     * each key, indexed by key.
     */
    public static AtomicLongArray run(StressRun.Threads threads, ConcurrentMap<Long, Long> map,
            ZeroCopyMap<Long, Long> zc, int keys, int attemptsPerKey, LongUnaryOperator keyOf) throws Exception {
        AtomicLong tickets = new AtomicLong();
        AtomicLongArray winners = new AtomicLongArray(keys);
        long total = (long) keys * attemptsPerKey;
        StressRun run = new StressRun();
        run.workers(threads.factory("insert-race"), threads.count, index -> {
            for (long i = 0; run.proceed(i); i++) {
                long ticket = tickets.getAndIncrement();
                if (ticket >= total) {
                    return;
                }
                int key = (int) keyOf.applyAsLong(ticket / attemptsPerKey);
                long value = ticket + 1; // never 0, unique per attempt
                if (insertIfAbsent(map, zc, key, value, (int) (ticket % 5))) {
                    long previous = winners.compareAndExchange(key, 0, value);
                    if (previous != 0) {
                        throw new AssertionError("key " + key + ": two inserts succeeded, with values "
                                + previous + " and " + value);
                    }
                }
            }
        });
        run.runAndCheck("insert races with " + threads, () -> "tickets taken: " + tickets.get() + " of " + total);
        for (int key = 0; key < keys; key++) {
            long winner = winners.get(key);
            if (winner == 0) {
                throw new AssertionError("key " + key + ": none of its " + attemptsPerKey
                        + " inserts succeeded; the map holds " + map.get((long) key));
            }
            assertEquals(winner, map.get((long) key), "key " + key + " holds another value than its winner's");
        }
        assertEquals(keys, map.size());
        return winners;
    }

    /** One attempt to insert {@code value} if {@code key} is absent, by method {@code how}; whether it inserted. */
    private static boolean insertIfAbsent(ConcurrentMap<Long, Long> map, ZeroCopyMap<Long, Long> zc, long key,
            long value, int how) {
        switch (how) {
            case 0:
                return map.putIfAbsent(key, value) == null;
            case 1: {
                int[] calls = new int[1];
                Long result = map.computeIfAbsent(key, k -> {
                    calls[0]++;
                    return value;
                });
                if (calls[0] > 1) {
                    throw new AssertionError("computeIfAbsent ran its function " + calls[0] + " times");
                }
                if ((calls[0] == 1) != Long.valueOf(value).equals(result)) {
                    throw new AssertionError("computeIfAbsent returned " + result + " though its function "
                            + (calls[0] == 1 ? "ran" : "did not run"));
                }
                return calls[0] == 1;
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
                return zc.putIfAbsent(key, value);
            default: {
                int[] calls = new int[1];
                boolean inserted = zc.putIfAbsentComputeIfPresent(key, value, view -> calls[0]++);
                if (inserted == (calls[0] == 1) || calls[0] > 1) {
                    throw new AssertionError("putIfAbsentComputeIfPresent returned " + inserted
                            + " and ran its computer " + calls[0] + " times");
                }
                return inserted;
            }
        }
    }
}
