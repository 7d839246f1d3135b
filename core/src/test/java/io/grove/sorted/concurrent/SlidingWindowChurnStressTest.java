package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.MemoryFootprint;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No leak when several threads slide one window over one shared, ever-increasing key sequence: each step takes
 * the next key {@code k} from a shared counter, puts it and removes {@code k - WINDOW}. Threads insert into the
 * same chunks slightly out of order, so rebalances build chunks of any size (not only halves of full chunks), and
 * chunks at the left end empty out entirely without ever taking another insert. A chunk must still be compacted
 * (its removed keys freed) and merged away (its arrays and its place in the index freed) once its entries are
 * gone, whatever size it was built with.
 *
 * <p>Checked at quiescent points: after the churn the map holds exactly the window, its pool holds two live
 * slices per entry (key and value) plus the keys of removed entries that compaction has not dropped yet, which
 * the map bounds by one per live entry plus {@value #SLACK_PER_CHUNK} per chunk, and its heap footprint is a
 * bounded number of bytes per entry; after removing every key the pool holds no live slice and the heap footprint
 * is back to the empty map's. Before compaction took chunks of every size into account, two platform threads left
 * about 680,000 live slices and 44 MB of chunks for a window of 5,000 entries after 2,000,000 steps.
 *
 * <p>The existing {@link FootprintChurnStressTest} did not see this: its threads each slide a window over a key
 * range of their own, in order, so every chunk was filled in key order by one thread, split into two halves of a
 * full chunk, and emptied completely by the same thread, which always reached the old threshold of half a chunk
 * of removals; and with chunks of 8 entries, a chunk left behind held at most 3 dead keys.
 */
class SlidingWindowChurnStressTest {
    private static final int WINDOW = 5_000;
    private static final long STEPS = 400_000;
    /** Removed keys a chunk may keep beyond one per live entry (the map's minimum before it compacts). */
    private static final int SLACK_PER_CHUNK = 16;
    /** Heap bytes per entry the map may take: entries of 32 bytes in chunks at least a quarter full, and slack. */
    private static final long HEAP_BYTES_PER_ENTRY = 256;

    /** The brief's two platform threads, then each kind of thread of the stress runs; default and tiny chunks. */
    static Stream<Arguments> runs() {
        List<Arguments> runs = new ArrayList<>();
        for (int chunkSize : new int[] {GroveSortedMap.Builder.DEFAULT_CHUNK_SIZE, 8}) {
            runs.add(Arguments.of(chunkSize, "2 platform threads", 2, false));
            for (StressRun.Threads threads : StressRun.Threads.values()) {
                runs.add(Arguments.of(chunkSize, threads.toString(), threads.count, threads.virtual));
            }
        }
        return runs.stream();
    }

    @ParameterizedTest(name = "chunkSize={0}, {1}")
    @MethodSource("runs")
    void slidingWindowsOverSharedKeysKeepTheFootprintBounded(int chunkSize, String kind, int threads,
            boolean virtual) throws Exception {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(chunkSize).build()) {
            long emptyHeap = map.heapFootprint();
            ThreadFactory factory = virtual ? Thread.ofVirtual().name("window-v", 0).factory()
                    : Thread.ofPlatform().name("window-p", 0).daemon(true).factory();
            String what = "chunkSize " + chunkSize + ", " + kind;

            // the churn: put k, remove k - WINDOW
            AtomicLong next = new AtomicLong();
            ConcurrentLinkedQueue<Long> removedTooEarly = new ConcurrentLinkedQueue<>();
            StressRun churn = new StressRun();
            churn.workers(factory, threads, index -> {
                for (long i = 0; churn.proceed(i); i++) {
                    long k = next.getAndIncrement();
                    if (k >= STEPS) {
                        return;
                    }
                    map.put(k, k);
                    if (k >= WINDOW && map.remove(k - WINDOW) == null) {
                        // the thread that took k - WINDOW has not put it yet: remove it at the end
                        removedTooEarly.add(k - WINDOW);
                    }
                }
            });
            churn.runAndCheck("sliding-window churn, " + what, () -> "steps " + Math.min(next.get(), STEPS)
                    + " of " + STEPS + ", " + map.footprint() + ", heap " + map.heapFootprint());
            for (Long k : removedTooEarly) {
                assertEquals(k, map.remove(k), "key " + k + ", which a step removed before it was put");
            }

            assertEquals(WINDOW, map.size(), what);
            MemoryFootprint after = map.footprint();
            int chunks = Internals.chunks(map).length;
            String figures = what + ": " + after + ", heap " + map.heapFootprint() + ", chunks " + chunks;
            System.out.println("after the churn, " + figures);
            long deadKeys = after.liveSlices() - 2L * WINDOW;
            assertTrue(deadKeys >= 0, "fewer than two slices per entry: " + figures);
            assertTrue(deadKeys <= WINDOW + (long) SLACK_PER_CHUNK * chunks,
                    "removed keys left in the pool beyond one per entry and " + SLACK_PER_CHUNK + " per chunk: "
                    + figures);
            assertTrue(map.heapFootprint() <= emptyHeap + HEAP_BYTES_PER_ENTRY * WINDOW,
                    "heap footprint beyond " + HEAP_BYTES_PER_ENTRY + " bytes per entry: " + figures);

            // remove the window, with the same threads, in key order as the churn did
            AtomicLong toRemove = new AtomicLong(STEPS - WINDOW);
            StressRun removal = new StressRun();
            removal.workers(factory, threads, index -> {
                for (long i = 0; removal.proceed(i); i++) {
                    long k = toRemove.getAndIncrement();
                    if (k >= STEPS) {
                        return;
                    }
                    assertEquals(k, map.remove(k), "removing key " + k);
                }
            });
            removal.runAndCheck("removing the window, " + what, () -> map.footprint() + ", heap "
                    + map.heapFootprint());
            MemoryFootprint empty = map.footprint();
            String emptied = what + ": " + empty + ", heap " + map.heapFootprint() + " (empty map: " + emptyHeap
                    + "), chunks " + Internals.chunks(map).length;
            System.out.println("after removing every key, " + emptied);
            assertEquals(0, map.size(), emptied);
            assertEquals(0, empty.liveSlices(), "slices left after removing every key: " + emptied);
            assertEquals(emptyHeap, map.heapFootprint(), "heap footprint after removing every key: " + emptied);
        }
    }

    /** The threads of each kind of stress run. */
    static Stream<StressRun.Threads> threadKinds() {
        return Stream.of(StressRun.Threads.values());
    }

    /**
     * Adjacent chunks emptied at once are still merged. Each round fills a map of tiny chunks and has all threads
     * remove every key in key order, taking keys from a shared counter as the window's removal above does, so the
     * last keys of neighbouring chunks go at about the same time, with no operation after them to reach those
     * chunks. The map must end each round as one empty chunk with the empty map's heap footprint. Before a
     * rebalance merged a neighbour it had missed (another rebalancer held it), rounds ended with two empty chunks.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("threadKinds")
    void chunksEmptiedTogetherAreMerged(StressRun.Threads threads) throws Exception {
        long keys = 256;
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(3);
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(8).build()) {
            long emptyHeap = map.heapFootprint();
            for (int round = 0; System.nanoTime() - until < 0; round++) {
                for (long k = 0; k < keys; k++) {
                    map.put(k, k);
                }
                AtomicLong next = new AtomicLong();
                StressRun removal = new StressRun();
                removal.workers(threads.factory("empty"), threads.count, index -> {
                    for (long k = next.getAndIncrement(); k < keys; k = next.getAndIncrement()) {
                        assertEquals(k, map.remove(k), "removing key " + k);
                    }
                });
                int finished = round;
                removal.runAndCheck("removing every key, round " + round, () -> "round " + finished);
                String state = threads + ", round " + round + ": " + map.footprint() + ", heap "
                        + map.heapFootprint() + " (empty map: " + emptyHeap + "), chunks "
                        + Internals.chunks(map).length;
                assertEquals(0, map.size(), state);
                assertEquals(1, Internals.chunks(map).length, "chunks left after removing every key: " + state);
                assertEquals(0, map.footprint().liveSlices(), state);
                assertEquals(emptyHeap, map.heapFootprint(), state);
            }
        }
    }
}
