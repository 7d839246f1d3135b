package io.grove.internal.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * A map used from a virtual thread per task (the way virtual threads are meant to be used) allocates no working
 * memory per task: each task takes an idle scratch and gives it back. Measured as the heap bytes all threads
 * allocate per task, less what a task that does not use the map allocates (the thread itself).
 */
class VirtualThreadScratchTest {
    private static final int TASKS = 20_000;
    /** Allowed per task beyond the thread itself: far below a scratch (views, key buffer, thread-local entry). */
    private static final double MAX_EXTRA_BYTES_PER_TASK = 64;
    private static final Long KEY = 5L;
    private static volatile Object sink;

    @Test
    void hashMapGetsOnVirtualThreadsAllocateNoScratchPerTask() throws Exception {
        try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs()).build()) {
            assertNoScratchPerTask("GroveHashMap", map);
        }
    }

    @Test
    void sortedMapGetsOnVirtualThreadsAllocateNoScratchPerTask() throws Exception {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .build()) {
            assertNoScratchPerTask("GroveSortedMap", map);
        }
    }

    private static void assertNoScratchPerTask(String what, Map<Long, Long> map) throws Exception {
        map.put(KEY, 7L);
        double extra = Double.MAX_VALUE;
        for (int round = 0; round < 5; round++) { // the first rounds warm up; the least noisy round counts
            double bare = bytesPerTask(() -> sink = KEY);
            double withGet = bytesPerTask(() -> sink = map.get(KEY));
            extra = Math.min(extra, withGet - bare);
        }
        assertEquals(7L, map.get(KEY));
        double measured = extra;
        assertTrue(measured < MAX_EXTRA_BYTES_PER_TASK,
                () -> what + ".get on a virtual thread per task allocated " + measured + " bytes per task");
    }

    private static double bytesPerTask(Runnable task) throws Exception {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getTotalThreadAllocatedBytes();
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < TASKS; i++) {
                executor.execute(task);
            }
        }
        return (threads.getTotalThreadAllocatedBytes() - before) / (double) TASKS;
    }
}
