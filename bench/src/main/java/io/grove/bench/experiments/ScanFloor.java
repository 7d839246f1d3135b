package io.grove.bench.experiments;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.ToDoubleFunction;

/**
 * The floor under an ordered scan of Oak's pairs laid out in key order, against {@link ConcurrentSkipListMap} on the
 * same machine: what reading the words Oak's scan benchmark reads of each pair costs when nothing else is done.
 *
 * <p>{@code floor}: a plain loop over an off-heap region holding the pairs as a laid-out Grove map holds them (each
 * pair a 128-byte key slice, then a 1,024-byte value slice, each slice with its 16-byte header; the 100-byte key,
 * the value's 8-byte header and 1,000 bytes), reading per pair the key's first int and the value's words at 8 and at
 * its end, as the benchmark's consumer does; no cursor, no validation, no touches ahead. {@code cslm}: the same
 * pairs in a {@code ConcurrentSkipListMap<byte[], byte[]>} inserted in random order, then two full GCs (G1 copies
 * nodes, keys and values next to each other in list order), scanned through {@code tailMap(from).entrySet()} reading
 * the same words. Scans of 10,000 pairs from random pairs, ascending and descending, 2 s per figure, five rounds
 * alternating the two; ns per pair and thread. {@code -Dthreads=N} (default 1): each figure is taken by N threads
 * scanning at once, each from its own random pairs (the bench's 2-thread scans), and the ns per pair is their mean.
 * Run with {@code -Xmx6g -Dpairs=1000000}: {@code java -Xmx6g -Dpairs=200000 -cp
 * "bench/target/grove-bench.jar:bench/target/lib/*" io.grove.bench.experiments.ScanFloor}.
 */
public final class ScanFloor {
    private static final int PAIRS = Integer.getInteger("pairs", 200_000);
    private static final int THREADS = Integer.getInteger("threads", 1);
    private static final int SCAN = 10_000;
    private static final int KEY_SLICE = 128;
    private static final int PAIR = KEY_SLICE + 1_024;
    private static final int HEADER = 16;
    private static final int VALUE = 1_000;
    private static final long ROUND_NANOS = 2_000_000_000L;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private ScanFloor() {}

    public static void main(String[] args) {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment region = arena.allocate((long) PAIRS * PAIR, 4096);
            for (int i = 0; i < PAIRS; i++) {
                long key = (long) i * PAIR + HEADER;
                region.set(INT, key, i);
                long value = (long) i * PAIR + KEY_SLICE + HEADER + 8;
                region.set(LONG, value + 8, i);
                region.set(LONG, value + VALUE - 8, ~i);
            }
            ConcurrentSkipListMap<byte[], byte[]> cslm = new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
            List<Integer> ids = new java.util.ArrayList<>();
            for (int i = 0; i < PAIRS; i++) {
                ids.add(i);
            }
            Collections.shuffle(ids, new Random(1));
            for (int id : ids) {
                byte[] key = new byte[100];
                INTS.set(key, 0, id);
                byte[] value = new byte[VALUE];
                LONGS.set(value, 8, (long) id);
                LONGS.set(value, VALUE - 8, (long) ~id);
                cslm.put(key, value);
            }
            System.gc();
            System.gc();
            for (int round = 0; round < 5; round++) {
                for (boolean descending : new boolean[] {false, true}) {
                    double floor = inThreads(round, random -> floor(region, random, descending));
                    double skiplist = inThreads(round, random -> skiplist(cslm, random, descending));
                    System.out.printf("%,d pairs, %d thread(s), %s: floor %.1f ns per pair, cslm %.1f ns per pair,"
                            + " cslm / floor %.2f%n", PAIRS, THREADS, descending ? "descending" : "ascending", floor,
                            skiplist, skiplist / floor);
                }
            }
        }
    }

    /** Runs {@code scan} in {@link #THREADS} threads at once, each with its own random pairs; their mean figure. */
    private static double inThreads(int round, ToDoubleFunction<Random> scan) {
        double[] figures = new double[THREADS];
        Thread[] threads = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            Random random = new Random(round * 1_000L + t);
            threads[t] = Thread.ofPlatform().start(() -> figures[thread] = scan.applyAsDouble(random));
        }
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return Arrays.stream(figures).average().orElseThrow();
    }

    private static double floor(MemorySegment region, Random random, boolean descending) {
        long sink = 0;
        long pairs = 0;
        long start = System.nanoTime();
        while (System.nanoTime() - start < ROUND_NANOS) {
            long from = random.nextInt(PAIRS - SCAN);
            long step = descending ? -PAIR : PAIR;
            long p = descending ? (from + SCAN - 1) * PAIR : from * PAIR;
            for (int i = 0; i < SCAN; i++, p += step) {
                int key = region.get(INT, p + HEADER);
                long value = p + KEY_SLICE + HEADER + 8;
                sink += key + region.get(LONG, value + 8) + region.get(LONG, value + VALUE - 8);
            }
            pairs += SCAN;
        }
        return result(start, pairs, sink);
    }

    private static double skiplist(ConcurrentSkipListMap<byte[], byte[]> cslm, Random random, boolean descending) {
        long sink = 0;
        long pairs = 0;
        byte[] from = new byte[100];
        long start = System.nanoTime();
        while (System.nanoTime() - start < ROUND_NANOS) {
            INTS.set(from, 0, random.nextInt(PAIRS - SCAN) + (descending ? SCAN : 0));
            int n = 0;
            Map<byte[], byte[]> view = descending ? cslm.headMap(from, true).descendingMap() : cslm.tailMap(from, true);
            for (Map.Entry<byte[], byte[]> e : view.entrySet()) {
                byte[] value = e.getValue();
                sink += (int) INTS.get(e.getKey(), 0) + (long) LONGS.get(value, 8) + (long) LONGS.get(value, VALUE - 8);
                if (++n == SCAN) {
                    break;
                }
            }
            pairs += SCAN;
        }
        return result(start, pairs, sink);
    }

    private static double result(long start, long pairs, long sink) {
        if (sink == 42) {
            System.out.print(""); // keeps the reads
        }
        return (System.nanoTime() - start) / (double) pairs;
    }
}
