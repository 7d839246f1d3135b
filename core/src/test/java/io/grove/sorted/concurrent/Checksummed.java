package io.grove.sorted.concurrent;

import io.grove.view.WriteView;

/**
 * Values that encode their own key and a checksum, so that a torn read (bytes of two versions of a value) or a
 * misdirected one (another key's value, e.g. through a stale reference into reused memory) is caught. A value is
 * {@code [key: 8][generation: 8][filler: n][checksum: 8]}; the filler and the checksum are derived from key,
 * generation and length. The same format as the hash map's checksum test, written once more here because that
 * one's helpers are private to its package.
 */
final class Checksummed {
    static final int HEADER = 16;
    static final int MIN_SIZE = HEADER + 8;

    private Checksummed() {}

    static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    /** A value for {@code key}, generation {@code gen}, with {@code filler} filler bytes. */
    static byte[] value(long key, long gen, int filler) {
        byte[] b = new byte[MIN_SIZE + filler];
        long sum = mix(key * 31 + gen * 17 + b.length);
        putLong(b, 0, key);
        putLong(b, 8, gen);
        for (int i = HEADER; i < b.length - 8; i++) {
            b[i] = fillerByte(key, gen, i);
            sum = sum * 1_000_003 + b[i];
        }
        putLong(b, b.length - 8, sum);
        return b;
    }

    /** Rewrites all of {@code view} (its current size) as generation {@code gen} of {@code key}'s value. */
    static void rewrite(WriteView view, long key, long gen) {
        byte[] b = value(key, gen, view.size() - MIN_SIZE);
        for (int i = 0; i < b.length; i++) {
            view.putByte(i, b[i]);
        }
    }

    private static byte fillerByte(long key, long gen, int i) {
        return (byte) mix(key ^ (gen << 20) ^ i);
    }

    /** Throws unless {@code b} is a whole, untorn value written for {@code key}. */
    static void check(long key, byte[] b, String via) {
        checkKeyField(key, b, via);
        long gen = readLong(b, 8);
        long sum = mix(key * 31 + gen * 17 + b.length);
        for (int i = HEADER; i < b.length - 8; i++) {
            if (b[i] != fillerByte(key, gen, i)) {
                throw new AssertionError(via + ": value of key " + key + " generation " + gen + " is torn at byte "
                        + i + " of " + b.length);
            }
            sum = sum * 1_000_003 + b[i];
        }
        if (readLong(b, b.length - 8) != sum) {
            throw new AssertionError(via + ": value of key " + key + " generation " + gen + " (" + b.length
                    + " bytes) has a bad checksum");
        }
    }

    /** Only the length and the key field. */
    static void checkKeyField(long key, byte[] b, String via) {
        if (b.length < MIN_SIZE || readLong(b, 0) != key) {
            throw new AssertionError(via + ": key " + key + " returned " + b.length + " bytes written for key "
                    + (b.length >= 8 ? readLong(b, 0) : "?") + " (misdirected)");
        }
    }

    static long readLong(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (b[at + i] & 0xFF);
        }
        return v;
    }

    private static void putLong(byte[] b, int at, long v) {
        for (int i = 0; i < 8; i++) {
            b[at + i] = (byte) (v >>> (56 - 8 * i));
        }
    }
}
