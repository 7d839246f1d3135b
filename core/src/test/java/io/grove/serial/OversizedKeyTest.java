package io.grove.serial;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.GroveSortedMap;
import io.grove.MemoryPool;
import io.grove.ZeroCopyMap;
import io.grove.view.ReadView;
import io.grove.view.WriteView;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Keys whose serializer declares more bytes than the map can store: no read serializes them (they cannot be in the
 * map: reads answer absent), writes throw {@link IllegalArgumentException} naming the size and the limit, and
 * nothing is allocated for them. Keys that fit but are large do not leave a large buffer behind.
 */
class OversizedKeyTest {
    private static final int BLOCK = 1 << 16;

    enum Kind {
        HASH(BLOCK - 16 - 24), SORTED(BLOCK - 16);

        /**
         * The largest key the map stores with 64 KiB blocks (a slice holds 64 KiB less its 16-byte header; a hash
         * map entry has 24 bytes of fields before its key).
         */
        final int maxKey;

        Kind(int maxKey) {
            this.maxKey = maxKey;
        }

        <K> ConcurrentMap<K, byte[]> open(Serializer<K> keys, MemoryPool pool) {
            return this == HASH
                    ? GroveHashMap.builder(keys, Serializers.bytes()).pool(pool).build()
                    : GroveSortedMap.builder(keys, Serializers.bytes()).pool(pool).build();
        }

        <K> ZeroCopyMap<K, byte[]> zc(Map<K, byte[]> map) {
            return this == HASH ? ((GroveHashMap<K, byte[]>) map).zc() : ((GroveSortedMap<K, byte[]>) map).zc();
        }
    }

    /** Keys of the size they name, bytes all 7; counts the calls of {@code write}. */
    private static final class SizedKeys implements Serializer<Integer> {
        final AtomicInteger writes = new AtomicInteger();

        @Override
        public int size(Integer value) {
            return value;
        }

        @Override
        public void write(Integer value, WriteView target) {
            writes.incrementAndGet();
            target.fill(0, value, (byte) 7);
        }

        @Override
        public Integer read(ReadView source) {
            return source.size();
        }
    }

    private static MemoryPool pool() {
        return MemoryPool.builder().blockSize(BLOCK).memoryLimit(16 * BLOCK).build();
    }

    private static void assertRejected(Executable write, int size, int limit) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, write);
        assertTrue(e.getMessage().contains(size + " bytes") && e.getMessage().contains(limit + " bytes"),
                e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aKeyLargerThanAnyStoredKeyIsAbsentForReadsAndRejectedByWrites(Kind kind) {
        for (int size : new int[] {Integer.MAX_VALUE, kind.maxKey + 1}) {
            SizedKeys keys = new SizedKeys();
            try (MemoryPool pool = pool()) {
                ConcurrentMap<Integer, byte[]> map = kind.open(keys, pool);
                ZeroCopyMap<Integer, byte[]> zc = kind.zc(map);
                long live = pool.footprint().liveSlices();
                byte[] value = {1};
                assertNull(map.get(size));
                assertFalse(map.containsKey(size));
                assertNull(map.remove(size));
                assertFalse(map.remove(size, value));
                assertNull(map.replace(size, value));
                assertFalse(map.replace(size, value, value));
                assertNull(map.computeIfPresent(size, (k, v) -> value));
                assertNull(zc.get(size));
                assertFalse(zc.remove(size));
                assertFalse(zc.computeIfPresent(size, v -> { }));
                int limit = kind.maxKey;
                assertRejected(() -> map.put(size, value), size, limit);
                assertRejected(() -> map.putIfAbsent(size, value), size, limit);
                assertRejected(() -> map.merge(size, value, (a, b) -> b), size, limit);
                assertRejected(() -> map.compute(size, (k, v) -> value), size, limit);
                assertRejected(() -> map.computeIfAbsent(size, k -> value), size, limit);
                assertRejected(() -> zc.put(size, value), size, limit);
                assertRejected(() -> zc.putIfAbsent(size, value), size, limit);
                assertRejected(() -> zc.putIfAbsentComputeIfPresent(size, value, v -> { }), size, limit);
                assertEquals(0, keys.writes.get(), "the key was never serialized");
                assertTrue(map.isEmpty());
                assertEquals(live, pool.footprint().liveSlices(), "nothing was allocated");
            }
        }
    }

    /**
     * The ordered map serializes a key on the heap to bound a view, navigate from it, or compare it: one larger
     * than any stored key is refused there too, naming both sizes, instead of an array of its declared size
     * (Integer.MAX_VALUE: OutOfMemoryError).
     */
    @org.junit.jupiter.api.Test
    void anOrderedMapRefusesAnOversizedKeyAsABoundOrToNavigateFrom() {
        int limit = Kind.SORTED.maxKey;
        SizedKeys keys = new SizedKeys();
        try (MemoryPool pool = pool()) {
            GroveSortedMap<Integer, byte[]> map = GroveSortedMap.builder(keys, Serializers.bytes()).pool(pool).build();
            map.put(1, new byte[] {1});
            for (int size : new int[] {Integer.MAX_VALUE, limit + 1}) {
                assertRejected(() -> map.headMap(size), size, limit);
                assertRejected(() -> map.subMap(1, size), size, limit);
                assertRejected(() -> map.ceilingKey(size), size, limit);
                assertRejected(() -> map.floorEntry(size), size, limit);
                assertRejected(() -> map.comparator().compare(1, size), size, limit);
                assertRejected(() -> map.zc().tailMap(size, true), size, limit);
            }
            assertEquals(1, map.size());
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void theLargestKeyTheMapStoresWorks(Kind kind) {
        try (MemoryPool pool = pool()) {
            ConcurrentMap<Integer, byte[]> map = kind.open(new SizedKeys(), pool);
            assertNull(map.put(kind.maxKey, new byte[0]));
            assertEquals(0, map.get(kind.maxKey).length);
            assertTrue(map.containsKey(kind.maxKey));
            assertEquals(0, map.remove(kind.maxKey).length);
        }
    }

    /** A get with a key of tens of MiB that fits a 64 MiB block leaves no buffer of that size on the heap. */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void aLargeKeyLeavesNoLargeBufferBehind(Kind kind) {
        int keySize = 48 << 20;
        try (MemoryPool pool = MemoryPool.builder().blockSize(64 << 20).memoryLimit(128L << 20).build()) {
            ConcurrentMap<Integer, byte[]> map = kind.open(new SizedKeys(), pool);
            assertNull(map.get(16)); // the thread's scratch exists before the measurement
            long before = heapUsedAfterGc();
            assertNull(map.get(keySize));
            long retained = heapUsedAfterGc() - before;
            assertTrue(retained < keySize / 4, retained + " bytes of heap still held after a get with a "
                    + keySize + "-byte key");
        }
    }

    private static long heapUsedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
