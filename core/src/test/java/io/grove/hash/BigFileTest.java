package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A map in a file holds more than 4 GiB in its one mapping and gives every byte back after a reopen: 4,608 entries
 * of 1 MiB (4.5 GiB), each word of a value derived from its key and position, so that a value written or read at a
 * wrong offset (a reference or offset cut to 32 bits, a block past the fourth GiB mapped wrong) fails the check.
 * Every byte is checked after the reopen; then half the keys are removed and, after another reopen, put again,
 * which must reuse their memory rather than grow the file. The file is sparse and deleted after the test (about
 * 4.6 GB of disk while it runs).
 */
class BigFileTest {
    /** With the entry's fields and key, exactly 1 MiB of slice: a size class of its own, no rounding. */
    private static final int VALUE = (1 << 20) - 64;
    private static final int KEYS = 4_608;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    @TempDir
    Path dir;

    private static GroveHashMap.Builder<Long, byte[]> builder(Path file) {
        return GroveHashMap.builder(Serializers.longs(), Serializers.bytes()).file(file).maxFileSize(5L << 30)
                .expectedSize(KEYS);
    }

    private static long word(long key, int i, int round) {
        return (key * 0x9E37_79B9_7F4A_7C15L) ^ ((long) i << 20) ^ round;
    }

    private static byte[] value(long key, int round) {
        byte[] value = new byte[VALUE];
        for (int i = 0; i < VALUE / 8; i++) {
            LONGS.set(value, i * 8, word(key, i, round));
        }
        return value;
    }

    private static void check(long key, int round, byte[] value) {
        assertEquals(VALUE, value.length, "key " + key);
        for (int i = 0; i < VALUE / 8; i++) {
            if ((long) LONGS.get(value, i * 8) != word(key, i, round)) {
                throw new AssertionError("key " + key + ": word " + i + " of the value is wrong");
            }
        }
    }

    @Test
    void moreThanFourGibibytesComeBackAfterAReopen() {
        Path file = dir.resolve("big.grove");
        long allocated;
        try (GroveHashMap<Long, byte[]> map = builder(file).build()) {
            for (long k = 0; k < KEYS; k++) {
                map.put(k, value(k, 0));
            }
            allocated = map.footprint().allocatedBytes();
            assertTrue(allocated > 9L << 29, "only " + allocated + " bytes allocated");
            check(KEYS - 1, 0, map.get((long) KEYS - 1));
        }
        try (GroveHashMap<Long, byte[]> map = builder(file).build()) {
            assertEquals(KEYS, map.size());
            for (long k = 0; k < KEYS; k++) {
                check(k, 0, map.get(k));
            }
            for (long k = 0; k < KEYS; k += 2) {
                map.remove(k);
            }
        }
        try (GroveHashMap<Long, byte[]> map = builder(file).build()) {
            assertEquals(KEYS / 2, map.size());
            for (long k = 0; k < KEYS; k += 2) {
                map.put(k, value(k, 1));
            }
            assertEquals(allocated, map.footprint().allocatedBytes(), "the puts after the removes grew the file");
        }
        try (GroveHashMap<Long, byte[]> map = builder(file).build()) {
            for (long k = 0; k < KEYS; k++) {
                check(k, k % 2 == 0 ? 1 : 0, map.get(k));
            }
        }
    }
}
