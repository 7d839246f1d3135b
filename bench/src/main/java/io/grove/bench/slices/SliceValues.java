package io.grove.bench.slices;

/**
 * The layout of a slice-table value: {@code valueSize / 8} native-order longs that identify their slot and carry
 * a checksum, so a read that returns another slot's bytes, a torn value, or reused memory is caught.
 *
 * <pre>
 * word 0            key (the slot index)
 * word 1            stamp: random, new for every replacement
 * word 2            update word: key &lt;&lt; 32 | a counter; the 8 bytes an in-place update overwrites
 * words 3 .. n-2    filler: a fixed pattern of the word index (checked by the full verification only)
 * word n-1          check: a hash of key and stamp
 * </pre>
 *
 * A hot-path read checks words 0, 1, 2 and n-1 (the first and the last cache line of the value); the full
 * verification after the run checks every word of every slot.
 */
public final class SliceValues {
    public static final int KEY = 0;
    public static final int STAMP = 8;
    public static final int UPDATE = 16;
    /** The smallest value that holds key, stamp, update and check words. */
    public static final int MIN_SIZE = 32;

    private SliceValues() {}

    public static void checkSize(int valueSize) {
        if (valueSize < MIN_SIZE || valueSize % 8 != 0) {
            throw new IllegalArgumentException("slice-table values must be a multiple of 8 bytes, at least "
                    + MIN_SIZE + ": " + valueSize);
        }
    }

    /** The byte offset of the check word. */
    public static int checkOffset(int valueSize) {
        return valueSize - 8;
    }

    /** The check word of {@code key} and {@code stamp}. */
    public static long check(int key, long stamp) {
        return mix(stamp ^ ((long) key * 0x9E3779B97F4A7C15L));
    }

    public static long updateWord(int key, int counter) {
        return (long) key << 32 | (counter & 0xFFFF_FFFFL);
    }

    /** Whether the four words a hot-path read takes belong to one consistent value of {@code key}. */
    public static boolean matches(int key, long keyWord, long stamp, long updateWord, long checkWord) {
        return keyWord == key && (updateWord >>> 32) == key && checkWord == check(key, stamp);
    }

    /** The filler word at word index {@code i}. */
    public static long filler(int i) {
        return mix(0x5EED_0000_0000_0000L + i);
    }

    /** A whole value with filler in every word; writers copy it and then set key, stamp, update and check. */
    public static long[] template(int valueSize) {
        long[] words = new long[valueSize / 8];
        for (int i = 0; i < words.length; i++) {
            words[i] = filler(i);
        }
        return words;
    }

    /** The stamp of the value {@code key} gets at prefill. */
    public static long initialStamp(int key) {
        return mix(key + 1L);
    }

    /** The MurmurHash3 / SplitMix64 finalizer. */
    static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return z ^ (z >>> 33);
    }
}
