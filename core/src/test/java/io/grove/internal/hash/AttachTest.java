package io.grove.internal.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.Reclamation;
import io.grove.internal.memory.Pool;
import io.grove.serial.Serializers;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A map object attached to the directory of a table built by an earlier map object, as a process that maps an
 * existing file will: everything the table is (entries, incremental growth in progress, the bounded mode's
 * budget) is off heap, so the new object continues exactly where the old one stopped.
 */
class AttachTest {
    private static final OffHeapHashMap.Bounds<Long, String> UNBOUNDED =
            new OffHeapHashMap.Bounds<>(Long.MAX_VALUE, Long.MAX_VALUE, null, false);

    private static Pool pool() {
        return new Pool(1 << 16, 1 << 28, Reclamation.NOVA);
    }

    /**
     * Random operations against a {@link HashMap}, the map object replaced by a new one attached to the same
     * directory at random points (a small expected size makes segments grow all along, so some attach mid-way
     * through a growth); the contents are compared after every attach and at the end. With cells, some values are
     * too long for them, so that the table holds entries in cells and apart, and the attached object must find the
     * cell size from the arrays (a table records none).
     */
    @ParameterizedTest(name = "cells of {0} bytes")
    @MethodSource("cellSizes")
    void anAttachedMapHoldsExactlyWhatTheOldObjectLeftAndGoesOn(long cellBytes) {
        Random random = new Random(11);
        Map<Long, String> reference = new HashMap<>();
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = new OffHeapHashMap<>(pool, false, Serializers.longs(),
                    Serializers.strings(), 16, UNBOUNDED, cellBytes);
            long directory = map.directory();
            int attaches = 0;
            for (int step = 0; step < 60_000; step++) {
                long key = random.nextInt(20_000);
                String value = step % 7 == 0 ? "a value too long for a cell of the test, " + step : "v" + step;
                switch (random.nextInt(4)) {
                    case 0, 1 -> assertEquals(reference.put(key, value), map.put(key, value));
                    case 2 -> assertEquals(reference.remove(key), map.remove(key));
                    default -> assertEquals(reference.get(key), map.get(key));
                }
                if (random.nextInt(2_000) == 0) {
                    map = OffHeapHashMap.attach(pool, false, Serializers.longs(), Serializers.strings(), directory,
                            UNBOUNDED);
                    attaches++;
                    assertEquals(reference, new HashMap<>(map), "after attach " + attaches + ", step " + step);
                    assertEquals(reference.size(), map.size());
                    if (cellBytes == OffHeapHashMap.SLOT_CELLS) { // the check reads tables of slots only (files)
                        assertEquals(List.of(), TableCheck.check(pool, directory).problems(),
                                "after attach " + attaches);
                    }
                }
            }
            assertTrue(attaches >= 10, "attached only " + attaches + " times");
            assertEquals(reference, new HashMap<>(map));
            map.close();
            assertEquals(0, pool.footprint().liveSlices(), "the attached map's close freed the whole table");
        }
    }

    static List<Long> cellSizes() {
        return List.of(OffHeapHashMap.SLOT_CELLS, OffHeapHashMap.cellBytesFor(Long.BYTES, 12));
    }

    /** The budget of a bounded map is in the table: an attached map keeps to the bound the old one filled. */
    @Test
    void anAttachedBoundedMapKeepsTheBound() {
        OffHeapHashMap.Bounds<Long, String> bounds = new OffHeapHashMap.Bounds<>(100, Long.MAX_VALUE, null, false);
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> first = new OffHeapHashMap<>(pool, false, Serializers.longs(),
                    Serializers.strings(), 100, bounds);
            for (long k = 0; k < 1_000; k++) {
                first.put(k, "v");
            }
            assertEquals(100, first.size());
            OffHeapHashMap<Long, String> second = OffHeapHashMap.attach(pool, false, Serializers.longs(),
                    Serializers.strings(), first.directory(), bounds);
            assertEquals(100, second.size());
            for (long k = 1_000; k < 2_000; k++) {
                second.put(k, "w");
                assertTrue(second.size() <= 100, "size " + second.size() + " after put of " + k);
            }
            assertEquals("w", second.get(1_999L));
            second.close();
        }
    }

    @Test
    void attachingToWhatIsNotALiveDirectoryThrows() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = new OffHeapHashMap<>(pool, false, Serializers.longs(),
                    Serializers.strings(), 16, UNBOUNDED);
            assertNull(map.put(1L, "one"));
            long directory = map.directory();
            long entryLike = pool.allocate(24); // a live slice that lists no power-of-two number of segments
            IllegalStateException notADirectory = assertThrows(IllegalStateException.class,
                    () -> OffHeapHashMap.attach(pool, false, Serializers.longs(), Serializers.strings(), entryLike,
                            UNBOUNDED));
            assertTrue(notADirectory.getMessage().contains("segment"), notADirectory.getMessage());
            map.close();
            IllegalStateException closed = assertThrows(IllegalStateException.class,
                    () -> OffHeapHashMap.attach(pool, false, Serializers.longs(), Serializers.strings(), directory,
                            UNBOUNDED));
            assertTrue(closed.getMessage().contains(String.valueOf(directory)), closed.getMessage());
        }
    }
}
