package io.grove.hash.concurrent;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.testing.InPlaceUpdateReads;
import io.grove.testing.StressRun;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Neither {@code get} nor a handle's {@code read} returns a value that an in-place update, or a put of a value of the
 * same size (copied over the old one in place), was rewriting; a handle made before such a put fails instead of
 * reading the new value ({@link InPlaceUpdateReads}).
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

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void copyingGetsNeverSeeHalfOfAPutInPlace(StressRun.Threads threads) throws Exception {
        run(threads, InPlaceUpdateReads.Writer.PUT, InPlaceUpdateReads.Reader.COPYING_GET);
    }

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void handlesNeverReadHalfOfAPutInPlaceNorTheValueItPut(StressRun.Threads threads) throws Exception {
        run(threads, InPlaceUpdateReads.Writer.PUT, InPlaceUpdateReads.Reader.HANDLE_READ);
    }

    private static void run(StressRun.Threads threads, InPlaceUpdateReads.Reader reader) throws Exception {
        run(threads, InPlaceUpdateReads.Writer.IN_PLACE_UPDATE, reader);
    }

    private static void run(StressRun.Threads threads, InPlaceUpdateReads.Writer writer,
            InPlaceUpdateReads.Reader reader) throws Exception {
        try (GroveHashMap<Long, byte[]> map = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
                .expectedSize(4).memoryLimit(64L << 20).build()) {
            InPlaceUpdateReads.run(map, map.zc(), threads, writer, reader, 60_000,
                    "hash map " + writer + " vs " + reader + ", " + threads);
        }
    }
}
