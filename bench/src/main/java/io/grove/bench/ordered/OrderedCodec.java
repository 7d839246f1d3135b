package io.grove.bench.ordered;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The keys and values of the ordered-map scenarios (Oak's performance evaluation: 100-byte keys, 1,000-byte
 * values, unless the worker's system properties set other sizes), derived from an int so that every contender
 * stores the same bytes.
 *
 * <p>Key: the int big-endian in bytes 0-3 (keys are non-negative, so unsigned byte order is the int's order and
 * scans are meaningful), then a fixed filler. Value: bytes 0-7 a counter (the 8 bytes the {@code upsert}
 * operation increments in place), bytes 8-15 the key as a long, then a fixed filler, and in the last 8 bytes a
 * check word derived from the key. A reader checks the key word and the check word; {@code verify}
 * checks every byte but the counter.
 */
public final class OrderedCodec {
    /** The worker JVM's system property that sets {@link #KEY_SIZE} (e.g. {@code --jvm-arg -D...=16}). */
    public static final String KEY_SIZE_PROPERTY = "grove.bench.ordered.keySize";
    /** The worker JVM's system property that sets {@link #VALUE_SIZE}. */
    public static final String VALUE_SIZE_PROPERTY = "grove.bench.ordered.valueSize";
    /** The key's bytes: 100 unless {@link #KEY_SIZE_PROPERTY} says otherwise (at least 4: the int). */
    public static final int KEY_SIZE = size(KEY_SIZE_PROPERTY, 100, 4);
    /** The value's bytes: 1,000 unless {@link #VALUE_SIZE_PROPERTY} says otherwise (at least 24: three words). */
    public static final int VALUE_SIZE = size(VALUE_SIZE_PROPERTY, 1_000, 24);
    /** Offset of the 8-byte counter that {@code upsert} increments. */
    public static final int COUNTER = 0;
    /** Offset of the key, as a long, inside the value. */
    public static final int KEY_WORD = 8;
    /** Offset of the check word inside the value. */
    public static final int CHECK_WORD = VALUE_SIZE - 8;
    static final int FILLER_FROM = 16;

    private static int size(String property, int otherwise, int least) {
        int size = Integer.getInteger(property, otherwise);
        if (size < least) {
            throw new IllegalArgumentException(property + " must be at least " + least + ", was " + size);
        }
        return size;
    }

    /** Big-endian long access to {@code byte[]} (plain get/set), as Grove's views are big-endian. */
    static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private static final byte[] KEY_TEMPLATE = new byte[KEY_SIZE];
    private static final byte[] VALUE_TEMPLATE = new byte[VALUE_SIZE];

    static {
        for (int i = 4; i < KEY_SIZE; i++) {
            KEY_TEMPLATE[i] = (byte) (i * 37 + 11);
        }
        for (int i = FILLER_FROM; i < CHECK_WORD; i++) {
            VALUE_TEMPLATE[i] = (byte) (i * 31 + 7);
        }
    }

    private OrderedCodec() {}

    /** A new array holding the key bytes' fixed part; {@link #setKey} patches the int. */
    public static byte[] newKeyBuffer() {
        return KEY_TEMPLATE.clone();
    }

    /** A new array holding the value bytes' fixed part; {@link #setValue} patches the key-dependent words. */
    public static byte[] newValueBuffer() {
        return VALUE_TEMPLATE.clone();
    }

    /** Writes {@code key} into a buffer from {@link #newKeyBuffer}. */
    public static void setKey(byte[] buffer, int key) {
        INTS.set(buffer, 0, key);
    }

    /** Writes {@code key}'s words into a buffer from {@link #newValueBuffer}; the counter starts at 0. */
    public static void setValue(byte[] buffer, int key) {
        LONGS.set(buffer, COUNTER, 0L);
        LONGS.set(buffer, KEY_WORD, (long) key);
        LONGS.set(buffer, CHECK_WORD, check(key));
    }

    /** The int encoded in a key's first four bytes. */
    public static int keyOf(byte[] key) {
        return (int) INTS.get(key, 0);
    }

    /** The check word of {@code key}'s value. */
    public static long check(long key) {
        long z = (key + 0x632BE59BD9B4E019L) * 0x9E3779B97F4A7C15L;
        return z ^ (z >>> 29);
    }

    /** Whether a value's key word and check word belong to {@code key}. */
    public static boolean wordsMatch(int key, long keyWord, long checkWord) {
        return keyWord == key && checkWord == check(key);
    }

    /** Whether {@code key} holds exactly the bytes {@link #setKey} writes for its int. */
    public static boolean keyIsWellFormed(byte[] key) {
        return key.length == KEY_SIZE
                && java.util.Arrays.equals(key, 4, KEY_SIZE, KEY_TEMPLATE, 4, KEY_SIZE);
    }

    /** Whether {@code value} is a complete value of {@code key} (any counter). */
    public static boolean valueIsWellFormed(int key, byte[] value) {
        return value.length == VALUE_SIZE
                && wordsMatch(key, (long) LONGS.get(value, KEY_WORD), (long) LONGS.get(value, CHECK_WORD))
                && java.util.Arrays.equals(value, FILLER_FROM, CHECK_WORD, VALUE_TEMPLATE, FILLER_FROM, CHECK_WORD);
    }

    /** The value template as a read-only view, for comparing off-heap fillers. */
    static byte[] valueTemplate() {
        return VALUE_TEMPLATE;
    }

    static byte[] keyTemplate() {
        return KEY_TEMPLATE;
    }
}
