package io.grove.sorted.concurrent;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

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

    /** A map of chunks of 64 ({@code layOut}: laid out for scans) holding keys below {@code keys}, counters 0. */
    static GroveSortedMap<Long, byte[]> filledMap(int keys, boolean layOut) {
        GroveSortedMap.Builder<Long, byte[]> builder =
                GroveSortedMap.builder(Serializers.longs(), Serializers.bytes()).chunkSize(64);
        GroveSortedMap<Long, byte[]> map = (layOut ? builder.layOutForScans() : builder).build();
        for (long k = 0; k < keys; k++) {
            map.put(k, value(k, 0));
        }
        return map;
    }

    /**
     * Adds to {@code run} a quarter of {@code threads} (at least 2) as scanners, each making its share of
     * {@code scans} calls of {@code scan} with its own random source, and the rest as writers making {@code writes}
     * {@link #write}s to keys below {@code keys} in all.
     */
    static void scannersAndWriters(StressRun run, StressRun.Threads threads, String name,
            GroveSortedMap<Long, byte[]> map, int keys, long scans, long writes, Consumer<SplittableRandom> scan) {
        int scanners = Math.max(2, threads.count / 4);
        int writers = threads.count - scanners;
        run.workers(threads.factory(name + "-scan"), scanners, index -> {
            SplittableRandom random = new SplittableRandom(index);
            for (long n = 0; n < scans / scanners + 1 && run.proceed(n); n++) {
                scan.accept(random);
                if (Thread.currentThread().isVirtual()) {
                    LockSupport.parkNanos(1_000); // a scan is a long CPU-bound step: let the others run
                }
            }
        });
        run.workers(threads.factory(name + "-write"), writers, index -> {
            SplittableRandom random = new SplittableRandom(100 + index);
            for (long n = 0; n < writes / writers && run.proceed(n); n++) {
                write(map, random, keys);
            }
        });
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

    /** Spins about as long as a writer's half-written window lasts. */
    static void spin() {
        for (int spin = 0; spin < 1_000; spin++) {
            Thread.onSpinWait();
        }
    }

    /** What the function of {@link #writeAndUndo} throws. */
    private static final class Undone extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }
}
