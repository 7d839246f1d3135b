package io.grove.hash.concurrent;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.testing.CloseRace;
import io.grove.testing.StressRun;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code close()} of a hash map on a shared pool while operations run ({@link CloseRace}): 16 segments, so many
 * workers wait for segment locks when the close comes. Before the fix every thread configuration hung here:
 * writers waiting for a lock spun on the freed segment record.
 */
class CloseWhileOperatingStressTest {
    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void operationsRacingWithCloseFailCleanlyAndLeaveOtherMapsIntact(StressRun.Threads threads) throws Exception {
        CloseRace.run(threads, "hash map", pool -> {
            GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                    .expectedSize(1).pool(pool).build();
            return new CloseRace.Victim<>(map, map.zc(), map, (m, key, random) -> m.replace(key, key, key + 1));
        }, pool -> {
            GroveHashMap<Long, byte[]> map = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
                    .expectedSize(1).pool(pool).build();
            return new CloseRace.Victim<>(map, map.zc(), map, (m, key, random) -> { });
        });
    }
}
