package io.grove.internal.sorted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A function passed to an operation (compute, computeIfAbsent, computeIfPresent, merge, a zero-copy computer)
 * that calls the same map in a way that would wait for its own thread gets {@link IllegalStateException}
 * ("Recursive update", as {@link java.util.concurrent.ConcurrentHashMap} throws) instead of hanging, and the
 * nested call changes nothing: an update or a copying read of the key whose value the operation holds locked, an
 * insert that fills the chunk the operation is published in, a call that waits for a rebalance that waits for
 * the operation, and {@code close()}. Each case runs on a platform and on a virtual thread and is bounded in time
 * (before detection, each one hung). Nested calls that wait for nothing of their own thread still work.
 */
class RecursiveUpdateTest {
    private static final Duration LIMIT = Duration.ofSeconds(10);

    private static GroveSortedMap<Long, Long> map(int chunkSize) {
        GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(chunkSize).build();
        for (long k = 10; k <= 40; k += 10) {
            map.put(k, k);
        }
        return map;
    }

    /** Runs {@code body} on a thread of the kind, within the limit. */
    private static void onThread(boolean virtual, Consumer<Void> body) {
        assertTimeoutPreemptively(LIMIT, () -> {
            CompletableFuture<Void> done = new CompletableFuture<>();
            (virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon(true)).start(() -> {
                try {
                    body.accept(null);
                    done.complete(null);
                } catch (Throwable e) {
                    done.completeExceptionally(e);
                }
            });
            try {
                done.get();
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof Error error) {
                    throw error;
                }
                throw new AssertionError(e.getCause());
            }
        }, "the nested call hung");
    }

    /** {@code outer} throws the nested call's "Recursive update", and the map holds what it held before. */
    private static void recursive(GroveSortedMap<Long, Long> map, Runnable outer) {
        Map<Long, Long> before = new TreeMap<>(map);
        IllegalStateException e = assertThrows(IllegalStateException.class, outer::run);
        assertTrue(e.getMessage().startsWith("Recursive update"), e.getMessage());
        assertEquals(before, new TreeMap<>(map), "the map changed");
    }

    @ParameterizedTest(name = "virtual={0}")
    @ValueSource(booleans = {false, true})
    void anUpdateOfTheKeyWhoseValueTheOperationHoldsThrows(boolean virtual) {
        onThread(virtual, x -> {
            try (GroveSortedMap<Long, Long> map = map(GroveSortedMap.Builder.DEFAULT_CHUNK_SIZE)) {
                recursive(map, () -> map.compute(20L, (k, v) -> map.put(20L, 1L)));
                recursive(map, () -> map.computeIfPresent(20L, (k, v) -> map.remove(20L)));
                recursive(map, () -> map.merge(20L, 5L, (a, b) -> map.merge(20L, 1L, Long::sum)));
                recursive(map, () -> map.compute(20L, (k, v) -> {
                    map.zc().computeIfPresent(20L, view -> view.putLong(0, 0));
                    return v;
                }));
                recursive(map, () -> map.zc().computeIfPresent(20L, view -> map.replace(20L, 7L)));
                recursive(map, () -> map.zc().putIfAbsentComputeIfPresent(20L, 1L, view -> map.zc().remove(20L)));
                // an absent key: the operation holds the placeholder it installed
                recursive(map, () -> map.computeIfAbsent(25L, k -> map.putIfAbsent(25L, 1L)));
                recursive(map, () -> map.compute(25L, (k, v) -> map.compute(25L, (kk, vv) -> 1L)));
                // the map is still usable, and so is the key
                assertEquals(21L, map.merge(20L, 1L, Long::sum));
                assertEquals(21L, map.get(20L));
            }
        });
    }

    @ParameterizedTest(name = "virtual={0}")
    @ValueSource(booleans = {false, true})
    void aCopyingReadOfTheKeyBeingUpdatedThrows(boolean virtual) {
        onThread(virtual, x -> {
            try (GroveSortedMap<Long, Long> map = map(GroveSortedMap.Builder.DEFAULT_CHUNK_SIZE)) {
                recursive(map, () -> map.zc().computeIfPresent(20L, view -> map.get(20L)));
                recursive(map, () -> map.compute(20L, (k, v) -> map.get(20L)));
                // a handle on the value being updated in place reads under its lock: it would wait for itself
                recursive(map, () -> map.zc().computeIfPresent(20L, view -> map.zc().get(20L).getLong(0)));
                io.grove.view.Handle held = map.zc().get(20L);
                recursive(map, () -> map.zc().computeIfPresent(20L, view -> held.read(v -> v.getLong(0))));
                recursive(map, () -> map.compute(20L, (k, v) -> {
                    map.entrySet().forEach(e -> { }); // an entry scan reads every value
                    return v;
                }));
                // reads that do not wait for the held value still work
                assertTrue(map.zc().computeIfPresent(20L, view -> {
                    assertEquals(30L, map.get(30L));
                    assertTrue(map.containsKey(20L));
                    assertEquals(4, map.keySet().size());
                    assertEquals(8, map.zc().get(20L).size());
                }));
                assertEquals(10L, map.compute(10L, (k, v) -> map.get(40L) / 4));
                // a nested get of a key being computed while absent sees it absent
                assertNull(map.computeIfAbsent(25L, k -> map.get(25L)));
            }
        });
    }

    @ParameterizedTest(name = "virtual={0}")
    @ValueSource(booleans = {false, true})
    void anInsertThatFillsTheOperationsOwnChunkThrows(boolean virtual) {
        onThread(virtual, x -> {
            // chunks of 4 entries: 10, 20, 30, 40 fill the only chunk; 25 would have to rebalance it
            try (GroveSortedMap<Long, Long> map = map(4)) {
                recursive(map, () -> map.compute(20L, (k, v) -> map.put(25L, 25L)));
                recursive(map, () -> map.zc().computeIfPresent(30L, view -> map.putIfAbsent(35L, 35L)));
                assertFalse(map.containsKey(25L));
                assertEquals(30L, map.get(30L));
                // from outside any function, the same insert splits the chunk
                assertNull(map.put(25L, 25L));
                assertEquals(5, map.size());
                // an insert that fits does not wait: it works inside a function
                assertEquals(21L, map.compute(20L, (k, v) -> {
                    map.put(26L, 26L);
                    return v + 1;
                }));
                assertEquals(26L, map.get(26L));
            }
        });
    }

    @ParameterizedTest(name = "virtual={0}")
    @ValueSource(booleans = {false, true})
    void aCallThatWaitsForARebalanceThatWaitsForTheOperationThrows(boolean virtual) {
        onThread(virtual, x -> {
            try (GroveSortedMap<Long, Long> map = map(4)) {
                Chunk chunk = ((OffHeapSortedMap<Long, Long>) map).map.index.first();
                CompletableFuture<Long> rebalancing = new CompletableFuture<>();
                Map<Long, Long> expected = new TreeMap<>(map);
                expected.put(15L, 15L);
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> map.compute(20L, (k, v) -> {
                    // another thread inserts into the full chunk: its rebalance freezes the chunk, then waits for
                    // this operation; a nested insert here must not wait for that rebalance
                    Thread.ofPlatform().daemon(true).start(() -> rebalancing.complete(map.put(15L, 15L)));
                    for (long t = System.nanoTime(); chunk.isActive(); ) {
                        assertTrue(System.nanoTime() - t < TimeUnit.SECONDS.toNanos(5), "no rebalance froze it");
                        Thread.onSpinWait();
                    }
                    return map.put(12L, 12L);
                }));
                assertTrue(e.getMessage().startsWith("Recursive update"), e.getMessage());
                try {
                    assertNull(rebalancing.get(5, TimeUnit.SECONDS));
                } catch (Exception failure) {
                    throw new AssertionError(failure);
                }
                // compared once the other thread's insert is done: it proceeds as soon as the outer call throws
                assertEquals(expected, new TreeMap<>(map), "the map changed beyond the other thread's insert");
            }
        });
    }

    @ParameterizedTest(name = "virtual={0}")
    @ValueSource(booleans = {false, true})
    @SuppressWarnings("try") // close() is called inside the try on purpose: from a function of the map
    void closeFromInsideAFunctionThrowsAndLeavesTheMapOpen(boolean virtual) {
        onThread(virtual, x -> {
            try (GroveSortedMap<Long, Long> map = map(GroveSortedMap.Builder.DEFAULT_CHUNK_SIZE)) {
                recursive(map, () -> map.compute(20L, (k, v) -> {
                    map.close();
                    return v;
                }));
                recursive(map, () -> map.zc().computeIfPresent(20L, view -> map.close()));
                assertEquals(20L, map.get(20L));
                assertNull(map.put(50L, 50L));
            }
        });
    }
}
