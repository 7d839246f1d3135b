package io.grove.sorted;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The byte order of raw keys where comparing 8-byte prefixes alone would be wrong: keys shorter than 8 bytes, keys
 * that are prefixes of one another, zero bytes (the padding of a short prefix), bytes above 0x7F (unsigned order)
 * and long shared stems, so most comparisons have equal prefixes. A {@link GroveSortedMap} with 4-entry chunks
 * (many sorted prefixes and rebalances) against a {@link TreeMap} ordered by {@link Arrays#compareUnsigned}: the
 * order of the keys, and get, floor, ceiling, lower and higher for probes in and out of the map. Seed printed.
 */
class GroveSortedMapByteOrderTest {
    private static final byte[] ALPHABET = {0, 1, 0x7F, (byte) 0x80, (byte) 0xFF};
    private static final byte[][] STEMS = {{}, {0}, {0, 0, 0, 0, 0, 0, 0}, {1, 2, 3, 4, 5, 6, 7, 8},
            {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0, 0}};

    @Test
    void keysAreOrderedByUnsignedBytes() {
        long seed = Long.getLong("grove.seed", System.nanoTime());
        System.out.println("GroveSortedMapByteOrderTest: -Dgrove.seed=" + seed);
        SplittableRandom random = new SplittableRandom(seed);
        TreeMap<byte[], Integer> model = new TreeMap<>(Arrays::compareUnsigned);
        try (GroveSortedMap<byte[], Integer> map = GroveSortedMap.builder(Serializers.bytes(), Serializers.ints())
                .chunkSize(4).build()) {
            for (int step = 0; step < 20_000; step++) {
                byte[] key = randomKey(random);
                if (random.nextInt(4) == 0) {
                    assertEquals(model.remove(key), map.remove(key), "remove, seed " + seed);
                } else {
                    assertEquals(model.put(key, step), map.put(key, step), "put, seed " + seed);
                }
                byte[] probe = randomKey(random);
                assertEquals(model.get(probe), map.get(probe), "get, seed " + seed);
                assertKey(model.floorKey(probe), map.floorKey(probe), "floorKey", seed);
                assertKey(model.ceilingKey(probe), map.ceilingKey(probe), "ceilingKey", seed);
                assertKey(model.lowerKey(probe), map.lowerKey(probe), "lowerKey", seed);
                assertKey(model.higherKey(probe), map.higherKey(probe), "higherKey", seed);
            }
            List<byte[]> expected = new ArrayList<>(model.keySet());
            List<byte[]> actual = new ArrayList<>(map.keySet());
            assertEquals(expected.size(), actual.size(), "size, seed " + seed);
            for (int i = 0; i < expected.size(); i++) {
                assertArrayEquals(expected.get(i), actual.get(i), "key " + i + " in order, seed " + seed);
            }
            for (Map.Entry<byte[], Integer> e : model.entrySet()) {
                assertEquals(e.getValue(), map.get(e.getKey()), "value, seed " + seed);
            }
        }
    }

    private static byte[] randomKey(SplittableRandom random) {
        byte[] stem = STEMS[random.nextInt(STEMS.length)];
        byte[] key = Arrays.copyOf(stem, stem.length + random.nextInt(5));
        for (int i = stem.length; i < key.length; i++) {
            key[i] = ALPHABET[random.nextInt(ALPHABET.length)];
        }
        return key;
    }

    private static void assertKey(byte[] expected, byte[] actual, String what, long seed) {
        assertArrayEquals(expected, actual, what + ", seed " + seed);
    }
}
