package io.grove.hash.concurrent;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Weakly consistent iteration under concurrent updates and growth: the map's iterators must never throw, never
 * return a key twice, and return every key that was present for the whole iteration, with its value.
 *
 * <p>Each round makes a map with {@code expectedSize(1)}, inserts {@value #STABLE} stable keys (even numbers),
 * which no one touches afterwards, and then lets writers churn odd keys: inserting ever-new ones (so segments keep
 * doubling while iterators walk them), removing, reinserting and replacing. Iterators walk the entry set and the
 * key set again and again; some remove churn keys through {@link Iterator#remove}. Every iteration must return
 * all stable keys exactly once with their values, nothing twice, and only keys that were ever inserted, each
 * with a value written for it.
 */
class IteratorStressTest {
    private static final int STABLE = 2_000;
    private static final int CHURN_KEYS = 30_000;
    private static final int ROUNDS = 3;
    private static final long WRITES_PER_ROUND = 150_000;
    private static final int MIN_ITERATIONS_PER_ROUND = 2;

    private static long stableValue(long key) {
        return key * 3 + 1;
    }

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void iteratorsReturnEveryStableKeyOnceUnderChurnAndGrowth(StressRun.Threads threads) throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            round(threads, round);
        }
    }

    private void round(StressRun.Threads threads, int round) throws Exception {
        try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .expectedSize(1).memoryLimit(64L << 20).build()) {
            for (long i = 0; i < STABLE; i++) {
                map.put(2 * i, stableValue(2 * i));
            }
            int bitsBefore = Internals.totalSlotBits(map);
            int writers = Math.max(2, threads.count / 2);
            int iterators = Math.max(2, threads.count - writers);
            AtomicLong frontier = new AtomicLong();
            AtomicLong writes = new AtomicLong();
            AtomicLong iterations = new AtomicLong();
            AtomicLong returned = new AtomicLong();
            AtomicLong removedThroughIterator = new AtomicLong();
            AtomicLong writersLeft = new AtomicLong(writers);
            long perWriter = WRITES_PER_ROUND / writers;
            StressRun run = new StressRun();
            run.workers(threads.factory("iter-writer"), writers, index -> {
                SplittableRandom random = new SplittableRandom(round * 1000L + index);
                long i = 0;
                try {
                    for (; i < perWriter && run.proceed(i); i++) {
                        long f = frontier.get();
                        long j;
                        if (f < CHURN_KEYS && (f < 64 || random.nextInt(3) == 0)) {
                            j = Math.min(frontier.getAndIncrement(), CHURN_KEYS - 1);
                        } else {
                            j = random.nextLong(Math.min(f, CHURN_KEYS));
                        }
                        long k = 2 * j + 1;
                        long v = (k << 20) | (i & 0xFFFFF);
                        switch (random.nextInt(4)) {
                            case 0 -> map.remove(k);
                            case 1 -> map.put(k, v);
                            default -> map.putIfAbsent(k, v);
                        }
                    }
                } finally {
                    writes.addAndGet(i);
                    writersLeft.decrementAndGet();
                }
            });
            run.workers(threads.factory("iterator"), iterators, index -> {
                long n = 0;
                long seenTotal = 0;
                long removed = 0;
                for (long i = 0; (writersLeft.get() > 0 || n < MIN_ITERATIONS_PER_ROUND) && run.proceed(i); i++) {
                    boolean keysOnly = (n & 1) == 1;
                    boolean removeSome = index % 4 == 3;
                    Set<Long> seen = new HashSet<>();
                    int stableSeen = 0;
                    Iterator<?> it = keysOnly ? map.keySet().iterator() : map.entrySet().iterator();
                    while (it.hasNext()) {
                        Object next = it.next();
                        long k;
                        if (keysOnly) {
                            k = (Long) next;
                        } else {
                            @SuppressWarnings("unchecked")
                            Map.Entry<Long, Long> e = (Map.Entry<Long, Long>) next;
                            k = e.getKey();
                            long v = e.getValue();
                            if (k % 2 == 0 ? v != stableValue(k) : v >>> 20 != k) {
                                throw new AssertionError("key " + k + " came with value " + v + ", not written for it");
                            }
                        }
                        if (!seen.add(k)) {
                            throw new AssertionError("the iterator returned key " + k + " twice, after "
                                    + seen.size() + " keys");
                        }
                        if (k < 0 || (k % 2 == 0 && k >= 2L * STABLE) || (k % 2 == 1 && k >= 2L * CHURN_KEYS + 1)) {
                            throw new AssertionError("the iterator returned key " + k + ", never inserted");
                        }
                        if (k % 2 == 0) {
                            stableSeen++;
                        } else if (removeSome && (k & 7) == 1) {
                            it.remove();
                            removed++;
                        }
                        StressRun.letOthersRun(seen.size());
                    }
                    if (stableSeen != STABLE) {
                        for (long s = 0; s < STABLE; s++) {
                            if (!seen.contains(2 * s)) {
                                throw new AssertionError("iteration " + n + " missed stable key " + 2 * s + " (saw "
                                        + stableSeen + " of " + STABLE + " stable keys); get returns "
                                        + map.get(2 * s));
                            }
                        }
                    }
                    seenTotal += seen.size();
                    n++;
                }
                iterations.addAndGet(n);
                returned.addAndGet(seenTotal);
                removedThroughIterator.addAndGet(removed);
            });
            run.runAndCheck("iteration round " + round + " with " + threads, () -> "writes " + writes.get()
                    + ", iterations " + iterations.get() + " returning " + returned.get() + " keys, removed "
                    + removedThroughIterator.get() + " through iterators, churn keys " + frontier.get()
                    + ", slot doublings " + (Internals.totalSlotBits(map) - bitsBefore));
            for (long s = 0; s < STABLE; s++) {
                if (map.get(2 * s) != stableValue(2 * s)) {
                    throw new AssertionError("stable key " + 2 * s + " changed: " + map.get(2 * s));
                }
            }
            if (Internals.totalSlotBits(map) - bitsBefore < Internals.segmentCount(map)) {
                throw new AssertionError("too little growth during the round: "
                        + (Internals.totalSlotBits(map) - bitsBefore) + " doublings");
            }
        }
    }
}
