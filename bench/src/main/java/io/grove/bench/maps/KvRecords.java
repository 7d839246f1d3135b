package io.grove.bench.maps;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * How the key-value scenarios derive keys and values from an integer id, so that every contender stores the same
 * bytes and every read can be checked.
 *
 * <ul>
 *   <li>Key word of id {@code i}: {@code mix(i)}, a bijective 64-bit scramble (so keys are distinct and spread like
 *       MapHash's random 64-bit keys, §4.3.2). An 8-byte key is that word (big-endian); a longer key repeats
 *       {@code mix(i) + j} in word {@code j} and is cut at its size.</li>
 *   <li>A value holds the key word in its first and its last 8 bytes (MapHash's check: "the key is written into
 *       the record and into the last field", §4.3.2) and a fixed filler between.</li>
 * </ul>
 * All multi-byte words are big-endian, as Grove's views and {@code ByteBuffer}s read them.
 */
public final class KvRecords {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private KvRecords() {}

    /** The key word of {@code id}: a bijection of 64-bit values (MurmurHash3's finalizer). */
    public static long keyWord(long id) {
        long z = id + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return z ^ (z >>> 33);
    }

    /** Writes the key of {@code id} into all of {@code key} (whose length is the key size, at least 8). */
    public static void fillKey(byte[] key, long id) {
        long w = keyWord(id);
        int words = key.length >>> 3;
        for (int j = 0; j < words; j++) {
            LONGS.set(key, j << 3, w + j);
        }
        int rest = key.length & 7;
        if (rest != 0) {
            long last = w + words;
            for (int b = 0; b < rest; b++) {
                key[(words << 3) + b] = (byte) (last >>> (56 - 8 * b));
            }
        }
    }

    /** A value of {@code size} bytes with the filler and no key stamped yet. */
    public static byte[] newValue(int size) {
        if (size < 16) {
            throw new IllegalArgumentException("values need at least 16 bytes (two key words), not " + size);
        }
        byte[] value = new byte[size];
        for (int i = 8; i < size - 8; i++) {
            value[i] = (byte) (i * 31 + 7);
        }
        return value;
    }

    /** Stamps {@code id}'s key word into the first and the last 8 bytes of {@code value}. */
    public static void stamp(byte[] value, long id) {
        long w = keyWord(id);
        LONGS.set(value, 0, w);
        LONGS.set(value, value.length - 8, w);
    }

    /** Whether {@code value} (a copy or the stored array) is a value of {@code id} of the expected size. */
    public static boolean matches(byte[] value, int length, long id, int size) {
        long w = keyWord(id);
        return length == size && (long) LONGS.get(value, 0) == w && (long) LONGS.get(value, size - 8) == w;
    }

    /** Whether the two words read in place (first and last 8 bytes) are those of {@code id}. */
    public static boolean matches(long first, long last, long id) {
        long w = keyWord(id);
        return first == w && last == w;
    }

    /** The first word of a value array (to fold into a sink). */
    public static long firstWord(byte[] value) {
        return (long) LONGS.get(value, 0);
    }
}
