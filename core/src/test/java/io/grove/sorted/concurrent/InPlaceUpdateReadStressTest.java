package io.grove.sorted.concurrent;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.InPlaceUpdateReads;
import io.grove.testing.StressRun;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Neither {@code get} nor a handle's {@code read} returns a value that an in-place update was rewriting
 * ({@link InPlaceUpdateReads}).
 */
class InPlaceUpdateReadStressTest {
    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void copyingGetsNeverSeeHalfOfAnInPlaceUpdate(StressRun.Threads threads) throws Exception {
        run(threads, InPlaceUpdateReads.Reader.COPYING_GET);
    }

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void handleReadsNeverSeeHalfOfAnInPlaceUpdate(StressRun.Threads threads) throws Exception {
        run(threads, InPlaceUpdateReads.Reader.HANDLE_READ);
    }

    private static void run(StressRun.Threads threads, InPlaceUpdateReads.Reader reader) throws Exception {
        try (GroveSortedMap<Long, byte[]> map = GroveSortedMap.builder(Serializers.longs(), Serializers.bytes())
                .memoryLimit(64L << 20).build()) {
            InPlaceUpdateReads.run(map, map.zc(), threads, InPlaceUpdateReads.Writer.IN_PLACE_UPDATE, reader, 60_000,
                    "sorted map in-place updates vs " + reader + ", " + threads);
        }
    }
}
