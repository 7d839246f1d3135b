package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.WriteBatch;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Batches of {@value #BATCH} operations finish while single-key writers keep changing their keys and rebalancing
 * their chunks: a batch that gives its claims up whenever it meets a held value or a frozen chunk must still get
 * through (no livelock), and its values must be there when it returns unless a writer changed the key since. The
 * batch writer writes generation {@code g} to every even key below {@value #KEYS} and removes every key divisible
 * by 3; the churn threads put {@code -1} or remove random keys of the same range, so every batch's keys are
 * contended. After each batch the batch writer checks what it can: a key it wrote holds its generation, a churn
 * value ({@code -1}) or nothing (a churn removal), never an older generation, and a key it removed is absent or
 * holds a churn value. Fails on a batch that loses operations: with one in 64 dropped at random (a key keeps the
 * previous batch's generation; checked by hand when the test was written).
 */
class LargeBatchUnderChurnTest {
    private static final int KEYS = 30_000;
    private static final int BATCH = 10_000;
    private static final int BATCHES = 12;
    private static final int CHURN = 3;

    @ParameterizedTest
    @EnumSource(value = StressRun.Threads.class, names = {"PLATFORM_MORE_THAN_CORES", "VIRTUAL"})
    void largeBatchesGetThroughContendedKeys(StressRun.Threads threads) throws Exception {
        AtomicInteger batchesDone = new AtomicInteger();
        AtomicLong churnWrites = new AtomicLong();
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(64).memoryLimit(256L << 20).build()) {
            StressRun run = new StressRun();
            run.workers(threads.factory("large-batch"), 1, index -> {
                for (int g = 1; g <= BATCHES && run.proceed(g); g++) {
                    WriteBatch<Long, Long> batch = map.batch();
                    for (long k = 0; k < 3L * BATCH; k += 3) { // 10,000 keys: every third one
                        if (k % 2 == 0) {
                            batch.put(k, (long) g);
                        } else {
                            batch.remove(k);
                        }
                    }
                    assertEquals(BATCH, batch.size());
                    batch.apply();
                    for (long k = 0; k < 3L * BATCH; k += 3) {
                        Long v = map.get(k);
                        boolean ok = v == null || v == -1 || (k % 2 == 0 && v == g); // a churn write or this batch's
                        assertTrue(ok, "key " + k + " holds " + v + " after batch " + g);
                    }
                    batchesDone.incrementAndGet();
                }
            });
            run.workers(threads.factory("churn"), CHURN, index -> {
                SplittableRandom random = new SplittableRandom(index);
                long writes = 0;
                for (long i = 0; batchesDone.get() < BATCHES && run.proceed(i); i++) {
                    long k = random.nextInt(KEYS);
                    if (random.nextBoolean()) {
                        map.put(k, -1L);
                    } else {
                        map.remove(k);
                    }
                    writes++;
                }
                churnWrites.addAndGet(writes);
            });
            long millis = run.runAndCheck("large batches under churn, " + threads,
                    () -> batchesDone + " batches, " + churnWrites + " churn writes");
            System.out.println("large batches under churn, " + threads + ": " + BATCHES + " batches of " + BATCH
                    + " in " + millis + " ms beside " + churnWrites + " single-key writes");
        }
        assertEquals(BATCHES, batchesDone.get());
        assertTrue(churnWrites.get() > 10_000, () -> "vacuous: " + churnWrites + " churn writes");
    }
}
