package io.grove.sorted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * While {@code computeIfAbsent} runs its function on an absent key, the key's placeholder is locked but not marked
 * stamping ({@code ValueHeader}): a get or containsKey of that key, from the function itself or from another thread,
 * answers "absent" at once instead of waiting for the function, with or without snapshots. (Were the placeholder
 * marked, the function's own get would wait for itself. Checked by hand: with presence checks waiting on every
 * locked placeholder, both cases failed by their 5 s timeout.)
 */
class PresenceDuringComputeTest {
    @ParameterizedTest(name = "snapshots: {0}")
    @ValueSource(booleans = {false, true})
    void anAbsentKeyReadsAbsentWhileItsFunctionRuns(boolean snapshots) throws Exception {
        GroveSortedMap.Builder<Long, Long> builder = GroveSortedMap.builder(Serializers.longs(), Serializers.longs());
        ExecutorService threads = Executors.newCachedThreadPool(Thread.ofPlatform().daemon(true).factory());
        try (GroveSortedMap<Long, Long> map = (snapshots ? builder.snapshots() : builder).build()) {
            CountDownLatch inFunction = new CountDownLatch(1);
            CountDownLatch otherDone = new CountDownLatch(1);
            CompletableFuture<Long> computed = CompletableFuture.supplyAsync(() -> map.computeIfAbsent(7L, k -> {
                assertNull(map.get(7L));
                assertFalse(map.containsKey(7L));
                inFunction.countDown();
                try {
                    otherDone.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return 70L;
            }), threads);
            inFunction.await(10, TimeUnit.SECONDS);
            CompletableFuture<Long> other = CompletableFuture.supplyAsync(() -> map.get(7L), threads);
            assertNull(other.get(5, TimeUnit.SECONDS));
            otherDone.countDown();
            assertEquals(70L, computed.get(10, TimeUnit.SECONDS));
            assertEquals(70L, map.get(7L));
        } finally {
            threads.shutdownNow(); // (daemon threads: one stuck by a broken map does not hold the JVM)
        }
    }
}
