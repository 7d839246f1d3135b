package io.grove.hash.concurrent;


import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.testing.InsertRace;
import io.grove.testing.StressRun;
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
            int bitsBefore = Internals.totalSlotBits(map);
            InsertRace.run(threads, map, map.zc(), KEYS, ATTEMPTS_PER_KEY, i -> i);
            int grown = Internals.totalSlotBits(map) - bitsBefore;
            if (grown < Internals.segmentCount(map)) {
                throw new AssertionError("the segments grew only " + grown + " times: the test assumes growth");
            }
        }
    }
}
