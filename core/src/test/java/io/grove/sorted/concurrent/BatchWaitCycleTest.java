package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.RepeatedTest;

/**
 * The wait cycle that makes two-phase locking of a batch's keys deadlock (see {@code BatchUpdates}), as a test:
 * a {@code compute} on key {@code x} runs a function that writes key {@code a}, which a batch holds while it waits
 * for {@code x}; meanwhile a third thread's inserts fill {@code x}'s chunk, whose rebalance waits for the compute to
 * leave the chunk. The compute waits for the batch, the batch for the compute's lock and for the rebalance, the
 * rebalance for the compute. A batch that holds its claims while it waits never ends; one that gives them up after
 * a bounded wait lets the compute's write through, and everything finishes.
 *
 * <p>Fails (the threads never finish) when {@code BatchUpdates.PATIENCE} is made unbounded, checked by hand when
 * the test was written.
 */
class BatchWaitCycleTest {
    private static final long A = 10;
    private static final long X = 1_000;
    private static final long DEADLINE_SECONDS = 20;

    @RepeatedTest(3)
    void aFunctionWritingABatchKeyWhileItsChunkRebalancesDoesNotDeadlock() throws Exception {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).build()) {
            for (long k = 0; k <= 2_000; k += 100) {
                map.put(k, k);
            }
            map.put(A, 0L);
            map.put(X, 0L);
            CountDownLatch computing = new CountDownLatch(1);
            CountDownLatch batchStarted = new CountDownLatch(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread compute = start("compute", failure, () -> map.compute(X, (k, v) -> {
                computing.countDown();
                await(batchStarted);
                pause(50); // the batch claims A, then waits for X, locked here
                map.put(A, 1L); // waits for the batch while it holds A
                return v + 1;
            }));
            await(computing);
            Thread batch = start("batch", failure, () -> {
                batchStarted.countDown();
                map.batch().put(A, 100L).put(X, 200L).apply();
            });
            Thread filler = start("filler", failure, () -> {
                await(batchStarted);
                pause(20);
                for (long k = X + 1; k <= X + 8; k++) { // fills X's chunk: its rebalance waits for the compute
                    map.put(k, k);
                }
            });
            for (Thread t : new Thread[] {compute, batch, filler}) {
                t.join(TimeUnit.SECONDS.toMillis(DEADLINE_SECONDS));
                assertTrue(!t.isAlive(), () -> t.getName() + " still waits after " + DEADLINE_SECONDS + " s: "
                        + "the batch, the compute and the rebalance wait for each other");
            }
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            // the batch could not commit before the compute released X, so it comes after the compute's write of A
            assertEquals(100L, map.get(A));
            assertEquals(200L, map.get(X));
            for (long k = X + 1; k <= X + 8; k++) {
                assertEquals(k, map.get(k));
            }
        }
    }

    private static Thread start(String name, AtomicReference<Throwable> failure, Runnable body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(DEADLINE_SECONDS, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
