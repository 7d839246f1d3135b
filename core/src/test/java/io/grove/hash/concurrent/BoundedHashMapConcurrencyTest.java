package io.grove.hash.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bounded mode under concurrent insertions: the map never holds more than its maximum (checked on exact snapshots
 * taken with every segment locked: the bound is the whole map's, and budget moves between segments, so a sum of
 * counts read without the locks may pass it for a moment while the entries held never do), and every entry that is
 * not in the map at the end was reported to the listener exactly once, with its own value; on a table of slots
 * and on one whose entries lie in its cells ({@code inlineEntries(8, 8)}), which evictions shift.
 */
class BoundedHashMapConcurrencyTest {
    private static final int MAXIMUM = 1_000;
    private static final int WRITERS = 6;
    private static final int KEYS_PER_WRITER = 40_000;

    @ParameterizedTest(name = "cells {0}")
    @ValueSource(booleans = {false, true})
    void concurrentInsertionsStayWithinTheMaximumAndReportEachEvictionOnce(boolean cells) throws Exception {
        Set<Long> evicted = ConcurrentHashMap.newKeySet();
        AtomicLong duplicateReports = new AtomicLong();
        AtomicLong wrongValues = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean writing = new AtomicBoolean(true);
        GroveHashMap.Builder<Long, Long> builder = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .maximumSize(MAXIMUM)
                .evictionListener((k, v) -> {
                    if (v != -k) {
                        wrongValues.incrementAndGet();
                    }
                    if (!evicted.add(k)) {
                        duplicateReports.incrementAndGet();
                    }
                });
        try (GroveHashMap<Long, Long> map = (cells ? builder.inlineEntries(Long.BYTES, Long.BYTES) : builder).build()) {
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                long base = (long) w * KEYS_PER_WRITER;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        for (long k = base; k < base + KEYS_PER_WRITER; k++) {
                            map.put(k, -k);
                            if ((k & 7) == 0) {
                                map.get(k - 3); // reads move CLOCK counters too
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            AtomicLong largest = new AtomicLong();
            Thread watcher = Thread.ofPlatform().start(() -> {
                while (writing.get()) {
                    largest.accumulateAndGet(Internals.lockedTotals(map)[0], Math::max);
                }
            });
            for (Thread t : threads) {
                t.join(60_000);
                assertTrue(!t.isAlive(), "a writer did not finish");
            }
            writing.set(false);
            watcher.join();
            if (failure.get() != null) {
                throw new AssertionError(failure.get());
            }
            assertTrue(largest.get() <= MAXIMUM, "size reached " + largest.get());
            assertEquals(MAXIMUM, map.size(), "a full map stays full");
            assertEquals(0, duplicateReports.get(), "evictions reported twice");
            assertEquals(0, wrongValues.get(), "evictions reported with another entry's value");
            Set<Long> present = new HashSet<>(map.keySet());
            for (Long k : present) {
                assertTrue(!evicted.contains(k), "key " + k + " reported evicted but present");
            }
            assertEquals((long) WRITERS * KEYS_PER_WRITER, present.size() + evicted.size(),
                    "every key is either present or was reported evicted");
        }
    }
}
