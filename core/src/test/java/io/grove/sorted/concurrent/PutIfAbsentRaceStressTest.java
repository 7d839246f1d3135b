package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Insert races while chunks split: every key is attempted {@value #ATTEMPTS_PER_KEY} times, by whichever threads
 * take its tickets (consecutive tickets of a shared counter, so the attempts on one key run at nearly the same
 * moment), through the five ways to insert if absent: {@code putIfAbsent}, {@code computeIfAbsent},
 * {@code compute} (inserting only when it sees no value), {@code zc().putIfAbsent} and
 * {@code zc().putIfAbsentComputeIfPresent} with a computer that changes nothing. Exactly one attempt per key may
 * report success, and the map must end holding exactly the winner's value for every key, in order.
 *
 * <p>The keys are taken in a scrambled order (a bijection of {@code 0..KEYS-1}), so that inserts land all over the
 * key range, and the map has chunks of four entries: nearly every few inserts fill a chunk and split it, so the
 * racing attempts on one key keep meeting a rebalance of the chunk that holds it (an attempt that links its entry
 * into a chunk being frozen, or into the chunk the rebalance just replaced, must retry rather than insert twice
 * or lose the insert).
 */
class PutIfAbsentRaceStressTest {
    private static final int ATTEMPTS_PER_KEY = 8;
    private static final int KEYS = 30_000;

    /** A bijection of 0..KEYS-1 (KEYS and the multiplier are coprime). */
    static long scrambled(long i) {
        return i * 7_919 % KEYS;
    }

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void exactlyOneInsertWinsPerKey(StressRun.Threads threads) throws Exception {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).memoryLimit(64L << 20).build()) {
            AtomicLong tickets = new AtomicLong();
            AtomicLongArray winners = new AtomicLongArray(KEYS);
            long total = (long) KEYS * ATTEMPTS_PER_KEY;
            StressRun run = new StressRun();
            run.workers(threads.factory("insert-race"), threads.count, index -> {
                for (long i = 0; run.proceed(i); i++) {
                    long ticket = tickets.getAndIncrement();
                    if (ticket >= total) {
                        return;
                    }
                    int key = (int) scrambled(ticket / ATTEMPTS_PER_KEY);
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
            long expected = 0;
            for (var e : map.entrySet()) {
                assertEquals(expected, e.getKey(), "iteration after the races");
                assertEquals(winners.get((int) expected), e.getValue(), "iteration after the races, key " + expected);
                expected++;
            }
            assertEquals(KEYS, expected, "iteration after the races returned too few keys");
        }
    }

    /** One attempt to insert {@code value} if {@code key} is absent, by method {@code how}; whether it inserted. */
    private static boolean insertIfAbsent(GroveSortedMap<Long, Long> map, long key, long value, int how) {
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
                return map.zc().putIfAbsent(key, value);
            default: {
                int[] calls = new int[1];
                boolean inserted = map.zc().putIfAbsentComputeIfPresent(key, value, view -> calls[0]++);
                if (inserted == (calls[0] == 1) || calls[0] > 1) {
                    throw new AssertionError("putIfAbsentComputeIfPresent returned " + inserted
                            + " and ran its computer " + calls[0] + " times");
                }
                return inserted;
            }
        }
    }
}
