package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A zero-copy {@code computeIfPresent} whose lambda runs long (here: blocks on a latch) holds only its own key's
 * value lock and keeps its chunk published: reads of every other key (lookups, zero-copy gets, navigation, scans
 * that do not read that key's value, key-only scans that pass it) complete meanwhile, also in the chunk a
 * rebalance has frozen and is waiting to drain (an insert that filled the chunk is stuck behind the lambda), and
 * a write elsewhere completes too. A {@code get} of the very key being updated waits for the lambda (the Oak
 * paper's in-place updates exclude readers of their value) and returns the updated value.
 *
 * <p>Bounded in time: the lambda waits on the latch at most {@value #LAMBDA_LIMIT_SECONDS} s, the reads must all
 * finish within {@value #READS_LIMIT_SECONDS} s while it waits, and the latch is released in any case.
 */
class SlowInPlaceUpdateTest {
    private static final long SLOW = 5_000;
    private static final int LAMBDA_LIMIT_SECONDS = 30;
    private static final int READS_LIMIT_SECONDS = 10;

    @ParameterizedTest(name = "chunkSize={0}, virtual={1}")
    @CsvSource({"8, false", "8, true", "4096, false", "4096, true"})
    void readsOfOtherKeysDoNotWaitForASlowInPlaceUpdate(int chunkSize, boolean virtual) throws Exception {
        ThreadFactory threads = virtual ? Thread.ofVirtual().factory() : Thread.ofPlatform().daemon(true).factory();
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(chunkSize).build()) {
            for (long k = 0; k < 10_000; k += 10) {
                map.put(k, k);
            }
            CountDownLatch inLambda = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Boolean> slow = start(threads, () -> map.zc().computeIfPresent(SLOW, v -> {
                inLambda.countDown();
                try {
                    release.await(LAMBDA_LIMIT_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                v.putLong(0, (SLOW + 1) ^ Long.MIN_VALUE); // the serialized form of SLOW + 1: sign bit flipped
            }));
            try {
                assertTrue(inLambda.await(READS_LIMIT_SECONDS, TimeUnit.SECONDS), "the slow lambda did not start");
                // fill the slow key's chunk: its rebalance freezes it and waits for the lambda
                CompletableFuture<Object> filler = start(threads, () -> {
                    for (long k = SLOW + 1; k < SLOW + 10; k++) {
                        map.put(k, k);
                    }
                    return null;
                });
                CompletableFuture<List<String>> reads = start(threads, () -> readOthers(map));
                List<String> done;
                try {
                    done = reads.get(READS_LIMIT_SECONDS, TimeUnit.SECONDS);
                } catch (TimeoutException stuck) {
                    throw new AssertionError("reads of other keys waited for the slow in-place update of " + SLOW);
                }
                assertEquals(READS, done.size(), "reads done: " + done);
                assertFalse(slow.isDone(), "the lambda ended before the reads: the test proved nothing");
                if (chunkSize == 8) {
                    assertFalse(filler.isDone(), "the inserts into the slow key's full chunk did not wait for its"
                            + " rebalance, which waits for the lambda: the frozen chunk was not exercised");
                }
                CompletableFuture<Long> sameKey = start(threads, () -> map.get(SLOW));
                release.countDown();
                assertTrue(slow.get(LAMBDA_LIMIT_SECONDS, TimeUnit.SECONDS));
                assertEquals(SLOW + 1, sameKey.get(LAMBDA_LIMIT_SECONDS, TimeUnit.SECONDS));
                filler.get(LAMBDA_LIMIT_SECONDS, TimeUnit.SECONDS);
                assertEquals(SLOW + 9, map.get(SLOW + 9));
            } finally {
                release.countDown();
            }
        }
    }

    private static final int READS = 12;

    /** Reads of keys other than {@link #SLOW} (or that pass it without reading its value); names what was done. */
    private static List<String> readOthers(GroveSortedMap<Long, Long> map) {
        List<String> done = new ArrayList<>();
        assertEquals(SLOW - 10, map.get(SLOW - 10));
        assertEquals(SLOW + 10, map.get(SLOW + 10));
        done.add("get of the neighbours");
        assertTrue(map.containsKey(SLOW - 10) && map.containsKey(SLOW) && !map.containsKey(SLOW + 15));
        done.add("containsKey, of the slow key too");
        assertEquals(8, map.zc().get(SLOW + 10).size());
        assertNotNull(map.zc().get(SLOW), "a handle on the slow key's value");
        done.add("zero-copy get, of the slow key too");
        assertEquals(SLOW - 10, map.lowerKey(SLOW));
        assertEquals(SLOW + 10, map.higherKey(SLOW + 9)); // the filler inserts SLOW + 1 to SLOW + 9
        assertEquals(SLOW - 10, map.lowerEntry(SLOW).getValue());
        assertEquals(SLOW + 10, map.higherEntry(SLOW + 9).getValue());
        done.add("navigation around it");
        long keys = 0;
        for (Long k : map.keySet()) {
            keys += k == SLOW ? 1 : 0;
        }
        assertEquals(1, keys);
        assertTrue(map.descendingKeySet().contains(SLOW));
        done.add("key-only scans over the slow key");
        int n = 0;
        for (Map.Entry<Long, Long> e : map.headMap(SLOW, false).entrySet()) {
            assertEquals(e.getKey(), e.getValue());
            n++;
        }
        assertEquals(SLOW / 10, n);
        done.add("an entry scan up to it");
        for (Long v : map.tailMap(SLOW, false).descendingMap().values()) {
            assertTrue(v > SLOW);
        }
        done.add("a descending value scan down to it");
        assertTrue(map.zc().entryStream().count() >= 1_000);
        done.add("a zero-copy entry stream over it");
        assertEquals(0L, map.firstKey());
        assertEquals(9_990L, map.lastKey());
        done.add("firstKey, lastKey");
        map.put(20_000L, 1L);
        assertEquals(1L, map.remove(20_000L));
        done.add("a write of another key (in another chunk when chunks are small)");
        assertNull(map.get(SLOW + 11));
        done.add("get of an absent key");
        assertTrue(map.size() > 0);
        done.add("size");
        return done;
    }

    private static <T> CompletableFuture<T> start(ThreadFactory threads, Callable<T> task) {
        CompletableFuture<T> future = new CompletableFuture<>();
        threads.newThread(() -> {
            try {
                future.complete(task.call());
            } catch (Throwable e) {
                future.completeExceptionally(e);
            }
        }).start();
        return future;
    }

    private interface Callable<T> {
        T call() throws Exception;
    }
}
