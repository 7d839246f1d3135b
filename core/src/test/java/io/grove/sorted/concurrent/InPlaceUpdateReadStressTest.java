package io.grove.sorted.concurrent;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.InPlaceUpdateReads;
import io.grove.testing.StressRun;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code get} never returns a value that an in-place update was rewriting ({@link InPlaceUpdateReads}). */
class InPlaceUpdateReadStressTest {
    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void copyingGetsNeverSeeHalfOfAnInPlaceUpdate(StressRun.Threads threads) throws Exception {
        try (GroveSortedMap<Long, byte[]> map = GroveSortedMap.builder(Serializers.longs(), Serializers.bytes())
                .memoryLimit(64L << 20).build()) {
            InPlaceUpdateReads.run(map, map.zc(), threads, InPlaceUpdateReads.Reader.COPYING_GET, 60_000,
                    "sorted map in-place updates vs gets, " + threads);
        }
    }
}
