package io.grove.hash.concurrent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bounded mode: {@code maximumSize} and {@code maximumBytes} hold for the map as a whole. An entry counts 24 bytes
 * of fields, its key padded with them to a multiple of 8, and its value. Before the bound was the whole map's, it
 * was split into fixed per-segment quotas: {@code maximumBytes(1024)} rejected every entry over 64 bytes, keys that
 * happened to share a segment were evicted while the map was far from full, and an in-place resize beyond its
 * segment's share stayed linked while the call threw.
 */
class BoundedModeTest {
    /** An entry's bytes against the bound: 24 bytes of fields, the 8-byte key (a multiple of 8), the value. */
    private static long entryBytes(byte[] value) {
        return 24L + 8 + value.length;
    }

    private static long bytesOf(Map<Long, byte[]> map) {
        return map.values().stream().mapToLong(BoundedModeTest::entryBytes).sum();
    }

    /** Records each eviction, failing on a second report of the same entry. */
    private static final class Evictions {
        final Map<Long, byte[]> evicted = new ConcurrentHashMap<>();

        void record(Long key, byte[] value) {
            if (evicted.put(key, value) != null) {
                throw new AssertionError("key " + key + " evicted twice without being put in between");
            }
        }
    }

    @Test
    void maximumSizeOfOneHoldsTheLastEntry() {
        List<Long> evicted = new ArrayList<>();
        try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .maximumSize(1).evictionListener((k, v) -> evicted.add(k)).build()) {
            map.put(1L, 10L);
            map.put(2L, 20L);
            assertEquals(Map.of(2L, 20L), Map.copyOf(map));
            assertEquals(List.of(1L), evicted);
            map.put(2L, 21L); // a replacement evicts nothing
            assertEquals(List.of(1L), evicted);
            assertEquals(21L, map.get(2L));
        }
    }

    @Test
    void anEntryUpToTheWholeByteBoundFitsAndALargerOneIsRejectedWithNothingEvicted() {
        Evictions evictions = new Evictions();
        try (GroveHashMap<Long, byte[]> map = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
                .maximumBytes(1024).evictionListener(evictions::record).build()) {
            map.put(1L, new byte[100]);
            byte[] whole = new byte[1024 - 32];
            map.put(2L, whole);
            assertEquals(1, map.size(), "the entry taking the whole bound evicted the other");
            assertArrayEquals(whole, map.get(2L));
            assertTrue(evictions.evicted.containsKey(1L));
            IllegalArgumentException tooLarge = assertThrows(IllegalArgumentException.class,
                    () -> map.put(3L, new byte[1024 - 31]));
            assertTrue(tooLarge.getMessage().contains("maximumBytes (1024)"), tooLarge::getMessage);
            assertArrayEquals(whole, map.get(2L), "a rejected entry evicted another");
            assertNull(map.get(3L));
            assertThrows(IllegalArgumentException.class, () -> map.replace(2L, new byte[2000]));
            assertArrayEquals(whole, map.get(2L));
        }
    }

    @Test
    void keysOfOneSegmentMayTakeTheWholeBound() {
        int maximum = 64;
        try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .maximumSize(maximum).build()) {
            assertTrue(Internals.segmentCount(map) >= 16);
            int segment = Internals.segmentOfLongKey(map, 0);
            List<Long> keys = new ArrayList<>();
            for (long k = 0; keys.size() < maximum; k++) {
                if (Internals.segmentOfLongKey(map, k) == segment) {
                    keys.add(k);
                }
            }
            for (long k : keys) {
                map.put(k, k);
            }
            assertEquals(maximum, map.size(), "entries were evicted while the map was not full");
            map.put(-1L, -1L);
            assertEquals(maximum, map.size(), "a full map stays at its maximum");
        }
    }

    /**
     * With cells ({@code inlineEntries(8, 100)}), the entries lie in the table's array, which the evictions that
     * make room for a resize shift: the resized entry is moved apart first and stays the one resized.
     */
    @ParameterizedTest(name = "cells {0}")
    @ValueSource(booleans = {false, true})
    void inPlaceResizesStayWithinTheBoundOrLeaveTheValueAsItWas(boolean cells) {
        Evictions evictions = new Evictions();
        GroveHashMap.Builder<Long, byte[]> builder = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
                .maximumBytes(4096).evictionListener(evictions::record);
        try (GroveHashMap<Long, byte[]> map = (cells ? builder.inlineEntries(Long.BYTES, 100) : builder).build()) {
            for (long k = 0; k < 20; k++) {
                map.put(k, new byte[100]); // 132 bytes each: 2,640
            }
            // Growing one value evicts others, never the entry being resized.
            map.zc().computeIfPresent(0L, v -> v.resize(3000).putByte(2999, (byte) 5));
            assertEquals(3000, map.get(0L).length);
            assertTrue(Internals.lockedTotals(map)[1] <= 4096, "bytes " + Internals.lockedTotals(map)[1]);
            assertEquals(Internals.lockedTotals(map)[1], bytesOf(map));
            assertFalse(evictions.evicted.isEmpty());
            assertFalse(evictions.evicted.containsKey(0L));
            // Growing beyond the whole bound fails; the value stays as it was and nothing more is evicted.
            int evictedBefore = evictions.evicted.size();
            Map<Long, byte[]> before = new HashMap<>(map);
            assertThrows(IllegalArgumentException.class,
                    () -> map.zc().computeIfPresent(0L, v -> v.resize(5000)));
            assertEquals(before.keySet(), map.keySet());
            assertEquals(3000, map.get(0L).length);
            assertEquals(evictedBefore, evictions.evicted.size());
            assertTrue(Internals.lockedTotals(map)[1] <= 4096);
            // Shrinking gives the bytes back: room for more entries without evictions.
            map.zc().computeIfPresent(0L, v -> v.resize(8));
            int present = map.size();
            map.put(100L, new byte[100]);
            assertEquals(present + 1, map.size());
            assertEquals(evictedBefore, evictions.evicted.size());
        }
    }

    @Test
    void aListenerThatThrowsDoesNotStopEvictionsOrTheUpdate() {
        AtomicLong calls = new AtomicLong();
        try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .maximumSize(2).evictionListener((k, v) -> {
                    calls.incrementAndGet();
                    throw new IllegalStateException("listener failure");
                }).build()) {
            map.put(1L, 1L);
            map.put(2L, 2L);
            map.put(3L, 3L);
            assertEquals(2, map.size());
            assertEquals(1, calls.get());
            assertEquals(3L, map.get(3L));
        }
    }

    /**
     * Writers insert, replace, resize and remove entries of varied sizes; a checker takes exact snapshots (every
     * segment locked) and fails if the entries or bytes held ever pass the bounds. Each key is written by one
     * writer, which counts its insertions (a put that returned {@code null}) and removals; the listener counts
     * evictions. At the end each key's insertions minus removals minus evictions is 1 if it is present, else 0:
     * every entry that left the map was reported exactly once. With cells ({@code inlineEntries(8, 200)}: most
     * values lie in the table's cells, which evictions, removals and growth shift, and some apart), as without.
     */
    @ParameterizedTest(name = "{0}, cells {1}")
    @MethodSource("threadsAndCells")
    void concurrentWritersNeverPassTheBoundsAndEachEvictionIsReportedOnce(StressRun.Threads threads, boolean cells)
            throws Exception {
        long maxBytes = 64 * 1024;
        long maxEntries = 300;
        Map<Long, AtomicLong> balance = new ConcurrentHashMap<>();
        GroveHashMap.Builder<Long, byte[]> builder = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
                .maximumBytes(maxBytes).maximumSize(maxEntries)
                .evictionListener((k, v) -> balance.get(k).decrementAndGet());
        try (GroveHashMap<Long, byte[]> map = (cells ? builder.inlineEntries(Long.BYTES, 200) : builder).build()) {
            int writers = threads.count;
            long opsPerWriter = 60_000 / writers;
            AtomicLong snapshots = new AtomicLong();
            StressRun run = new StressRun();
            run.workers(threads.factory("bounded-writer"), writers, index -> {
                SplittableRandom random = new SplittableRandom(index);
                for (long i = 0; i < opsPerWriter && run.proceed(i); i++) {
                    long k = index * 1_000_000L + random.nextInt(2_000);
                    AtomicLong keyBalance = balance.computeIfAbsent(k, key -> new AtomicLong());
                    int size = 8 + random.nextInt(random.nextInt(10) == 0 ? 4_000 : 300);
                    switch (random.nextInt(6)) {
                        case 0, 1, 2 -> {
                            if (map.put(k, new byte[size]) == null) {
                                keyBalance.incrementAndGet();
                            }
                        }
                        case 3 -> {
                            if (map.remove(k) != null) {
                                keyBalance.decrementAndGet();
                            }
                        }
                        case 4 -> map.zc().computeIfPresent(k, v -> v.resize(size));
                        default -> map.get(k);
                    }
                }
            });
            run.workers(threads.factory("bounds-checker"), 1, index -> {
                for (long i = 0; run.proceed(i) && snapshots.get() < 2_000; i++) {
                    long[] totals = Internals.lockedTotals(map);
                    if (totals[0] > maxEntries || totals[1] > maxBytes) {
                        throw new AssertionError("held " + totals[0] + " entries and " + totals[1] + " bytes");
                    }
                    snapshots.incrementAndGet();
                }
            });
            run.runAndCheck("bounded writers with " + threads, () -> "snapshots " + snapshots.get()
                    + ", size " + map.size());
            long[] totals = Internals.lockedTotals(map);
            assertEquals(map.size(), totals[0]);
            assertEquals(bytesOf(map), totals[1], "the segments' byte counts disagree with the entries");
            assertTrue(totals[0] <= maxEntries && totals[1] <= maxBytes);
            for (Map.Entry<Long, AtomicLong> e : balance.entrySet()) {
                long expected = map.containsKey(e.getKey()) ? 1 : 0;
                assertEquals(expected, e.getValue().get(), "insertions - removals - evictions of key " + e.getKey());
            }
        }
    }

    static Stream<Arguments> threadsAndCells() {
        return Stream.of(StressRun.Threads.values())
                .flatMap(threads -> Stream.of(Arguments.of(threads, false), Arguments.of(threads, true)));
    }
}
