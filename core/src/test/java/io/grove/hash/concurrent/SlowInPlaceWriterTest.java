package io.grove.hash.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A zero-copy in-place update whose function runs long (here: until the test releases it) delays only readers of
 * its own key. Before entries had stamps of their own, the update kept its segment's version odd, so lock-free
 * reads of every key of that segment (about 1/16 of the keys) waited for the function.
 */
class SlowInPlaceWriterTest {
    private static final long KEYS = 4_096;
    private static final long SLOW_KEY = 7;

    @Test
    void readsOfOtherKeysCompleteWhileAnInPlaceUpdateRuns() throws Exception {
        try (MemoryPool pool = MemoryPool.builder().memoryLimit(64L << 20).build(); // 16 segments
                GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                        .pool(pool).build()) {
            for (long k = 0; k < KEYS; k++) {
                map.put(k, k);
            }
            int slowSegment = Internals.segmentOfLongKey(map, SLOW_KEY);
            long sameSegment = 0;
            for (long k = 0; k < KEYS; k++) {
                sameSegment += Internals.segmentOfLongKey(map, k) == slowSegment ? 1 : 0;
            }
            assertTrue(sameSegment > 100, "the test needs many keys in the slow key's segment: " + sameSegment);

            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicReference<Throwable> writerFailure = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    map.zc().computeIfPresent(SLOW_KEY, view -> {
                        inside.countDown();
                        awaitUninterruptibly(release);
                        view.putLong(0, view.getLong(0) + 1);
                    });
                } catch (Throwable e) {
                    writerFailure.set(e);
                }
            });
            try {
                assertTrue(inside.await(10, TimeUnit.SECONDS), "the update did not start");
                // Every other key, by every lock-free read path, while the function is still running.
                assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                    for (long k = 0; k < KEYS; k++) {
                        if (k == SLOW_KEY) {
                            continue;
                        }
                        assertEquals(k, map.get(k));
                        assertTrue(map.containsKey(k));
                        assertEquals(k, Serializers.longs().read(map.zc().get(k)));
                    }
                }, "reads of other keys waited for the in-place update of key " + SLOW_KEY);

                // A read of the key being updated waits for the update, and then sees its result.
                AtomicLong seen = new AtomicLong(-1);
                Thread sameKeyReader = Thread.ofPlatform().start(() -> seen.set(map.get(SLOW_KEY)));
                sameKeyReader.join(300);
                assertTrue(sameKeyReader.isAlive(), "a read of the key being updated did not wait: saw " + seen);
                release.countDown();
                sameKeyReader.join(10_000);
                assertEquals(SLOW_KEY + 1, seen.get(), "the waiting read saw the value from before the update");
            } finally {
                release.countDown();
                writer.join(10_000);
            }
            assertEquals(null, writerFailure.get());
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                // the test decides when the function ends
            }
        }
    }
}
