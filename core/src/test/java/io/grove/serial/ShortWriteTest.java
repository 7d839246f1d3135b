package io.grove.serial;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.GroveSortedMap;
import io.grove.MemoryPool;
import io.grove.SerializerException;
import io.grove.internal.memory.Pool;
import io.grove.view.ReadView;
import io.grove.view.WriteView;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A serializer that writes fewer bytes than it declared never hands a reader bytes of a removed entry, of this map
 * or of another map on the same pool: a write that stops short of the declared size is rejected and stores nothing,
 * and bytes skipped in the middle read as zero.
 */
class ShortWriteTest {
    private static final int SIZE = 200;
    private static final int KEYS = 500;
    private static final byte STALE = (byte) 0xAB;

    enum Kind {
        HASH, SORTED;

        <V> Map<Long, V> open(MemoryPool pool, Serializer<V> values) {
            return this == HASH
                    ? GroveHashMap.builder(Serializers.longs(), values).pool(pool).build()
                    : GroveSortedMap.builder(Serializers.longs(), values).pool(pool).build();
        }
    }

    /** Declares {@value #SIZE} bytes and writes only the first {@code SIZE - 24}. */
    private static final Serializer<byte[]> STOPS_SHORT = new Fixed("StopsShortSerializer") {
        @Override
        public void write(byte[] value, WriteView target) {
            target.copyFrom(value, 0, 0, SIZE - 24);
        }
    };

    /** Declares {@value #SIZE} bytes and writes only the first and the last. */
    private static final Serializer<byte[]> SKIPS_THE_MIDDLE = new Fixed("SkipsTheMiddleSerializer") {
        @Override
        public void write(byte[] value, WriteView target) {
            target.putByte(0, value[0]);
            target.putByte(SIZE - 1, value[SIZE - 1]);
        }
    };

    private abstract static class Fixed implements Serializer<byte[]> {
        private final String name;

        Fixed(String name) {
            this.name = name;
        }

        @Override
        public int size(byte[] value) {
            return SIZE;
        }

        @Override
        public byte[] read(ReadView source) {
            return source.toByteArray();
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** A pool on which another map wrote {@link #STALE} bytes into every value and removed them all. */
    private static MemoryPool poolWithRemovedEntries(Kind kind) throws Exception {
        MemoryPool pool = MemoryPool.builder().blockSize(1 << 16).memoryLimit(64 << 16).build();
        Map<Long, byte[]> other = kind.open(pool, Serializers.bytes());
        byte[] stale = new byte[SIZE];
        Arrays.fill(stale, STALE);
        for (long k = 0; k < KEYS; k++) {
            other.put(k, stale);
        }
        other.clear();
        ((Pool) pool).reclaimNow(); // their memory is now on the free lists, ready for the next map
        return pool;
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aWriteThatStopsShortOfItsSizeIsRejectedAndStoresNothing(Kind kind) throws Exception {
        try (MemoryPool pool = poolWithRemovedEntries(kind)) {
            Map<Long, byte[]> map = kind.open(pool, STOPS_SHORT);
            long live = pool.footprint().liveSlices();
            SerializerException e = assertThrows(SerializerException.class, () -> map.put(1L, new byte[SIZE]));
            assertTrue(e.getMessage().contains("StopsShortSerializer") && e.getMessage().contains("declared 200")
                    && e.getMessage().contains("up to byte 176"), e.getMessage());
            assertThrows(SerializerException.class, () -> map.putIfAbsent(2L, new byte[SIZE]));
            assertEquals(live, pool.footprint().liveSlices(), "nothing was left allocated");
            // (an ordered map's compute links the key before its function runs; the key stays until compaction)
            assertThrows(SerializerException.class, () -> map.compute(3L, (k, v) -> new byte[SIZE]));
            assertTrue(map.isEmpty());
            assertNull(map.get(1L));
            assertNull(map.get(3L));
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void bytesASerializerSkipsReadAsZeroNeverAsAnotherMapsRemovedBytes(Kind kind) throws Exception {
        try (MemoryPool pool = poolWithRemovedEntries(kind)) {
            Map<Long, byte[]> map = kind.open(pool, SKIPS_THE_MIDDLE);
            byte[] value = new byte[SIZE];
            Arrays.fill(value, (byte) 1);
            for (long k = 0; k < KEYS; k++) {
                map.put(k, value);
            }
            for (long k = 0; k < KEYS; k++) {
                byte[] read = map.get(k);
                assertEquals(1, read[0]);
                assertEquals(1, read[SIZE - 1]);
                for (int i = 1; i < SIZE - 1; i++) {
                    assertEquals(0, read[i], "key " + k + ", byte " + i + " (0xAB: a removed entry's byte)");
                }
            }
        }
    }
}
