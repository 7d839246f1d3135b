package io.grove.sorted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.collect.testing.ConcurrentNavigableMapTestSuiteBuilder;
import com.google.common.collect.testing.TestStringSortedMapGenerator;
import com.google.common.collect.testing.features.CollectionFeature;
import com.google.common.collect.testing.features.CollectionSize;
import com.google.common.collect.testing.features.MapFeature;
import io.grove.GroveSortedMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import io.grove.testing.JUnit3Tests;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import junit.framework.TestSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Guava testlib's {@code ConcurrentNavigableMap} contract suite (CONTRIBUTING.md, testing layer 2) over
 * {@link GroveSortedMap}, with the features {@code ConcurrentSkipListMap}'s own Guava suite declares
 * ({@code TestsForMapsInJavaUtil}): general purpose, iterator remove, known order, any size, and no null keys,
 * values or null queries. {@code SERIALIZABLE} is left out: an off-heap map is not {@code Serializable}. Unlike
 * {@code ConcurrentSkipListMap}'s suite, nothing is suppressed: that suite suppresses the
 * {@code Map.Entry.setValue} tests because the JDK map's entries do not support it, while Grove's contract
 * (CONTRIBUTING.md, "Full contracts") is a complete implementation, so an entry of the entry set writes through.
 *
 * <p>Keys and values use {@link Serializers#strings()}: the map orders keys by their UTF-8 bytes, which for the
 * ASCII strings Guava uses is the {@code String} order the generator expects.
 *
 * <p>Two generators: the default chunk size (4096 entries, so each of Guava's maps is one chunk), and the minimum
 * chunk size 4. Guava's maps hold at most a handful of entries, so the second generator also inserts
 * {@value #FILLERS_PER_ENTRY} filler keys right after each of Guava's keys (a filler {@code k + "\u0000" + i}
 * sorts between {@code k} and the next key) and then removes them: building each map splits chunks many times,
 * and the removals leave sparse chunks to be merged, so every test starts on a map that went through rebalances
 * and whose further insertions and removals rebalance again.
 *
 * <p>Maps come from one shared pool per generator (64 KiB blocks, so the pools stay small); every map a test
 * creates is closed after it, and the pools after all tests, which also checks that closed maps left no slice
 * behind.
 *
 * <p>Size and time: 33,280 tests per generator (Surefire reports 66,562 for the class), each on its own thread
 * with a time limit (the adapter's). On the 2-core development machine the class took 74 s, and 119 s while other
 * builds ran, well under the 4 minutes allowed, so both generators are kept.
 */
class GroveSortedMapGuavaSuiteTest {
    private static final Duration TIME_LIMIT_PER_TEST = Duration.ofSeconds(20);
    private static final int FILLERS_PER_ENTRY = 6;

    private static final Queue<GroveSortedMap<?, ?>> OPEN_MAPS = new ConcurrentLinkedQueue<>();
    private static MemoryPool defaultChunkPool;
    private static MemoryPool smallChunkPool;

    @BeforeAll
    static void createPools() {
        defaultChunkPool = MemoryPool.builder().blockSize(1 << 16).build();
        smallChunkPool = MemoryPool.builder().blockSize(1 << 16).build();
    }

    @AfterAll
    static void closePools() {
        closeOpenMaps();
        long defaultLive = defaultChunkPool.footprint().liveSlices();
        long smallLive = smallChunkPool.footprint().liveSlices();
        defaultChunkPool.close();
        smallChunkPool.close();
        // Every map was closed, and a closed map frees all its slices in a shared pool.
        assertEquals(0, defaultLive, "slices left in the shared pool (default chunks) after all maps were closed");
        assertEquals(0, smallLive, "slices left in the shared pool (chunkSize 4) after all maps were closed");
    }

    private static void closeOpenMaps() {
        for (GroveSortedMap<?, ?> map; (map = OPEN_MAPS.poll()) != null; ) {
            map.close();
        }
    }

    @TestFactory
    Stream<DynamicNode> concurrentNavigableMapContractDefaultChunkSize() {
        return suite("GroveSortedMap", GroveSortedMap.Builder.DEFAULT_CHUNK_SIZE, 0, defaultChunkPool);
    }

    @TestFactory
    Stream<DynamicNode> concurrentNavigableMapContractChunkSize4Rebalanced() {
        return suite("GroveSortedMap[chunkSize=4, rebalanced]", GroveSortedMap.Builder.MIN_CHUNK_SIZE,
                FILLERS_PER_ENTRY, smallChunkPool);
    }

    /** The fillers leave nothing behind: the map holds exactly Guava's entries, in order. */
    @Test
    void fillersAreGoneAfterCreate() {
        try (MemoryPool pool = MemoryPool.builder().blockSize(1 << 16).build()) {
            GroveSortedMap<String, String> map = create(GroveSortedMap.Builder.MIN_CHUNK_SIZE, FILLERS_PER_ENTRY,
                    pool, List.of(Map.entry("two", "b"), Map.entry("one", "a"), Map.entry("three", "c")));
            try (map) {
                assertEquals(List.of("one", "three", "two"), new ArrayList<>(map.keySet()));
                assertEquals("{one=a, three=c, two=b}", map.toString());
                assertEquals(3, map.size());
            }
            assertEquals(0, pool.footprint().liveSlices(), "slices left after close");
        }
    }

    private static GroveSortedMap<String, String> create(int chunkSize, int fillers, MemoryPool pool,
            List<Map.Entry<String, String>> entries) {
        GroveSortedMap<String, String> map = GroveSortedMap.builder(Serializers.strings(), Serializers.strings())
                .chunkSize(chunkSize).pool(pool).build();
        fill(map, fillers, entries);
        return map;
    }

    /** Puts Guava's entries, each followed by fillers, then removes the fillers. */
    private static void fill(GroveSortedMap<String, String> map, int fillers, List<Map.Entry<String, String>> entries) {
        for (Map.Entry<String, String> entry : entries) {
            map.put(entry.getKey(), entry.getValue());
            for (int i = 0; i < fillers; i++) {
                map.put(entry.getKey() + "\u0000" + i, "filler");
            }
        }
        for (Map.Entry<String, String> entry : entries) {
            for (int i = 0; i < fillers; i++) {
                map.remove(entry.getKey() + "\u0000" + i);
            }
        }
    }

    private static Stream<DynamicNode> suite(String name, int chunkSize, int fillers, MemoryPool pool) {
        TestSuite suite = ConcurrentNavigableMapTestSuiteBuilder.using(new TestStringSortedMapGenerator() {
                    @Override
                    protected SortedMap<String, String> create(Map.Entry<String, String>[] entries) {
                        GroveSortedMap<String, String> map = GroveSortedMap.builder(Serializers.strings(),
                                Serializers.strings()).chunkSize(chunkSize).pool(pool).build();
                        // registered before filling: creation tests (e.g. with a null key) expect fill to throw,
                        // and the map must still be closed after the test
                        OPEN_MAPS.add(map);
                        fill(map, fillers, Arrays.asList(entries));
                        return map;
                    }
                })
                .named(name)
                .withFeatures(
                        MapFeature.GENERAL_PURPOSE,
                        CollectionFeature.SUPPORTS_ITERATOR_REMOVE,
                        CollectionFeature.KNOWN_ORDER,
                        CollectionSize.ANY)
                .createTestSuite();
        int tests = JUnit3Tests.count(suite);
        System.out.println(name + ": " + tests + " Guava testlib tests");
        assertTrue(tests > 10_000, () -> "suspiciously few tests: " + tests);
        return JUnit3Tests.toDynamicNodes(suite, TIME_LIMIT_PER_TEST, GroveSortedMapGuavaSuiteTest::closeOpenMaps);
    }
}
