package io.grove.testing;

import io.grove.ZeroCopyMap;
import io.grove.view.Handle;
import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;
import java.util.function.ToLongFunction;

/**
 * The readers of the counter stress tests of the hash map and the sorted map: they watch counters that writers
 * increment, alternately through {@code get} and through zero-copy handles, and fail when a counter is seen to go
 * down or above the count it ends at.
 */
public final class CounterReaders {
    private CounterReaders() {}

    /**
     * Adds {@code readers} workers (made by {@code factory}, reader {@code i} seeded with {@code seedBase + i}) to
     * {@code run}; each reads random counters {@code 0 .. counters-1} at keys {@code keyOf(counter)}, on even
     * reads with {@code byGet} and on odd ones with {@code byHandle}, until no writer is left and it made
     * {@code minReads} reads; their reads are added to {@code reads}.
     */
    public static void add(StressRun run, ThreadFactory factory, int readers, long seedBase, int counters,
            LongUnaryOperator keyOf, LongUnaryOperator byGet, LongUnaryOperator byHandle, long expected,
            AtomicLong writersLeft, long minReads, AtomicLong reads) {
        run.workers(factory, readers, index -> {
            SplittableRandom random = new SplittableRandom(seedBase + index);
            long[] lastSeen = new long[counters];
            long i = 0;
            for (; (writersLeft.get() > 0 || i < minReads) && run.proceed(i); i++) {
                int c = random.nextInt(counters);
                long k = keyOf.applyAsLong(c);
                long seen = (i & 1) == 0 ? byGet.applyAsLong(k) : byHandle.applyAsLong(k);
                if (seen < lastSeen[c] || seen > expected) {
                    throw new AssertionError("counter " + k + " read " + seen + " after " + lastSeen[c]
                            + " (at most " + expected + ")");
                }
                lastSeen[c] = seen;
            }
            reads.addAndGet(i);
        });
    }

    /** The counter at {@code k} read through {@code get}; 0 while absent. */
    public static long readByGet(Map<Long, Long> map, long k) {
        Long v = map.get(k);
        return v == null ? 0 : v;
    }

    /**
     * The counter at {@code k} read through a zero-copy handle with {@code decode}; 0 while absent. Looks again when
     * the value was replaced or moved meanwhile ({@link ConcurrentModificationException}).
     */
    public static long readByHandle(ZeroCopyMap<Long, Long> zc, long k, ToLongFunction<Handle> decode) {
        while (true) {
            Handle handle = zc.get(k);
            if (handle == null) {
                return 0;
            }
            try {
                return decode.applyAsLong(handle);
            } catch (ConcurrentModificationException replaced) {
                // the value's slice was replaced or moved: look again
            }
        }
    }
}
