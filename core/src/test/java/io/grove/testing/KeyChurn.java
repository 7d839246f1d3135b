package io.grove.testing;

import io.grove.ZeroCopyMap;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The churn of the footprint stress tests of the hash map and the sorted map: each thread inserts ever-new keys of
 * its own (its number in the high bits, increasing low bits), with values of 1 to 199 bytes, replaces or resizes
 * in place some of them, and removes each key {@code window} inserts after inserting it, so the live set stays
 * the same while many more bytes pass through the map.
 */
public final class KeyChurn {
    private KeyChurn() {}

    /**
     * Each thread inserts {@code inserts} new keys of its own into {@code map} (whose zero-copy API is {@code zc}),
     * starting at {@code nextKey[thread]} (updated at the end), removing each {@code window} inserts later.
     * {@code footprint} describes the map's memory in the run's progress figures.
     */
    public static void churn(ConcurrentMap<Long, byte[]> map, ZeroCopyMap<Long, byte[]> zc, StressRun.Threads threads,
            int window, long[] nextKey, long inserts, String phase, Supplier<String> footprint) throws Exception {
        AtomicLong done = new AtomicLong();
        StressRun run = new StressRun();
        run.workers(threads.factory("churn"), threads.count, index -> {
            SplittableRandom random = new SplittableRandom(index + 31L * nextKey[index]);
            long base = (long) index << 40;
            long next = nextKey[index];
            long i = 0;
            try {
                for (; i < inserts && run.proceed(i); i++, next++) {
                    long k = base | next;
                    if (map.putIfAbsent(k, new byte[random.nextInt(1, 200)]) != null) {
                        throw new AssertionError("new key " + k + " was present");
                    }
                    switch (random.nextInt(8)) {
                        case 0 -> map.put(k, new byte[random.nextInt(1, 200)]);
                        case 1 -> zc.computeIfPresent(k, v -> v.resize(random.nextInt(1, 300)));
                        default -> { }
                    }
                    if (next >= window && map.remove(base | (next - window)) == null) {
                        throw new AssertionError("key " + (base | (next - window)) + " was missing");
                    }
                }
            } finally {
                nextKey[index] = next;
                done.addAndGet(i);
            }
        });
        run.runAndCheck(phase + " with " + threads, () -> "inserts " + done.get() + " of " + inserts * threads.count
                + ", footprint " + footprint.get());
    }
}
