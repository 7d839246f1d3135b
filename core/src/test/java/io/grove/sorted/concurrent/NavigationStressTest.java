package io.grove.sorted.concurrent;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Navigation under churn, splits and merges: {@code ceiling}, {@code floor}, {@code higher}, {@code lower} (keys and
 * entries), {@code first} and {@code last}, on the map and on its descending view, must return keys that satisfy
 * their relation with respect to the keys that stay present, as weak consistency requires: a call must not pass
 * over a key present for its whole duration, and must never return a key that was not present during it.
 *
 * <p>Keys live in slots 0 .. {@value #SLOTS}+7 of a map of chunks of four entries. The multiples of eight from 8 to
 * {@value #SLOTS} are stable keys, inserted before the run and never touched again. Keys that are 4 modulo 8 are
 * never inserted. All other keys are churn keys: writers fill runs of slots (chunks fill and split) and empty them
 * (chunks shrink and merge), and insert and remove single ones, including below the first and above the last
 * stable key, so that {@code firstKey} and {@code lastKey} change. For a query {@code q}, with {@code S+} the
 * smallest stable key at or above {@code q} and {@code S-} the largest at or below it:
 * {@code ceilingKey(q)} is in {@code [q, S+]}, {@code floorKey(q)} in {@code [S-, q]}, {@code higherKey} and
 * {@code lowerKey} likewise with strict bounds, {@code firstKey()} at most the first stable key and
 * {@code lastKey()} at least the last; none is {@code null} where a stable key satisfies the relation; no result is
 * a never-inserted key; an entry's value is the one written for its key.
 */
class NavigationStressTest {
    private static final int SLOTS = 4_000;
    private static final int RUN = 48;
    private static final long TOTAL_WRITES = 300_000;
    private static final long MIN_QUERIES_PER_READER = 20_000;

    static boolean stable(long k) {
        return (k & 7) == 0 && k >= 8 && k <= SLOTS;
    }

    static boolean neverInserted(long k) {
        return (k & 7) == 4 || k < 0 || k >= SLOTS + 8 || ((k & 7) == 0 && !stable(k));
    }

    static long stableValue(long k) {
        return 5 * k + 2;
    }

    /** The smallest stable key at or above {@code q}, or {@code Long.MAX_VALUE} if none. */
    static long stableCeiling(long q) {
        long c = Math.max(8, (q + 7) & ~7L);
        return c <= SLOTS ? c : Long.MAX_VALUE;
    }

    /** The largest stable key at or below {@code q}, or {@code Long.MIN_VALUE} if none. */
    static long stableFloor(long q) {
        long f = Math.min(SLOTS, q & ~7L);
        return f >= 8 ? f : Long.MIN_VALUE;
    }

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void navigationRespectsStableKeysUnderSplitsAndMerges(StressRun.Threads threads) throws Exception {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).memoryLimit(64L << 20).build()) {
            for (long k = 8; k <= SLOTS; k += 8) {
                map.put(k, stableValue(k));
            }
            int writers = Math.max(2, threads.count / 2);
            int readers = Math.max(2, threads.count - writers);
            AtomicLong writes = new AtomicLong();
            AtomicLong queries = new AtomicLong();
            AtomicLong churnResults = new AtomicLong();
            AtomicLong writersLeft = new AtomicLong(writers);
            long perWriter = TOTAL_WRITES / writers;
            StressRun run = new StressRun();
            run.workers(threads.factory("nav-writer"), writers, index -> {
                SplittableRandom random = new SplittableRandom(index);
                long i = 0;
                try {
                    while (i < perWriter && run.proceed(i)) {
                        i += write(map, random, i, run);
                    }
                } finally {
                    writes.addAndGet(i);
                    writersLeft.decrementAndGet();
                }
            });
            run.workers(threads.factory("nav-reader"), readers, index -> {
                SplittableRandom random = new SplittableRandom(1000 + index);
                long i = 0;
                long churn = 0;
                for (; (writersLeft.get() > 0 || i < MIN_QUERIES_PER_READER) && run.proceed(i); i++) {
                    churn += query(map, random, (int) (i % 14)) ? 1 : 0;
                }
                queries.addAndGet(i);
                churnResults.addAndGet(churn);
            });
            run.runAndCheck("navigation with " + threads, () -> "writes " + writes.get() + ", queries "
                    + queries.get() + " (" + churnResults.get() + " answered by a churn key), size " + map.size());
            if (churnResults.get() == 0) {
                throw new AssertionError("vacuous run: no query was ever answered by a churn key");
            }
        }
    }

    /** One writer step: a run filled or emptied, or a single-key update; returns the number of map operations. */
    private static long write(GroveSortedMap<Long, Long> map, SplittableRandom random, long i, StressRun run) {
        int choice = random.nextInt(6);
        if (choice < 2) {
            long start = random.nextLong(SLOTS + 8 - RUN);
            long ops = 0;
            for (long k = start; k < start + RUN && run.proceed(i + ops); k++) {
                if (!stable(k) && !neverInserted(k)) {
                    if (choice == 0) {
                        map.put(k, k << 20 | (i & 0xFFFFF));
                    } else {
                        map.remove(k);
                    }
                    ops++;
                }
            }
            return Math.max(1, ops);
        }
        // a quarter of the single updates go to the edges, below the first and above the last stable key
        long k = random.nextInt(4) == 0 ? (random.nextBoolean() ? random.nextLong(8) : SLOTS + random.nextLong(8))
                : random.nextLong(SLOTS + 8);
        if (stable(k) || neverInserted(k)) {
            return 1;
        }
        switch (choice) {
            case 2, 3 -> map.remove(k);
            default -> map.put(k, k << 20 | (i & 0xFFFFF));
        }
        return 1;
    }

    /** One query of kind {@code kind} on a random key, checked; whether a churn key answered it. */
    private static boolean query(GroveSortedMap<Long, Long> map, SplittableRandom random, int kind) {
        long q = random.nextLong(-2, SLOTS + 10);
        NavigableMap<Long, Long> descending = map.descendingMap();
        return switch (kind) {
            case 0 -> checkAtLeast("ceilingKey(" + q + ")", map.ceilingKey(q), null, q, stableCeiling(q));
            case 1 -> checkAtLeast("higherKey(" + q + ")", map.higherKey(q), null, q + 1, stableCeiling(q + 1));
            case 2 -> checkAtMost("floorKey(" + q + ")", map.floorKey(q), null, q, stableFloor(q));
            case 3 -> checkAtMost("lowerKey(" + q + ")", map.lowerKey(q), null, q - 1, stableFloor(q - 1));
            case 4 -> {
                Map.Entry<Long, Long> e = map.ceilingEntry(q);
                yield checkAtLeast("ceilingEntry(" + q + ")", key(e), e, q, stableCeiling(q));
            }
            case 5 -> {
                Map.Entry<Long, Long> e = map.lowerEntry(q);
                yield checkAtMost("lowerEntry(" + q + ")", key(e), e, q - 1, stableFloor(q - 1));
            }
            case 6 -> checkAtLeast("firstKey()", map.firstKey(), null, Long.MIN_VALUE, 8);
            case 7 -> checkAtMost("lastKey()", map.lastKey(), null, Long.MAX_VALUE, SLOTS);
            case 8 -> {
                Map.Entry<Long, Long> e = map.firstEntry();
                yield checkAtLeast("firstEntry()", key(e), e, Long.MIN_VALUE, 8);
            }
            case 9 -> {
                Map.Entry<Long, Long> e = map.lastEntry();
                yield checkAtMost("lastEntry()", key(e), e, Long.MAX_VALUE, SLOTS);
            }
            // the descending view: its ceiling is the map's floor, its higher the map's lower, its first the last
            case 10 -> checkAtMost("descendingMap().ceilingKey(" + q + ")", descending.ceilingKey(q), null, q,
                    stableFloor(q));
            case 11 -> {
                Map.Entry<Long, Long> e = descending.higherEntry(q);
                yield checkAtMost("descendingMap().higherEntry(" + q + ")", key(e), e, q - 1, stableFloor(q - 1));
            }
            case 12 -> checkAtLeast("descendingMap().floorKey(" + q + ")", descending.floorKey(q), null, q,
                    stableCeiling(q));
            default -> checkAtMost("descendingMap().firstKey()", descending.firstKey(), null, Long.MAX_VALUE, SLOTS);
        };
    }

    private static Long key(Map.Entry<Long, Long> e) {
        return e == null ? null : e.getKey();
    }

    /**
     * Checks a result that must be at least {@code low} and at most the stable key {@code stableBound}
     * ({@code Long.MAX_VALUE}: none, so {@code null} is allowed); whether a churn key answered.
     */
    private static boolean checkAtLeast(String call, Long result, Map.Entry<Long, Long> entry, long low,
            long stableBound) {
        if (result == null) {
            if (stableBound != Long.MAX_VALUE) {
                throw new AssertionError(call + " returned null though stable key " + stableBound + " qualifies");
            }
            return false;
        }
        if (result < low || result > stableBound) {
            throw new AssertionError(call + " returned " + result + ", outside [" + low + ", "
                    + (stableBound == Long.MAX_VALUE ? "-" : stableBound) + "] (stable key " + stableBound
                    + " is present throughout)");
        }
        return checkResult(call, result, entry);
    }

    /** As {@link #checkAtLeast}, for a result that must be at most {@code high} and at least {@code stableBound}. */
    private static boolean checkAtMost(String call, Long result, Map.Entry<Long, Long> entry, long high,
            long stableBound) {
        if (result == null) {
            if (stableBound != Long.MIN_VALUE) {
                throw new AssertionError(call + " returned null though stable key " + stableBound + " qualifies");
            }
            return false;
        }
        if (result > high || result < stableBound) {
            throw new AssertionError(call + " returned " + result + ", outside ["
                    + (stableBound == Long.MIN_VALUE ? "-" : stableBound) + ", " + high + "] (stable key "
                    + stableBound + " is present throughout)");
        }
        return checkResult(call, result, entry);
    }

    private static boolean checkResult(String call, long k, Map.Entry<Long, Long> entry) {
        if (neverInserted(k)) {
            throw new AssertionError(call + " returned " + k + ", a key never inserted");
        }
        if (entry != null) {
            long v = entry.getValue();
            if (stable(k) ? v != stableValue(k) : v >>> 20 != k) {
                throw new AssertionError(call + " returned " + entry + ", a value not written for its key");
            }
        }
        return !stable(k);
    }
}
