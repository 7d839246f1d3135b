package io.grove.testing;

import io.grove.ZeroCopyMap;
import io.grove.view.Handle;
import io.grove.view.ResizableView;
import io.grove.view.WriteView;
import java.util.ConcurrentModificationException;
import java.util.SplittableRandom;
import java.util.function.LongFunction;

/**
 * Values that encode their own key and a checksum, so that a torn read (bytes of two versions of a value) or a
 * misdirected one (another key's value, e.g. through a stale reference into reused memory) is caught. A value is
 * {@code [key: 8][generation: 8][filler: n][checksum: 8]}; the filler and the checksum are derived from key,
 * generation and length. Used by the checksum stress tests of the hash map and of the sorted map.
 */
public final class Checksummed {
    /** The bytes before the filler: key and generation. */
    public static final int HEADER = 16;
    /** The size of a value without filler. */
    public static final int MIN_SIZE = HEADER + 8;

    private Checksummed() {}

    /** A 64-bit finalizer (MurmurHash3's): the source of filler bytes and checksums. */
    public static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    /** A value for {@code key}, generation {@code gen}, with {@code filler} filler bytes. */
    public static byte[] value(long key, long gen, int filler) {
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
    public static void rewrite(WriteView view, long key, long gen) {
        byte[] b = value(key, gen, view.size() - MIN_SIZE);
        for (int i = 0; i < b.length; i++) {
            view.putByte(i, b[i]);
        }
    }

    private static byte fillerByte(long key, long gen, int i) {
        return (byte) mix(key ^ (gen << 20) ^ i);
    }

    /** Throws unless {@code b} is a whole, untorn value written for {@code key}. */
    public static void check(long key, byte[] b, String via) {
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

    /** Only the length and the key field: for reads that may see an in-place rewrite partly. */
    public static void checkKeyField(long key, byte[] b, String via) {
        if (b.length < MIN_SIZE || readLong(b, 0) != key) {
            throw new AssertionError(via + ": key " + key + " returned " + b.length + " bytes written for key "
                    + (b.length >= 8 ? readLong(b, 0) : "?") + " (misdirected)");
        }
    }

    /** The big-endian long at {@code at} of {@code b}. */
    public static long readLong(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (b[at + i] & 0xFF);
        }
        return v;
    }

    /** Checks {@code old} (a value an update returned) unless it is null. */
    public static void checkOld(long key, byte[] old, String via) {
        if (old != null) {
            check(key, old, via + " (old value)");
        }
    }

    /** A generation number unique to {@code writer}: its number in the high bits, random low bits. */
    public static long gen(int writer, SplittableRandom random) {
        return ((long) writer << 40) | random.nextLong(1L << 40);
    }

    /**
     * Reads {@code key}'s value through a zero-copy handle, retrying when the value was replaced meanwhile, and
     * checks it: fully on odd keys, only the key field on even keys (which also get in-place rewrites, which a
     * handle read may see partly by contract). Whether the key was found.
     */
    public static boolean readThroughHandle(ZeroCopyMap<Long, byte[]> map, long key) {
        while (true) {
            Handle handle = map.get(key);
            if (handle == null) {
                return false;
            }
            byte[] v;
            try {
                v = handle.read(view -> view.toByteArray());
            } catch (ConcurrentModificationException replaced) {
                continue;
            }
            if ((key & 1) == 0) {
                checkKeyField(key, v, "handle");
            } else {
                check(key, v, "handle");
            }
            return true;
        }
    }

    /**
     * In place: checks the value under the update's lock, resizes it to {@code newSize} unless that is negative,
     * and rewrites all of it as generation {@code gen}.
     */
    public static void rewriteInPlace(ResizableView view, long key, long gen, int newSize) {
        check(key, view.toByteArray(), "in-place update");
        if (newSize >= 0) {
            view.resize(newSize);
        }
        rewrite(view, key, gen);
    }

    /**
     * After a run: every key from {@code -permanent} up to (excluding) {@code frontier} read through {@code get}
     * must be whole, and each negative (permanent) key must be there.
     */
    public static void checkFinalState(LongFunction<byte[]> get, int permanent, long frontier) {
        for (long k = -permanent; k < frontier; k++) {
            byte[] v = get.apply(k);
            if (v == null && k < 0) {
                throw new AssertionError("permanent key " + k + " is gone");
            }
            if (v != null) {
                check(k, v, "final get");
            }
        }
    }

    private static void putLong(byte[] b, int at, long v) {
        for (int i = 0; i < 8; i++) {
            b[at + i] = (byte) (v >>> (56 - 8 * i));
        }
    }
}
