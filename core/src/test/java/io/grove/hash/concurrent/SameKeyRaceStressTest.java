package io.grove.hash.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.testing.PaddedLongs;
import io.grove.testing.StressRun;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every kind of single-key update racing on a few hot keys: put, putIfAbsent, remove, remove(k, v),
 * replace, replace(k, o, n), compute, computeIfPresent, computeIfAbsent, merge, and the zero-copy put and remove.
 *
 * <p>Checked by conservation: every value is unique and names its key. Each thread records the values its
 * operations put into the map and the values they took out of it (the old value a method returned, the value a
 * successful conditional remove or replace named, the value a function saw and replaced). In any linearizable
 * history each value is taken out at most once, only after it was put in, and the values put in and never taken
 * out are exactly the map's contents at the end. A lost update, a double removal, a function run twice or on a
 * stale value, or an old value returned for the wrong key breaks one of these.
 *
 * <p>Zero-copy writes return no old value, so they would break the accounting; they are used on a separate set
 * of keys whose end state is checked by its own rule (each such key holds a value written for it).
 */
class SameKeyRaceStressTest {
    private static final int HOT_KEYS = 6;
    /** Keys HOT_KEYS .. HOT_KEYS + ZC_KEYS - 1 take the zero-copy writes. */
    private static final int ZC_KEYS = 3;
    private static final long TOTAL_OPERATIONS = 600_000;

    private static long key(long value) {
        return value >>> 40;
    }

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void updatesOnHotKeysConserveValues(StressRun.Threads threads) throws Exception {
        run(threads, GroveHashMap.builder(Serializers.longs(), Serializers.longs()), TOTAL_OPERATIONS);
    }

    /**
     * The same races on a map with cells for 8-byte keys and values ({@code inlineEntries(8, 8)}), where a
     * quarter of the values (those whose sequence number is a multiple of 4) take 24 bytes and do not fit: about 3
     * updates in 8 move the entry out of its cell or back into it, and removals shift the cells of the hot keys'
     * runs. Half the operations: values of two sizes make the updates slower (a put of a
     * value of another size allocates), and this keeps the run's time near the other's.
     */
    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void updatesOnHotKeysInCellsConserveValues(StressRun.Threads threads) throws Exception {
        run(threads, GroveHashMap.builder(Serializers.longs(), new PaddedLongs(16, v -> (v & 3) == 0))
                .inlineEntries(Long.BYTES, Long.BYTES), TOTAL_OPERATIONS / 2);
    }

    private static void run(StressRun.Threads threads, GroveHashMap.Builder<Long, Long> builder, long operations)
            throws Exception {
        try (GroveHashMap<Long, Long> map = builder.expectedSize(1).memoryLimit(64L << 20).build()) {
            ConcurrentLinkedQueue<long[]> insertedLists = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<long[]> removedLists = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<long[]> zcWrittenLists = new ConcurrentLinkedQueue<>();
            AtomicLong done = new AtomicLong();
            long perThread = operations / threads.count;
            StressRun run = new StressRun();
            run.workers(threads.factory("same-key"), threads.count, index -> {
                SplittableRandom random = new SplittableRandom(index * 7919L + 1);
                LongList inserted = new LongList();
                LongList removed = new LongList();
                LongList zcWritten = new LongList();
                long sequence = 0;
                long i = 0;
                for (; i < perThread && run.proceed(i); i++) {
                    int op = random.nextInt(14);
                    long k = op < 13 ? random.nextInt(HOT_KEYS) : HOT_KEYS + random.nextInt(ZC_KEYS);
                    long fresh = (k << 40) | ((long) index << 24) | (++sequence & 0xFF_FFFF);
                    if (op < 13) {
                        apply(map, op, k, fresh, random, inserted, removed);
                    } else {
                        switch (random.nextInt(3)) {
                            case 0 -> map.zc().put(k, fresh);
                            case 1 -> map.zc().putIfAbsent(k, fresh);
                            default -> map.zc().remove(k);
                        }
                        zcWritten.add(fresh);
                    }
                }
                done.addAndGet(i);
                insertedLists.add(inserted.toArray());
                removedLists.add(removed.toArray());
                zcWrittenLists.add(zcWritten.toArray());
            });
            run.runAndCheck("same-key races with " + threads, () -> "operations done: " + done.get());

            Set<Long> inserted = new HashSet<>();
            for (long[] list : insertedLists) {
                for (long v : list) {
                    if (!inserted.add(v)) {
                        throw new AssertionError("value " + v + " was inserted twice (test bug)");
                    }
                }
            }
            Set<Long> removed = new HashSet<>();
            for (long[] list : removedLists) {
                for (long v : list) {
                    if (!removed.add(v)) {
                        throw new AssertionError("value " + Long.toHexString(v) + " was taken out of the map twice");
                    }
                    if (!inserted.contains(v)) {
                        throw new AssertionError("value " + Long.toHexString(v) + " was taken out but never put in");
                    }
                }
            }
            Map<Long, Long> expected = new HashMap<>();
            for (long v : inserted) {
                if (!removed.contains(v) && expected.put(key(v), v) != null) {
                    throw new AssertionError("key " + key(v) + " has two values put in and never taken out: "
                            + Long.toHexString(v) + " and " + Long.toHexString(expected.get(key(v))));
                }
            }
            Map<Long, Long> actual = new HashMap<>();
            for (long k = 0; k < HOT_KEYS; k++) {
                Long v = map.get(k);
                if (v != null) {
                    actual.put(k, v);
                }
            }
            assertEquals(expected, actual, "values put in and never taken out must be the map's contents");
            Set<Long> zcWritten = new HashSet<>();
            zcWrittenLists.forEach(list -> java.util.Arrays.stream(list).forEach(zcWritten::add));
            for (long k = HOT_KEYS; k < HOT_KEYS + ZC_KEYS; k++) {
                Long v = map.get(k);
                if (v != null && (key(v) != k || !zcWritten.contains(v))) {
                    throw new AssertionError("zero-copy key " + k + " holds " + Long.toHexString(v)
                            + ", which no zero-copy write for it wrote");
                }
                if (v != null) {
                    expected.put(k, v);
                }
            }
            assertEquals(expected.size(), map.size());
            assertEquals(expected, new HashMap<>(map), "iteration must show the same contents");
        }
    }

