package io.grove.internal.sync;

import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.testing.StressRun;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ScratchPoolTest {
    /** A pooled object that knows whether a thread holds it. */
    static final class Item extends ScratchPool.Reusable {
        final AtomicBoolean held = new AtomicBoolean();

        void take() {
            if (!held.compareAndSet(false, true)) {
                throw new AssertionError("an object was handed to two threads at once");
            }
        }

        void release() {
            held.set(false);
            giveBack();
        }
    }

    private final AtomicInteger made = new AtomicInteger();
    private final ScratchPool<Item> pool = new ScratchPool<>(() -> {
        made.incrementAndGet();
        return new Item();
    });

    @Test
    void aPlatformThreadReusesItsOwnObjectAndANestedOperationGetsAnother() {
        Item own = pool.acquire();
        Item nested = pool.acquire();
        assertNotSame(own, nested);
        nested.giveBack();
        own.giveBack();
        assertSame(own, pool.acquire(), "the thread's own object again");
        assertSame(nested, pool.acquire(), "the nested one came back to the shared pool");
        assertTrue(made.get() == 2);
    }

    @Test
    void virtualThreadsReuseIdleObjectsInsteadOfMakingOnePerTask() throws Exception {
        int tasks = 20_000;
        int concurrent = 8;
        java.util.concurrent.Semaphore permits = new java.util.concurrent.Semaphore(concurrent);
        List<Future<?>> results = new ArrayList<>();
        try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < tasks; i++) {
                results.add(executor.submit(() -> {
                    permits.acquire();
                    try {
                        Item item = pool.acquire();
                        item.take();
                        Thread.yield(); // other tasks take objects meanwhile
                        item.release();
                    } finally {
                        permits.release();
                    }
                    return null;
                }));
            }
        }
        getAll(results);
        assertTrue(made.get() <= pool.capacity() + concurrent, made.get() + " objects made for " + tasks + " tasks");
    }

    @Test
    void thePoolKeepsAtMostItsCapacity() throws Exception {
        int burst = 1_000;
        CountDownLatch allHold = new CountDownLatch(burst);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> results = new ArrayList<>();
        try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < burst; i++) {
                results.add(executor.submit(() -> {
                    Item item = pool.acquire();
                    allHold.countDown();
                    go.await();
                    item.giveBack();
                    return null;
                }));
            }
            allHold.await();
            go.countDown();
        }
        getAll(results);
        assertTrue(made.get() == burst);
        int idle = 0;
        List<Future<?>> held = new ArrayList<>();
        try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
            CountDownLatch taken = new CountDownLatch(burst);
            CountDownLatch release = new CountDownLatch(1);
            for (int i = 0; i < burst; i++) {
                held.add(executor.submit(() -> {
                    Item item = pool.acquire();
                    taken.countDown();
                    release.await();
                    return item;
                }));
            }
            taken.await();
            idle = burst - (made.get() - burst);
            release.countDown();
        }
        getAll(held);
        assertTrue(idle <= pool.capacity(), idle + " idle objects were kept; capacity " + pool.capacity());
    }

    /** Waits for each task and rethrows what it threw, which its executor would otherwise keep to itself. */
    private static void getAll(List<Future<?>> results) throws InterruptedException, ExecutionException {
        for (Future<?> result : results) {
            result.get();
        }
    }

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void noObjectIsEverHeldByTwoThreads(StressRun.Threads threads) throws Exception {
        AtomicLong operations = new AtomicLong();
        StressRun run = new StressRun();
        run.workers(threads.factory("user"), threads.count, index -> {
            for (long i = 0; i < 20_000 && run.proceed(i); i++) {
                Item outer = pool.acquire();
                outer.take();
                if ((i & 3) == 0) { // a nested operation
                    Item inner = pool.acquire();
                    inner.take();
                    inner.release();
                }
                outer.release();
                operations.incrementAndGet();
            }
        });
        run.runAndCheck("scratch pool, " + threads, () -> operations.get() + " operations, " + made.get() + " made");
    }
}
