package io.grove.hash.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Waits for a segment lock whose holder parks: every thread increments one of two counters in place, and every
 * eighth update's function parks for 20 us while it holds the key's segment lock (as a function that does I/O or
 * sleeps would), so most threads wait for a lock whose holder is not running. Virtual waiters park until a release
 * wakes them ({@code LockWaiters}). Their parks have a time limit (a release may miss a waiter that queued itself at
 * that instant, and a release wakes one waiter of many), so many run to it here; at least a tenth must end by a
 * release's wake-up (about half do): when {@code HashTable.unlock} wakes no one, none does. Afterwards the counters
 * hold every increment.
 */
class SleepingLockHolderStressTest {
    private static final int OPERATIONS = 8_000;

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void waitersLetAParkedHolderFinish(StressRun.Threads threads) throws Exception {
        try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs()).build()) {
            map.put(0L, 0L);
            map.put(1L, 0L);
            AtomicLong done = new AtomicLong();
            long perThread = OPERATIONS / threads.count;
            StressRun run = new StressRun();
            run.workers(threads.factory("incrementer"), threads.count, index -> {
                for (long i = 0; i < perThread && run.proceed(i); i++) {
                    long key = (index + i) & 1;
                    boolean parks = i % 8 == 0;
                    map.zc().computeIfPresent(key, v -> {
                        if (parks) {
                            LockSupport.parkNanos(20_000);
                        }
                        v.putLong(0, v.getLong(0) + 1);
                    });
                    done.incrementAndGet();
                }
            });
            run.runAndCheck("increments under parking lock holders, " + threads, () -> "increments " + done.get()
                    + ", parks of lock waiters and those that ran out " + Arrays.toString(
                            Internals.lockParksAndTimeouts(map)));
            assertEquals(perThread * threads.count, map.get(0L) + map.get(1L));
            long[] parks = Internals.lockParksAndTimeouts(map);
            String figures = "of " + parks[0] + " parks of lock waiters, " + parks[1] + " ran to their time limit";
            if (threads.virtual) {
                assertTrue(parks[0] > 0 && (parks[0] - parks[1]) * 10 >= parks[0], figures);
            } else {
                assertEquals(0, parks[0], figures); // platform threads never park there
            }
        }
    }
}
