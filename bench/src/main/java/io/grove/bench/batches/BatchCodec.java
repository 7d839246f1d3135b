package io.grove.bench.batches;

/**
 * The batch family's pairs (Jiffy §4.3, scaled): 16-byte keys, the id big-endian then a scrambled copy of it (so
 * consecutive ids are neighbours in the byte order), and 100-byte values: the id, a stamp (which write made the
 * value), filler, and a check word derived from both, so a reader can tell a whole value of its key from anything
 * else.
 */
final class BatchCodec {
    static final int KEY_SIZE = 16;
    static final int VALUE_SIZE = 100;
    static final int ID = 0;
    static final int STAMP = 8;
    static final int CHECK = VALUE_SIZE - 8;

    private BatchCodec() {}

    static void setKey(byte[] key, long id) {
        putLong(key, 0, id);
        putLong(key, 8, scramble(id));
    }

    static void setValue(byte[] value, long id, long stamp) {
        putLong(value, ID, id);
        putLong(value, STAMP, stamp);
        putLong(value, CHECK, check(id, stamp));
    }

    /** Whether {@code value} is a whole value written for {@code id}. */
    static boolean matches(byte[] value, long id) {
        return getLong(value, ID) == id && getLong(value, CHECK) == check(id, getLong(value, STAMP));
    }

    static long idOf(byte[] key) {
        return getLong(key, 0);
    }

    static long check(long id, long stamp) {
        return scramble(id ^ Long.rotateLeft(stamp, 17));
    }

    static long scramble(long x) {
        x = (x ^ (x >>> 30)) * 0xBF58476D1CE4E5B9L;
        x = (x ^ (x >>> 27)) * 0x94D049BB133111EBL;
        return x ^ (x >>> 31);
    }

    static void putLong(byte[] b, int at, long v) {
        for (int i = 7; i >= 0; i--) {
            b[at + i] = (byte) v;
            v >>>= 8;
        }
    }

    static long getLong(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[at + i] & 0xFF);
        }
        return v;
    }
}
