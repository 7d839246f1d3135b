package io.grove.sorted.concurrent;

import io.grove.GroveSortedMap;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * The writes of the zero-copy handle stress tests ({@link StreamHandleStressTest}, {@link SetHandleStressTest}): each
 * value is 24 bytes, its key, a counter and the counter's complement ({@link #value}); a write replaces a value,
 * removes a key, puts one back, increments a counter in place in two steps with a pause between them, or writes a key
 * no value holds in place ({@link #UNDONE}) and fails, so that the map undoes it. A read that returns another key, a
 * counter without its complement or {@link #UNDONE} read bytes that were never a state of the entry.
 */
final class ValueChurn {
    /** The key an undone in-place write puts into a value for a while. */
    static final long UNDONE = -1;

    private ValueChurn() {}

    /** The 24 bytes of key {@code key}'s value with counter {@code count}. */
    static byte[] value(long key, long count) {
        return ByteBuffer.allocate(24).putLong(key).putLong(count).putLong(~count).array();
    }

    /** One random write to a key below {@code keys}. */
    static void write(GroveSortedMap<Long, byte[]> map, SplittableRandom random, int keys) {
        long k = random.nextLong(keys);
        switch (random.nextInt(5)) {
            case 0 -> map.zc().put(k, value(k, random.nextLong()));
            case 1 -> map.zc().remove(k);
            case 2 -> map.zc().putIfAbsent(k, value(k, random.nextLong()));
            case 3 -> writeAndUndo(map, k);
            default -> map.zc().computeIfPresent(k, v -> {
                long count = v.getLong(8) + 1;
                v.putLong(8, count);
                spin(); // widens the window in which the value is half written
                v.putLong(16, ~count);
            });
        }
    }

    /**
     * An in-place update whose function writes {@link #UNDONE} and then fails, so that the map undoes the write: a
     * read that returned those bytes would have read a state that never was.
     */
    private static void writeAndUndo(GroveSortedMap<Long, byte[]> map, long k) {
        try {
            map.zc().computeIfPresent(k, v -> {
                v.putLong(0, UNDONE);
                spin();
                throw new Undone();
            });
        } catch (Undone expected) {
            // the write was undone
        }
    }

    private static void spin() {
        for (int spin = 0; spin < 1_000; spin++) {
            Thread.onSpinWait();
        }
    }

    /** What the function of {@link #writeAndUndo} throws. */
    private static final class Undone extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }
}
