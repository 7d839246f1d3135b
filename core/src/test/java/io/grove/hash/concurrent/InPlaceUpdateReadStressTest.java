package io.grove.hash.concurrent;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.testing.InPlaceUpdateReads;
import io.grove.testing.StressRun;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

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

    /**
     * The same races on values in the cells of the table's array: the map's cells ({@code inlineEntries(8, 4096)})
     * hold the {@value InPlaceUpdateReads#PUT_VALUE_BYTES}-byte values of the puts, and in-place updates rewrite
     * values of that size too (not the larger ones above, which no cell of the default pool can hold). Copying gets
     * race with in-place updates and same-size puts that rewrite the cell, and readers through handles, which move
     * the entry out of its cell, race with puts, which move it back in. Three of the runs above, each on another
     * kind of threads, to keep the time of the suite (in-place updates and handle reads, the fourth pair, would run
     * on entries that the first handle moved out of their cells for good, as above).
     */
    @ParameterizedTest
    @MethodSource("inlineRuns")
    void readsOfValuesInCellsNeverSeeHalfOfAnUpdate(InPlaceUpdateReads.Writer writer, InPlaceUpdateReads.Reader reader,
            StressRun.Threads threads) throws Exception {
        int valueBytes = InPlaceUpdateReads.PUT_VALUE_BYTES;
        try (GroveHashMap<Long, byte[]> map = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
                .expectedSize(4).memoryLimit(64L << 20).inlineEntries(Long.BYTES, valueBytes).build()) {
            InPlaceUpdateReads.run(map, map.zc(), threads, writer, reader, 60_000, valueBytes,
                    "hash map in cells " + writer + " vs " + reader + ", " + threads);
        }
    }

    static Stream<Arguments> inlineRuns() {
        var inPlace = InPlaceUpdateReads.Writer.IN_PLACE_UPDATE;
        var put = InPlaceUpdateReads.Writer.PUT;
        var get = InPlaceUpdateReads.Reader.COPYING_GET;
        var handle = InPlaceUpdateReads.Reader.HANDLE_READ;
        return Stream.of(
                Arguments.of(inPlace, get, StressRun.Threads.VIRTUAL),
                Arguments.of(put, get, StressRun.Threads.PLATFORM_MORE_THAN_CORES),
                Arguments.of(put, handle, StressRun.Threads.PLATFORM_OVER_64));
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
