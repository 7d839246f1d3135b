package io.grove.hash.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.GroveHashMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Liveness when the holder of a segment lock blocks: a pool with 64 KiB blocks reserves a new block every few
 * hundred inserts, under a monitor, and the thread that needs it holds its segment's lock meanwhile; other
 * writers contend for that monitor while holding their own segment locks, and more writers spin on those
 * locks. Every thread must still finish its work.
 *
 * <p>With virtual threads this is where a spin lock whose waiters only spin and yield stops the whole map (it did,
 * until the waiters learned to park): a writer blocked on the monitor unmounts; when the monitor is released it
 * is made runnable again by the JDK's unblocker thread, through the scheduler's external queue; a yielding
 * virtual thread requeues itself on its carrier's local queue when that queue is not empty, and a carrier drains
 * its local queue before it looks elsewhere. With a few spinning waiters per carrier the local queues never empty,
 * the unblocked writer never runs, the lock it holds is never released, and the waiters spin forever.
 */
class LockHolderBlocksStressTest {
    private static final long TOTAL_ITERATIONS = 128_000;
    private static final int HOT_KEYS = 4_096;

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void writersFinishWhileLockHoldersWaitForNewBlocks(StressRun.Threads threads) throws Exception {
        MemoryPool pool = MemoryPool.builder().blockSize(1 << 16).build();
        GroveHashMap<Long, byte[]> map = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
                .pool(pool).expectedSize(1).build();
        // on a failure only the pool is closed: closing the map would wait for segment locks a hung writer holds,
        // while closing the pool makes every thread still inside the map fail with IllegalStateException
        try (pool) {
            AtomicLong next = new AtomicLong(HOT_KEYS);
            AtomicLong done = new AtomicLong();
            long perThread = TOTAL_ITERATIONS / threads.count;
            StressRun run = new StressRun();
            run.workers(threads.factory("blocking-holder"), threads.count, index -> {
                long i = 0;
                for (; i < perThread && run.proceed(i); i++) {
                    long k = next.getAndIncrement();
                    map.put(k % HOT_KEYS, new byte[100]); // contended segment locks
                    map.put(k, new byte[100]); // ever-new keys: the pool keeps reserving blocks
                }
                done.addAndGet(i);
            });
            run.runAndCheck("writers with blocking lock holders, " + threads, () -> "iterations " + done.get() + " of "
                    + perThread * threads.count + ", blocks reserved " + (pool.footprint().reservedBytes() >> 16));
            assertEquals(HOT_KEYS + perThread * threads.count, map.size());
            map.close();
        }
    }
}
