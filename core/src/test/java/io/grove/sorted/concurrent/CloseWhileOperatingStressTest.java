package io.grove.sorted.concurrent;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.CloseRace;
import io.grove.testing.StressRun;
import java.util.concurrent.ConcurrentNavigableMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code close()} of an ordered map on a shared pool while operations run ({@link CloseRace}), with navigation and
 * range scans among the operations and chunks of 4 entries, so rebalances run when the close comes.
 */
class CloseWhileOperatingStressTest {
    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void operationsRacingWithCloseFailCleanlyAndLeaveOtherMapsIntact(StressRun.Threads threads) throws Exception {
        CloseRace.run(threads, "ordered map", pool -> {
            GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                    .chunkSize(4).pool(pool).build();
            return new CloseRace.Victim<>(map, map.zc(), map, (m, key, random) -> navigate(map, key));
        }, pool -> {
            GroveSortedMap<Long, byte[]> map = GroveSortedMap.builder(Serializers.longs(), Serializers.bytes())
                    .chunkSize(4).pool(pool).build();
            return new CloseRace.Victim<>(map, map.zc(), map, (m, key, random) -> { });
        });
    }

    private static void navigate(ConcurrentNavigableMap<Long, Long> map, long key) {
        map.ceilingKey(key);
        map.lowerEntry(key);
        int n = 0;
        for (var it = map.descendingMap().headMap(key, true).entrySet().iterator(); it.hasNext() && n < 8; n++) {
            it.next();
        }
    }
}
