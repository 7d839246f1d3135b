package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.InsertRace;
import io.grove.testing.StressRun;
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
            AtomicLongArray winners = InsertRace.run(threads, map, map.zc(), KEYS, ATTEMPTS_PER_KEY,
                    PutIfAbsentRaceStressTest::scrambled);
            long expected = 0;
            for (var e : map.entrySet()) {
                assertEquals(expected, e.getKey(), "iteration after the races");
                assertEquals(winners.get((int) expected), e.getValue(), "iteration after the races, key " + expected);
                expected++;
            }
            assertEquals(KEYS, expected, "iteration after the races returned too few keys");
        }
    }
}
