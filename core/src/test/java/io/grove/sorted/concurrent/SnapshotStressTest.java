package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSnapshot;
import io.grove.GroveSortedMap;
import io.grove.SnapshotFootprint;
import io.grove.WriteBatch;
import io.grove.internal.sorted.VersionsProbe;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import io.grove.view.Handle;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Snapshots taken while batches, single-key writers, in-place updates and rebalances run, with Nova reusing the
 * memory of replaced values, show one state of the map. {@value #GROUPS} groups of {@value #GROUP_KEYS} keys,
 * interleaved (key {@code 4 * (j * GROUPS + g)} is the {@code j}-th of group {@code g}); one batch writer per group
 * writes generation 1, 2, 3... as one batch that puts the generation to the group's keys and removes those the
 * generation leaves out ({@link #present}). Churn threads put and remove the keys {@code 4i + 1} between them
 * (chunks of four entries split and merge all the time), and counter threads increment their own counter (key
 * {@code 4i + 2}) by in-place updates and by {@code compute}.
 *
 * <p>Readers open a snapshot and check, over a whole ascending or descending scan (copying, or zero-copy with one
 * reused handle or a new handle per entry) or over gets and a sub-map: every group at one generation, with exactly the
 * keys that generation puts (a partial batch, a key missed or one seen twice all fail); a read of a counter repeated
 * later in the same snapshot returns the same value, which is at least what the reader read from the map before opening
 * the snapshot and at most what it reads after; every value carries a check byte (bytes of another entry or reused
 * memory fail it). Some snapshots stay open across several checks while the writers go on, with zero-copy handles on
 * the counters taken when they opened: each read through them returns the counter the snapshot saw (the in-place
 * updates go on meanwhile). Once all is done, no older version or tombstone is left in the map.
 *
 * <p>Fails when a value a single-key update replaces is freed instead of kept for an older snapshot (a counter read
 * absent), and when a batch does not keep what it replaces (a group key missing from a scan); both checked by hand
 * when this test was written, as was {@code SnapshotDifferentialTest} on both. The held handles fail when an
 * in-place update does not copy a value an open snapshot reads (checked by hand with the copying reads of the
 * counters left out).
 */
class SnapshotStressTest {
    private static final int GROUPS = 5;
    private static final int GROUP_KEYS = 10;
    private static final int CHURN = 1;
    private static final int COUNTERS = 2;
    private static final int READERS = 3;
    /** Snapshot checks each reader makes at least: the writers go on until every reader made them. */
    private static final int MIN_CHECKS = 400;

    @ParameterizedTest
    @EnumSource(value = StressRun.Threads.class, names = {"PLATFORM_MORE_THAN_CORES", "VIRTUAL"})
    void everySnapshotShowsOneStateOfTheMap(StressRun.Threads threads) throws Exception {
        AtomicInteger writing = new AtomicInteger(GROUPS + COUNTERS);
        AtomicInteger readersDone = new AtomicInteger();
        AtomicLong batches = new AtomicLong();
        AtomicLong checks = new AtomicLong();
        AtomicLong heldChecks = new AtomicLong();
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).memoryLimit(64L << 20).snapshots().build()) {
            for (int g = 0; g < GROUPS; g++) {
                writeGeneration(map, g, 0);
            }
            for (int i = 0; i < COUNTERS; i++) {
                map.put(counterKey(i), valueOf(counterKey(i), 0));
            }
            StressRun run = new StressRun();
            run.workers(threads.factory("batch-writer"), GROUPS, g -> {
                try {
                    int gen = 1;
                    for (; readersDone.get() < READERS && run.proceed(gen); gen++) {
                        writeGeneration(map, g, gen);
                        if (threads.virtual && gen % 16 == 0) {
                            // A batch is ten writes and virtual threads are not preempted: without a pause the
                            // writers hold both carriers while readers that parked waiting for a committing
                            // batch wait to be scheduled (once 261 checks in 20 s in a full test run).
                            LockSupport.parkNanos(1_000);
                        }
                    }
                    batches.addAndGet(gen - 1);
                } finally {
                    writing.decrementAndGet();
                }
            });
            run.workers(threads.factory("counter"), COUNTERS, index -> {
                try {
                    long key = counterKey(index - GROUPS); // (workers are numbered across the kinds)
                    for (long n = 1; readersDone.get() < READERS && run.proceed(n); n++) {
                        long next = valueOf(key, n);
                        if (n % 2 == 0) {
                            map.zc().computeIfPresent(key, v -> v.putLong(0, next ^ Long.MIN_VALUE));
                        } else {
                            map.compute(key, (k, v) -> next);
                        }
                    }
                } finally {
                    writing.decrementAndGet();
                }
            });
            run.workers(threads.factory("churn"), CHURN, index -> {
                SplittableRandom random = new SplittableRandom(index);
                for (long i = 0; writing.get() > 0 && run.proceed(i); i++) {
                    long k = 4L * random.nextInt(GROUPS * GROUP_KEYS) + 1;
                    if (random.nextBoolean()) {
                        map.put(k, valueOf(k, i));
                    } else {
                        map.remove(k);
                    }
                }
            });
            run.workers(threads.factory("reader"), READERS, index -> {
                SplittableRandom random = new SplittableRandom(100 + index);
                GroveSnapshot<Long, Long> held = null;
                long[] heldCounters = new long[COUNTERS];
                Handle[] heldHandles = new Handle[COUNTERS];
                try {
                    for (long i = 0; writing.get() > 0 && run.proceed(i); i++) {
                        if (i == MIN_CHECKS) {
                            readersDone.incrementAndGet();
                        }
                        long[] before = readCounters(map);
                        try (GroveSnapshot<Long, Long> snapshot = map.snapshot()) {
                            long[] seen = readCounters(snapshot);
                            long[] after = readCounters(map);
                            for (int c = 0; c < COUNTERS; c++) {
                                if (seen[c] < before[c] || seen[c] > after[c]) {
                                    throw new AssertionError("counter " + c + ": the map read " + before[c]
                                            + " before the snapshot and " + after[c] + " after, the snapshot "
                                            + seen[c]);
                                }
                            }
                            checkSnapshot(snapshot, random);
                            checkCounters(snapshot, seen);
                        }
                        checks.incrementAndGet();
                        if (i % 16 == 0) { // the footprint's walk of the versions, as writers free them
                            SnapshotFootprint f = map.snapshotFootprint();
                            if (f.oldestPinnedBytes() > f.versionBytes() || (held != null
                                    && (f.openSnapshots() < 1 || f.oldestAgeNanos() <= 0))) {
                                throw new AssertionError(f + (held != null ? " with a snapshot held" : ""));
                            }
                        }
                        if (held == null && random.nextInt(8) == 0) {
                            held = map.snapshot();
                            heldCounters = readCounters(held);
                            for (int c = 0; c < COUNTERS; c++) {
                                heldHandles[c] = held.zc().get(counterKey(c));
                            }
                        } else if (held != null) {
                            checkSnapshot(held, random);
                            checkHandles(heldHandles, heldCounters);
                            checkCounters(held, heldCounters);
                            heldChecks.incrementAndGet();
                            if (random.nextInt(8) == 0) {
                                held.close();
                                held = null;
                            }
                        }
                    }
                } finally {
                    if (held != null) {
                        held.close();
                    }
                }
            });
            run.runAndCheck("snapshots, " + threads, () -> checks + " checks");
            VersionsProbe.assertNoVersionsLeft(map);
        }
        System.out.println("snapshots, " + threads + ": " + batches + " batches, " + checks
                + " snapshot checks, " + heldChecks + " of them on snapshots held across writes");
        assertTrue(checks.get() >= (long) READERS * MIN_CHECKS, () -> "vacuous: " + checks + " checks");
        assertTrue(heldChecks.get() > 20, () -> "vacuous: " + heldChecks + " checks of held snapshots");
    }

    private static long keyOf(int j, int g) {
        return 4L * (j * GROUPS + g);
    }

    private static long counterKey(int i) {
        return 4L * i + 2;
    }

    /** Whether generation {@code gen} puts key {@code j} of its group (else it removes it). */
    private static boolean present(int j, long gen) {
        return (j + gen) % 3 != 0;
    }

    private static void writeGeneration(GroveSortedMap<Long, Long> map, int g, int gen) {
        WriteBatch<Long, Long> batch = map.batch();
        for (int j = 0; j < GROUP_KEYS; j++) {
            long key = keyOf(j, g);
            if (present(j, gen)) {
                batch.put(key, valueOf(key, gen));
            } else {
                batch.remove(key);
            }
        }
        batch.apply();
    }

    /** A number and a check byte derived from it and the key. */
    private static long valueOf(long key, long n) {
        return (n << 8) | check(key, n);
    }

    private static int check(long key, long n) {
        return (int) ((n * 31 + key * 17 + 5) & 0xFF);
    }

    /** The number in {@code value}, read at {@code key}, after checking it belongs there. */
    private static long numberOf(long key, long value) {
        long n = value >>> 8;
        if ((value & 0xFF) != check(key, n)) {
            throw new AssertionError("key " + key + " holds " + Long.toHexString(value)
                    + ", not one of its values: bytes of another entry or reused memory");
        }
        return n;
    }

    private static long[] readCounters(Map<Long, Long> map) {
        long[] counters = new long[COUNTERS];
        for (int c = 0; c < COUNTERS; c++) {
            Long value = map.get(counterKey(c));
            if (value == null) {
                throw new AssertionError("counter " + c + " absent");
            }
            counters[c] = numberOf(counterKey(c), value);
        }
        return counters;
    }

    private static void checkCounters(GroveSnapshot<Long, Long> snapshot, long[] seen) {
        long[] again = readCounters(snapshot);
        for (int c = 0; c < COUNTERS; c++) {
            if (again[c] != seen[c]) {
                throw new AssertionError("counter " + c + " read " + seen[c] + " then " + again[c]
                        + " in one snapshot");
            }
        }
    }

    private static void checkHandles(Handle[] handles, long[] seen) {
        for (int c = 0; c < COUNTERS; c++) {
            long n = numberOf(counterKey(c), decode(handles[c]));
            if (n != seen[c]) {
                throw new AssertionError("counter " + c + " read " + seen[c] + " by the snapshot, then " + n
                        + " through a zero-copy handle of it");
            }
        }
    }

    /** The long a handle on a key or value holds (the serializer flips the sign bit). */
    private static long decode(Handle handle) {
        return handle.getLong(0) ^ Long.MIN_VALUE;
    }

    /** The entries of a zero-copy scan, decoded (the key and value of each read as the scan reaches it). */
    private static Iterator<Map.Entry<Long, Long>> decoded(java.util.stream.Stream<Map.Entry<Handle, Handle>> scan) {
        return scan.map(e -> Map.entry(decode(e.getKey()), decode(e.getValue()))).iterator();
    }

    /**
     * One of: a whole ascending scan, a whole descending scan, a whole zero-copy scan (ascending with one reused
     * handle, or descending with a handle per entry), a group by gets, a sub-map.
     */
    private static void checkSnapshot(GroveSnapshot<Long, Long> snapshot, SplittableRandom random) {
        switch (random.nextInt(6)) {
            case 0 -> checkScan(snapshot.entrySet().iterator());
            case 1 -> checkScan(snapshot.descendingMap().entrySet().iterator());
            case 2 -> checkScan(decoded(snapshot.zc().entryStream()));
            case 3 -> checkScan(decoded(snapshot.zc().descendingMap().entrySet().stream()));
            case 4 -> {
                int g = random.nextInt(GROUPS);
                long gen = -1;
                for (int j = 0; j < GROUP_KEYS; j++) {
                    long key = keyOf(j, g);
                    Long value = snapshot.get(key);
                    gen = checkKey(g, j, key, value, gen);
                }
            }
            default -> {
                long from = 4L * random.nextInt(GROUPS * GROUP_KEYS);
                NavigableMap<Long, Long> sub = snapshot.subMap(from, true, from + 4L * GROUPS * 3, false);
                long[] gens = new long[GROUPS];
                java.util.Arrays.fill(gens, -1);
                long expected = from;
                for (Map.Entry<Long, Long> e : sub.entrySet()) {
                    long key = e.getKey();
                    if (key % 4 != 0) {
                        numberOf(key, e.getValue());
                        continue;
                    }
                    for (; expected < key; expected += 4) { // the group keys skipped must be absent
                        checkSkipped(expected, gens);
                    }
                    int g = (int) ((key / 4) % GROUPS);
                    gens[g] = checkKey(g, (int) (key / 4 / GROUPS), key, e.getValue(), gens[g]);
                    expected = key + 4;
                }
            }
        }
    }

    private static void checkSkipped(long key, long[] gens) {
        int g = (int) ((key / 4) % GROUPS);
        int j = (int) (key / 4 / GROUPS);
        if (j < GROUP_KEYS && gens[g] >= 0 && present(j, gens[g])) {
            throw new AssertionError("key " + key + " of group " + g + " missing at generation " + gens[g]);
        }
    }

    /**
     * Checks key {@code j} of group {@code g} read as {@code value} (null: absent) in a snapshot where the group's
     * keys read so far were at generation {@code gen} (-1: none yet, or only absent ones); returns the generation.
     */
    private static long checkKey(int g, int j, long key, Long value, long gen) {
        if (value == null) {
            if (gen >= 0 && present(j, gen)) {
                throw new AssertionError("key " + key + " of group " + g + " absent at generation " + gen);
            }
            return gen;
        }
        long n = numberOf(key, value);
        if (gen >= 0 && n != gen) {
            throw new AssertionError("group " + g + " read at generations " + gen + " and " + n
                    + " in one snapshot: part of a batch");
        }
        if (!present(j, n)) {
            throw new AssertionError("key " + key + " present at generation " + n + ", which removes it");
        }
        return n;
    }

    /** A whole scan: per group one generation, with exactly its keys. */
    private static void checkScan(Iterator<Map.Entry<Long, Long>> entries) {
        long[] gens = new long[GROUPS];
        java.util.Arrays.fill(gens, -1);
        boolean[][] seen = new boolean[GROUPS][GROUP_KEYS];
        while (entries.hasNext()) {
            Map.Entry<Long, Long> e = entries.next();
            long key = e.getKey();
            if (key % 4 != 0) {
                numberOf(key, e.getValue());
                continue;
            }
            int g = (int) ((key / 4) % GROUPS);
            int j = (int) (key / 4 / GROUPS);
            if (seen[g][j]) {
                throw new AssertionError("key " + key + " seen twice in one scan");
            }
            seen[g][j] = true;
            gens[g] = checkKey(g, j, key, e.getValue(), gens[g]);
        }
        for (int g = 0; g < GROUPS; g++) {
            for (int j = 0; j < GROUP_KEYS; j++) {
                if (gens[g] >= 0 && present(j, gens[g]) && !seen[g][j]) {
                    throw new AssertionError("key " + keyOf(j, g) + " missing from a scan of group " + g
                            + " at generation " + gens[g]);
                }
            }
        }
    }
}
