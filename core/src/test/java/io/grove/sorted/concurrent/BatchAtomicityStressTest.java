package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.WriteBatch;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import io.grove.view.Handle;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * No reader ever sees part of a batch, while batches, single-key writers and rebalances run under it and Nova
 * reuses the memory of replaced values. {@value #GROUPS} groups of {@value #GROUP_KEYS} keys, interleaved over the
 * key space (key {@code 2 * (j * GROUPS + g)} is the {@code j}-th of group {@code g}), each written by one batch
 * writer that puts generation 1, 2, 3... to every key of its group in one batch; churn threads put and remove the
 * odd keys between them, so chunks of four entries split and merge all the time. A batch seen in part shows as a
 * reader seeing a key of a group at a generation and then, later, another key of the group at an older one:
 * readers look for that in two gets in a row, for a zero-copy get then another, and along ascending and descending
 * scans of the whole map (a scan reads its keys one after the other). Every value also names its group and carries
 * a check byte, so bytes of another entry, or reused memory, fail the check. The writers go on until each reader
 * made {@value #MIN_READS} reads, and the run must check over 10,000 pairs and 20 scans.
 *
 * <p>Fails on a batch made visible key by key (committing after the install instead of before): checked by hand
 * when this test was written.
 */
class BatchAtomicityStressTest {
    private static final int GROUPS = 6;
    private static final int GROUP_KEYS = 12;
    private static final int GENERATIONS = 4_000;
    private static final int CHURN = 2;
    private static final int READERS = 4;
    /** Reads each reader makes at least: the writers go on past their generations until every reader made them. */
    private static final int MIN_READS = 5_000;

    @ParameterizedTest
    @EnumSource(value = StressRun.Threads.class, names = {"PLATFORM_MORE_THAN_CORES", "VIRTUAL"})
    void readersNeverSeePartOfABatch(StressRun.Threads threads) throws Exception {
        AtomicInteger writing = new AtomicInteger(GROUPS);
        AtomicInteger readersDone = new AtomicInteger();
        AtomicLong batches = new AtomicLong();
        AtomicLong pairsChecked = new AtomicLong();
        AtomicLong scans = new AtomicLong();
        AtomicLong handlesReplaced = new AtomicLong();
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).memoryLimit(64L << 20).build()) {
            for (int g = 0; g < GROUPS; g++) {
                writeGeneration(map, g, 0);
            }
            StressRun run = new StressRun();
            run.workers(threads.factory("batch-writer"), GROUPS, g -> {
                try {
                    int gen = 1;
                    for (; (gen <= GENERATIONS || readersDone.get() < READERS) && run.proceed(gen); gen++) {
                        writeGeneration(map, g, gen);
                    }
                    batches.addAndGet(gen - 1);
                } finally {
                    writing.decrementAndGet();
                }
            });
            run.workers(threads.factory("churn"), CHURN, index -> {
                SplittableRandom random = new SplittableRandom(index);
                for (long i = 0; writing.get() > 0 && run.proceed(i); i++) {
                    long k = 2L * random.nextInt(GROUPS * GROUP_KEYS) + 1;
                    if (random.nextBoolean()) {
                        map.put(k, k);
                    } else {
                        map.remove(k);
                    }
                }
            });
            run.workers(threads.factory("reader"), READERS, index -> {
                SplittableRandom random = new SplittableRandom(100 + index);
                long pairs = 0;
                for (long i = 0; writing.get() > 0 && run.proceed(i); i++) {
                    if (i == MIN_READS) {
                        readersDone.incrementAndGet();
                    }
                    int g = random.nextInt(GROUPS);
                    long first = keyOf(random.nextInt(GROUP_KEYS), g);
                    long second = keyOf(random.nextInt(GROUP_KEYS), g);
                    switch (random.nextInt(8)) {
                        case 0 -> scans.addAndGet(scan(map.entrySet().iterator()));
                        case 1 -> scans.addAndGet(scan(map.descendingMap().entrySet().iterator()));
                        case 2 -> {
                            try {
                                long a = readHandle(map.zc().get(first));
                                long b = readHandle(map.zc().get(second));
                                checkInOrder(first, a, second, b);
                                pairs++;
                            } catch (ConcurrentModificationException replaced) { // a batch replaced the value
                                handlesReplaced.incrementAndGet();
                            }
                        }
                        default -> {
                            long a = map.get(first);
                            long b = map.get(second);
                            checkInOrder(first, a, second, b);
                            pairs++;
                        }
                    }
                }
                pairsChecked.addAndGet(pairs);
            });
            run.runAndCheck("batch atomicity, " + threads, () -> pairsChecked + " pairs, " + scans + " scans");
        }
        System.out.println("batch atomicity, " + threads + ": " + batches + " batches, " + pairsChecked
                + " pairs and " + scans + " scans checked, " + handlesReplaced + " handles found replaced");
        assertTrue(pairsChecked.get() > 10_000, () -> "vacuous: " + pairsChecked + " pairs");
        assertTrue(scans.get() > 20, () -> "vacuous: " + scans + " scans");
    }

    private static long keyOf(int j, int g) {
        return 2L * (j * GROUPS + g);
    }

    private static void writeGeneration(GroveSortedMap<Long, Long> map, int g, int gen) {
        WriteBatch<Long, Long> batch = map.batch();
        for (int j = 0; j < GROUP_KEYS; j++) {
            batch.put(keyOf(j, g), valueOf(g, gen));
        }
        batch.apply();
    }

    /** Generation, group and a check byte derived from both. */
    private static long valueOf(int g, int gen) {
        return ((long) gen << 16) | (g << 8) | check(g, gen);
    }

    private static int check(int g, long gen) {
        return (int) ((gen * 31 + g * 17L + 5) & 0xFF);
    }

    /** The generation of {@code value}, read at {@code key}, after checking it belongs there. */
    private static long generationOf(long key, long value) {
        int g = (int) ((key / 2) % GROUPS);
        long gen = value >>> 16;
        if (((value >>> 8) & 0xFF) != g || (value & 0xFF) != check(g, gen)) {
            throw new AssertionError("key " + key + " holds " + Long.toHexString(value) + ", not a value of group "
                    + g + ": bytes of another entry or reused memory");
        }
        return gen;
    }

    private static void checkInOrder(long firstKey, long first, long secondKey, long second) {
        long a = generationOf(firstKey, first);
        long b = generationOf(secondKey, second);
        if (b < a) {
            throw new AssertionError("key " + secondKey + " read at generation " + b + " after key " + firstKey
                    + " of the same group was read at generation " + a + ": part of a batch was visible");
        }
    }

    private static long readHandle(Handle handle) {
        return handle.read(v -> v.getLong(0)) ^ Long.MIN_VALUE; // Serializers.longs(): sign bit flipped
    }

    /** Checks the generations along a scan: per group never lower than the last seen. Returns 1. */
    private static int scan(Iterator<Map.Entry<Long, Long>> entries) {
        long[] lastKey = new long[GROUPS];
        long[] last = new long[GROUPS];
        java.util.Arrays.fill(last, -1);
        while (entries.hasNext()) {
            Map.Entry<Long, Long> e = entries.next();
            long k = e.getKey();
            if (k % 2 == 1) {
                continue; // a churn key
            }
            int g = (int) ((k / 2) % GROUPS);
            long gen = generationOf(k, e.getValue());
            if (gen < last[g]) {
                throw new AssertionError("a scan read key " + k + " at generation " + gen + " after key "
                        + lastKey[g] + " of the same group at generation " + last[g] + ": part of a batch");
            }
            last[g] = gen;
            lastKey[g] = k;
        }
        return 1;
    }
}
