package io.grove.internal.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * {@link OperationsUnderWay} never reports none while an operation is under way, however many other threads begin
 * and end theirs meanwhile: the property a closer relies on. (Fails when a thread's end may land on another stripe
 * than its begin, as a {@code LongAdder}'s may under contention: checked with stripes drawn at random per call.)
 */
class OperationsUnderWayTest {
    @Test
    void noneOnlyWhenNoOperationIsUnderWay() {
        OperationsUnderWay operations = new OperationsUnderWay();
        assertTrue(operations.none());
        operations.begin();
        operations.begin();
        operations.end();
        assertFalse(operations.none());
        operations.end();
        assertTrue(operations.none());
    }

    @Test
    void anOperationUnderWayIsSeenWhileOtherThreadsBeginAndEndTheirs() throws Exception {
        OperationsUnderWay operations = new OperationsUnderWay();
        CountDownLatch begun = new CountDownLatch(1);
        CountDownLatch checked = new CountDownLatch(1);
        Thread held = Thread.ofPlatform().start(() -> {
            operations.begin();
            begun.countDown();
            try {
                checked.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            operations.end();
        });
        assertTrue(begun.await(10, TimeUnit.SECONDS));
        AtomicBoolean stop = new AtomicBoolean();
        Thread[] churn = new Thread[6];
        for (int t = 0; t < churn.length; t++) {
            churn[t] = Thread.ofPlatform().start(() -> {
                while (!stop.get()) {
                    operations.begin();
                    operations.end();
                }
            });
        }
        long seenNone = 0;
        long checks = 0;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_500);
        while (System.nanoTime() < deadline) {
            if (operations.none()) {
                seenNone++;
            }
            checks++;
        }
        stop.set(true);
        for (Thread t : churn) {
            t.join();
        }
        checked.countDown();
        held.join();
        assertEquals(0, seenNone, "none() while an operation was under way, in " + checks + " checks");
        assertTrue(operations.none(), "every operation ended");
    }
}
