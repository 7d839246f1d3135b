package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.collect.testing.ConcurrentMapTestSuiteBuilder;
import com.google.common.collect.testing.SampleElements;
import com.google.common.collect.testing.TestStringMapGenerator;
import com.google.common.collect.testing.features.CollectionFeature;
import com.google.common.collect.testing.features.CollectionSize;
import com.google.common.collect.testing.features.MapFeature;
import io.grove.GroveHashMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import io.grove.testing.JUnit3Tests;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import junit.framework.TestSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Guava testlib's {@code ConcurrentMap} contract suite (CONTRIBUTING.md, testing layer 2) over {@link GroveHashMap},
 * with the features {@code ConcurrentHashMap}'s own Guava suite declares ({@code TestsForMapsInJavaUtil}): general
 * purpose, iterator remove, any size, and no null keys, values or null queries. {@code SERIALIZABLE} is left out: an
 * off-heap map is not {@code Serializable}.
 *
 * <p>Two generators: the default expected size, and {@code expectedSize(1)} with segments that have grown. Guava's
 * maps hold at most a handful of entries, too few to pass any segment's growth threshold (more than 12 entries in
 * one of at least 16 segments), so the second generator makes each map grow first: on a pool small enough for 16
 * segments, it inserts {@value #GROWTH_FILLERS} filler entries (each segment's slot array doubles about twice) and
 * removes them again before adding Guava's entries, so every test runs on a grown table whose removed slices are
 * being reused.
 *
 * <p>A third generator puts Guava's entries into a map in a new file, closes it and reopens it, so every test runs
 * on a table that came back from its file.
 *
 * <p>A fourth builds the maps with {@code inlineEntries(8, 5)}, cells for keys of up to 8 bytes and values of up to
 * 5: of Guava's sample entries (one=January, two=February, three=March, four=April, five=May), those whose value
 * is March, April or May fit their cells and those whose value is January or February (7 and 8 bytes) do not, so
 * that the testers' puts and replacements move entries into cells and out of them. Its maps grow first, as the
 * second generator's, with fillers that fit their cells, so that the removal of the fillers shifts cells and
 * every test runs on grown arrays of cells.
 *
 * <p>Maps come from one shared pool per generator; every map a test creates is closed after it, and the pools
 * after all tests, which also checks that closed maps left no slice behind.
 */
class GroveHashMapGuavaSuiteTest {
    private static final Duration TIME_LIMIT_PER_TEST = Duration.ofSeconds(20);
    private static final int GROWTH_FILLERS = 600;

    private static final Queue<GroveHashMap<?, ?>> OPEN_MAPS = new ConcurrentLinkedQueue<>();
    private static MemoryPool defaultSizePool;
    private static MemoryPool growingPool;
    private static final Queue<Path> FILES = new ConcurrentLinkedQueue<>();
    /**
     * How many maps in files the running test made: the n-th map of a test reuses the file of the n-th map of the
     * tests before (cleared), as creating a file takes about 10 ms (its first block is written with zeros) and
     * opening one under a millisecond.
     */
    private static final AtomicInteger FILES_THIS_TEST = new AtomicInteger();
    private static Path fileDir;

    @BeforeAll
    static void createPools() throws IOException {
        defaultSizePool = MemoryPool.builder().build();
        growingPool = sixteenSegmentPool();
        fileDir = Files.createTempDirectory("grove-guava");
    }

    @AfterAll
    static void closePools() throws IOException {
        closeOpenMaps();
        for (Path file; (file = FILES.poll()) != null; ) {
            Files.delete(file);
        }
        long defaultLive = defaultSizePool.footprint().liveSlices();
        long growingLive = growingPool.footprint().liveSlices();
        defaultSizePool.close();
        growingPool.close();
        try (Stream<Path> left = Files.list(fileDir)) {
            assertEquals(List.of(), left.toList(), "files left after their maps were closed");
        }
        Files.delete(fileDir);
        // Every map was closed, and a closed map frees all its slices in a shared pool.
        assertEquals(0, defaultLive, "slices left in the shared pool after all maps were closed");
        assertEquals(0, growingLive, "slices left in the shared pool after all maps were closed");
    }

    private static void closeOpenMaps() {
        for (GroveHashMap<?, ?> map; (map = OPEN_MAPS.poll()) != null; ) {
            map.close();
        }
        FILES_THIS_TEST.set(0);
    }

    @TestFactory
    Stream<DynamicNode> concurrentMapContractDefaultExpectedSize() {
        return suite("GroveHashMap", -1, 0, () -> defaultSizePool);
    }

    @TestFactory
    Stream<DynamicNode> concurrentMapContractGrownFromExpectedSizeOne() {
        return suite("GroveHashMap[expectedSize=1, grown]", 1, GROWTH_FILLERS, () -> growingPool);
    }

    /** The largest key and value of a cell in {@link #concurrentMapContractInlineEntries}. */
    private static final int INLINE_KEY_BYTES = 8;
    private static final int INLINE_VALUE_BYTES = 5;

    @TestFactory
    Stream<DynamicNode> concurrentMapContractInlineEntries() {
        return suite("GroveHashMap[inlineEntries=8 5, expectedSize=1, grown]", entries -> {
            GroveHashMap<String, String> map = GroveHashMap.builder(Serializers.strings(), Serializers.strings())
                    .pool(growingPool).expectedSize(1).inlineEntries(INLINE_KEY_BYTES, INLINE_VALUE_BYTES).build();
            OPEN_MAPS.add(map);
            for (int i = 0; i < GROWTH_FILLERS; i++) {
                map.put(inlineFiller(i), "f");
            }
            for (int i = 0; i < GROWTH_FILLERS; i++) {
                map.remove(inlineFiller(i));
            }
            for (Map.Entry<String, String> entry : entries) {
                map.put(entry.getKey(), entry.getValue());
            }
            return map;
        });
    }

    /** A filler key that fits a cell of {@link #concurrentMapContractInlineEntries}: at most 5 bytes. */
    private static String inlineFiller(int i) {
        return "\u0000f" + i;
    }

    /**
     * The inline generator's premises: Guava's sample values straddle the cell's limit (some fit, some do not), its
     * sample keys and its fillers fit, and the fillers make the table grow.
     */
    @Test
    void inlineSamplesStraddleTheCellLimit() {
        SampleElements<Map.Entry<String, String>> samples = new TestStringMapGenerator() {
            @Override
            protected Map<String, String> create(Map.Entry<String, String>[] entries) {
                throw new UnsupportedOperationException();
            }
        }.samples();
        List<Integer> valueSizes = new ArrayList<>();
        for (Map.Entry<String, String> sample : samples) {
            assertTrue(Serializers.strings().size(sample.getKey()) <= INLINE_KEY_BYTES, sample::toString);
            valueSizes.add(Serializers.strings().size(sample.getValue()));
        }
        assertTrue(valueSizes.stream().anyMatch(size -> size <= INLINE_VALUE_BYTES), valueSizes::toString);
        assertTrue(valueSizes.stream().anyMatch(size -> size > INLINE_VALUE_BYTES), valueSizes::toString);
        assertTrue(Serializers.strings().size(inlineFiller(GROWTH_FILLERS - 1)) <= INLINE_KEY_BYTES);
        try (MemoryPool pool = sixteenSegmentPool();
                GroveHashMap<String, String> map = GroveHashMap.builder(Serializers.strings(), Serializers.strings())
                        .expectedSize(1).pool(pool).inlineEntries(INLINE_KEY_BYTES, INLINE_VALUE_BYTES).build()) {
            long fresh = pool.footprint().liveBytes();
            for (int i = 0; i < GROWTH_FILLERS; i++) {
                map.put(inlineFiller(i), "f");
            }
            for (int i = 0; i < GROWTH_FILLERS; i++) {
                map.remove(inlineFiller(i));
            }
            assertTrue(map.isEmpty());
            long grown = pool.footprint().liveBytes();
            assertTrue(grown >= fresh + 16 * 3 * 16 * Long.BYTES,
                    () -> "the table did not grow: " + fresh + " -> " + grown + " live bytes");
        }
    }

    /**
     * A pool whose maps of a small expected size have 16 segments: one small enough to fill before any segment's
     * largest slot array does.
     */
    private static MemoryPool sixteenSegmentPool() {
        return MemoryPool.builder().memoryLimit(64L << 20).build();
    }

    /** The fillers of the second generator do make the table grow: its slot arrays take more memory after. */
    @Test
    void fillersGrowTheTable() {
        try (MemoryPool pool = sixteenSegmentPool();
                GroveHashMap<String, String> map = GroveHashMap.builder(Serializers.strings(), Serializers.strings())
                        .expectedSize(1).pool(pool).build()) {
            long fresh = pool.footprint().liveBytes();
            for (int i = 0; i < GROWTH_FILLERS; i++) {
                map.put("\u0000filler" + i, "filler");
            }
            for (int i = 0; i < GROWTH_FILLERS; i++) {
                map.remove("\u0000filler" + i);
            }
            assertTrue(map.isEmpty());
            long grown = pool.footprint().liveBytes();
            assertTrue(grown >= fresh + 16 * 3 * 16 * Long.BYTES,
                    () -> "slot arrays did not grow: " + fresh + " -> " + grown + " live bytes");
        }
    }

    private static Stream<DynamicNode> suite(String name, long expectedSize, int fillers,
            Supplier<MemoryPool> pool) {
        return suite(name, entries -> {
            GroveHashMap.Builder<String, String> builder =
                    GroveHashMap.builder(Serializers.strings(), Serializers.strings()).pool(pool.get());
            if (expectedSize >= 0) {
                builder.expectedSize(expectedSize);
            }
            GroveHashMap<String, String> map = builder.build();
            OPEN_MAPS.add(map);
            for (int i = 0; i < fillers; i++) {
                map.put("\u0000filler" + i, "filler");
            }
            for (int i = 0; i < fillers; i++) {
                map.remove("\u0000filler" + i);
            }
            for (Map.Entry<String, String> entry : entries) {
                map.put(entry.getKey(), entry.getValue());
            }
            return map;
        });
    }

    /**
     * Maps in files: each test's map is made in a file with Guava's entries (a new file, or one an earlier test's
     * map used, cleared first), closed, and reopened, so every test runs on a table that came back from its file.
     */
    @TestFactory
    Stream<DynamicNode> concurrentMapContractInAReopenedFile() {
        return inReopenedFiles("GroveHashMap[file, reopened]", "map-", builder -> builder);
    }

    /** The same, with the fourth generator's cells ({@code inlineEntries(8, 5)}) in the files' tables. */
    @TestFactory
    Stream<DynamicNode> concurrentMapContractInAReopenedFileWithCells() {
        return inReopenedFiles("GroveHashMap[file, inlineEntries=8 5, reopened]", "cells-",
                builder -> builder.inlineEntries(INLINE_KEY_BYTES, INLINE_VALUE_BYTES));
    }

    private static Stream<DynamicNode> inReopenedFiles(String name, String prefix,
            UnaryOperator<GroveHashMap.Builder<String, String>> settings) {
        return suite(name, entries -> {
            Path file = fileDir.resolve(prefix + FILES_THIS_TEST.getAndIncrement() + ".grove");
            if (!Files.exists(file)) {
                FILES.add(file); // first: creation tests expect create() to throw (e.g. on a null key)
            }
            GroveHashMap.Builder<String, String> builder = settings.apply(
                    GroveHashMap.builder(Serializers.strings(), Serializers.strings()).file(file)
                            .maxFileSize(16 << 20));
            try (GroveHashMap<String, String> first = builder.build()) {
                first.clear();
                for (Map.Entry<String, String> entry : entries) {
                    first.put(entry.getKey(), entry.getValue());
                }
            }
            GroveHashMap<String, String> map = builder.build();
            OPEN_MAPS.add(map);
            return map;
        });
    }

    private static Stream<DynamicNode> suite(String name,
            Function<Map.Entry<String, String>[], Map<String, String>> maker) {
        TestSuite suite = ConcurrentMapTestSuiteBuilder.using(new TestStringMapGenerator() {
                    @Override
                    protected Map<String, String> create(Map.Entry<String, String>[] entries) {
                        return maker.apply(entries);
                    }
                })
                .named(name)
                .withFeatures(
                        MapFeature.GENERAL_PURPOSE,
                        CollectionFeature.SUPPORTS_ITERATOR_REMOVE,
                        CollectionSize.ANY)
                .createTestSuite();
        int tests = JUnit3Tests.count(suite);
        System.out.println(name + ": " + tests + " Guava testlib tests");
        assertTrue(tests > 500, () -> "suspiciously few tests: " + tests);
        return JUnit3Tests.toDynamicNodes(suite, TIME_LIMIT_PER_TEST, GroveHashMapGuavaSuiteTest::closeOpenMaps);
    }
}