    /** One update of {@code k}; records what went in and what came out. */
    private static void apply(GroveHashMap<Long, Long> map, int op, long k, long fresh, SplittableRandom random,
            LongList in, LongList out) {
        switch (op) {
            case 0 -> {
                taken(out, k, map.put(k, fresh));
                in.add(fresh);
            }
            case 1 -> {
                if (map.putIfAbsent(k, fresh) == null) {
                    in.add(fresh);
                }
            }
            case 2 -> taken(out, k, map.remove(k));
            case 3 -> {
                Long seen = map.get(k);
                checkKey(k, seen);
                if (seen != null && map.remove(k, seen)) {
                    out.add(seen);
                }
            }
            case 4 -> {
                Long old = map.replace(k, fresh);
                if (old != null) {
                    taken(out, k, old);
                    in.add(fresh);
                }
            }
            case 5 -> {
                Long seen = map.get(k);
                checkKey(k, seen);
                if (seen != null && map.replace(k, seen, fresh)) {
                    out.add(seen);
                    in.add(fresh);
                }
            }
            case 6, 7 -> { // compute: insert, replace or remove, chosen by the function from what it sees
                boolean removeIt = random.nextInt(3) == 0;
                Long[] seen = new Long[1];
                int[] calls = new int[1];
                Long result = map.compute(k, (key, old) -> {
                    calls[0]++;
                    seen[0] = old;
                    return old != null && removeIt ? null : fresh;
                });
                calledOnce("compute", calls[0]);
                taken(out, k, seen[0]);
                if (result != null) {
                    in.add(fresh);
                }
            }
            case 8 -> {
                boolean removeIt = random.nextBoolean();
                Long[] seen = new Long[1];
                int[] calls = new int[1];
                Long result = map.computeIfPresent(k, (key, old) -> {
                    calls[0]++;
                    seen[0] = old;
                    return removeIt ? null : fresh;
                });
                if (calls[0] > 1 || (calls[0] == 0 && result != null)) {
                    throw new AssertionError("computeIfPresent: " + calls[0] + " calls, result " + result);
                }
                taken(out, k, seen[0]);
                if (result != null) {
                    in.add(fresh);
                }
            }
            case 9 -> {
                int[] calls = new int[1];
                Long result = map.computeIfAbsent(k, key -> {
                    calls[0]++;
                    return fresh;
                });
                checkKey(k, result);
                if (calls[0] > 1 || (calls[0] == 1) != Long.valueOf(fresh).equals(result)) {
                    throw new AssertionError("computeIfAbsent: " + calls[0] + " calls, result " + result);
                }
                if (calls[0] == 1) {
                    in.add(fresh);
                }
            }
            default -> { // merge: insert the given value, or replace or remove by the function
                long given = fresh;
                long replacement = fresh ^ 0x80_0000; // another value of this thread, never used otherwise
                boolean removeIt = random.nextInt(3) == 0;
                Long[] seen = new Long[1];
                int[] calls = new int[1];
                Long result = map.merge(k, given, (old, value) -> {
                    calls[0]++;
                    seen[0] = old;
                    return removeIt ? null : replacement;
                });
                if (calls[0] > 1) {
                    throw new AssertionError("merge ran its function " + calls[0] + " times");
                }
                if (calls[0] == 0) {
                    if (!Long.valueOf(given).equals(result)) {
                        throw new AssertionError("merge inserted nothing yet returned " + result);
                    }
                    in.add(given);
                } else {
                    taken(out, k, seen[0]);
                    if (result != null) {
                        in.add(replacement);
                    }
                }
            }
        }
    }

    private static void taken(LongList out, long k, Long old) {
        checkKey(k, old);
        if (old != null) {
            out.add(old);
        }
    }

    private static void checkKey(long k, Long value) {
        if (value != null && key(value) != k) {
            throw new AssertionError("an operation on key " + k + " saw value " + Long.toHexString(value)
                    + ", which was written for key " + key(value));
        }
    }

    private static void calledOnce(String method, int calls) {
        if (calls != 1) {
            throw new AssertionError(method + " ran its function " + calls + " times");
        }
    }

    /** A growable list of longs. */
    static final class LongList {
        private long[] values = new long[1024];
        private int size;

        void add(long v) {
            if (size == values.length) {
                values = java.util.Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        long[] toArray() {
            return java.util.Arrays.copyOf(values, size);
        }
    }
}
