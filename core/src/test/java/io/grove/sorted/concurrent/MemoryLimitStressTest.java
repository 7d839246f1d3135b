package io.grove.sorted.concurrent;

import static io.grove.testing.Checksummed.MIN_SIZE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveOutOfMemoryException;
import io.grove.GroveSortedMap;
import io.grove.MemoryFootprint;
import io.grove.MemoryPool;
import io.grove.ZeroCopySortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.Checksummed;
import io.grove.testing.StressRun;
import io.grove.view.Handle;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The memory limit under concurrency: writers fill a map with a small limit until their puts fail with
 * {@link GroveOutOfMemoryException}, while scanners scan it. Two limits ({@link Limit}): the map's own pool with
 * the smallest limit its builder accepts (a limit counts whole blocks and must hold one: one block of the default
 * 8 MiB), and a shared pool of 64 KiB blocks limited to 1 MiB (sixteen blocks: allocations also meet block ends,
 * and the pool's footprint stays readable after the map is closed). Values are {@link Checksummed} (they encode
 * their key, a generation and a checksum) of mixed sizes, 24 bytes to 6 KB, so the limit is reached after a few
 * thousand puts, first by the large values.
 *
 * <p>Each writer owns the keys {@code scramble(i) * writers + writer} (its keys are spread over the whole map and
 * interleave with the others') and keeps an exact model of them, so every outcome is checked at once: a put that
 * succeeded returned the model's old value; a put that failed changed nothing, the key is still absent or holds its
 * old value. {@link #mapPutsFailCleanlyAtTheLimit} uses {@code put} and {@code putIfAbsent} on new and present
 * keys; {@link #zeroCopyPutsAndGrowingUpdatesFailCleanlyAtTheLimit} uses the zero-copy {@code put} and
 * {@code putIfAbsent}, and {@code putIfAbsentComputeIfPresent} whose computer grows the present value (a resize
 * to a new slice) and rewrites it, which fails when memory is short and must then leave the old value whole.
 *
 * <p>Phases, each a concurrent run with scanners (ascending, descending and sub-map entry sets, zero-copy entry
 * streams: strictly ordered, so no duplicates, and each value whole and written for its key): fill until every
 * writer saw {@value #FAILURES} failures; remove three quarters of each writer's keys; put half of the removed
 * keys back with values of the same sizes, which must all succeed. Between phases, with no writer running: every
 * key reads as its owner's model says, iteration returns exactly the present keys with their values,
 * {@code size()} agrees, the pool is at its limit after the fill, holds exactly one key slice and one value slice
 * per entry (a failed put leaked nothing), and its live bytes dropped after the removals. Finally {@code close()}
 * leaves no live slice and no live byte in the shared pool; the closed map's {@code footprint()} throws.
 * Seeds: writer {@code i} uses {@code seed + i}, scanner {@code i} {@code seed + 1000 + i}; the seed is printed.
 */
class MemoryLimitStressTest {
    private static final int FAILURES = 5;
    private static final int SCANNERS = 2;
    private static final long MAX_FILL_OPS = 300_000;
    private static final int MIN_SCANS_PER_SCANNER = 2;
    private static final long KEY_MASK = (1L << 20) - 1;

    enum Limit {
        /** The map's own pool, {@code memoryLimit} one default block (the smallest the builder accepts). */
        OWN_POOL(MemoryPool.Builder.DEFAULT_BLOCK_SIZE, MemoryPool.Builder.DEFAULT_BLOCK_SIZE),
        /** A shared pool of 64 KiB blocks limited to sixteen of them. */
        SHARED_POOL(1 << 16, 1 << 20);

        final int blockSize;
        final long bytes;

        Limit(int blockSize, long bytes) {
            this.blockSize = blockSize;
            this.bytes = bytes;
        }
    }

    enum Api { MAP, ZERO_COPY }

    static Stream<Arguments> configurations() {
        return Stream.of(StressRun.Threads.values())
                .flatMap(threads -> Stream.of(Limit.values()).map(limit -> Arguments.of(threads, limit)));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("configurations")
    void mapPutsFailCleanlyAtTheLimit(StressRun.Threads threads, Limit limit) throws Exception {
        run(threads, limit, Api.MAP);
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("configurations")
    void zeroCopyPutsAndGrowingUpdatesFailCleanlyAtTheLimit(StressRun.Threads threads, Limit limit)
            throws Exception {
        run(threads, limit, Api.ZERO_COPY);
    }

    /** One writer's keys and what they hold: an exact model, since no other thread writes them. */
    private static final class Owner {
        final int writer;
        final int writers;
        long[] gens = new long[64];
        int[] fillers = new int[64];
        boolean[] present = new boolean[64];
        int count;
        long lastGen;
        int[] removed = new int[0];

        Owner(int writer, int writers) {
            this.writer = writer;
            this.writers = writers;
        }

        long key(int i) {
            return ((i * 0x9E37_79B1L) & KEY_MASK) * writers + writer;
        }

        int newKey() {
            if (count == gens.length) {
                gens = Arrays.copyOf(gens, count * 2);
                fillers = Arrays.copyOf(fillers, count * 2);
                present = Arrays.copyOf(present, count * 2);
            }
            if (count > KEY_MASK) {
                throw new AssertionError("writer " + writer + " ran out of keys");
            }
            return count++;
        }

        long nextGen() {
            return ++lastGen;
        }

        byte[] expected(int i) {
            return present[i] ? Checksummed.value(key(i), gens[i], fillers[i]) : null;
        }

        void set(int i, long gen, int filler) {
            gens[i] = gen;
            fillers[i] = filler;
            present[i] = true;
        }
    }

    /** What one run shares: the map, the owners, the counters of its figures. */
    private record Run(GroveSortedMap<Long, byte[]> map, Api api, Owner[] owners, AtomicLong ops,
            AtomicLong failures, AtomicLong resizeFailures, AtomicLong scans, AtomicLong scanned, String reproduce) {}

    private static void run(StressRun.Threads threads, Limit limit, Api api) throws Exception {
        long seed = Long.getLong("grove.seed", System.nanoTime());
        String reproduce = "seed " + seed + " (rerun with -Dgrove.seed=" + seed + "), " + threads + ", " + limit
                + ", " + api;
        System.out.println("MemoryLimitStressTest: " + reproduce);
        MemoryPool pool = limit == Limit.SHARED_POOL
                ? MemoryPool.builder().blockSize(limit.blockSize).memoryLimit(limit.bytes).build() : null;
        GroveSortedMap.Builder<Long, byte[]> builder = GroveSortedMap.builder(Serializers.longs(),
                Serializers.bytes()).chunkSize(16);
        GroveSortedMap<Long, byte[]> map = pool != null ? builder.pool(pool).build()
                : builder.memoryLimit(limit.bytes).build();
        try {
            int writers = threads.count - SCANNERS;
            Owner[] owners = new Owner[writers];
            for (int w = 0; w < writers; w++) {
                owners[w] = new Owner(w, writers);
            }
            Run r = new Run(map, api, owners, new AtomicLong(), new AtomicLong(), new AtomicLong(), new AtomicLong(),
                    new AtomicLong(), reproduce);

            phase(r, threads, seed, "fill", (owner, random, run) -> fill(r, owner, random, run));
            if (api == Api.ZERO_COPY && r.resizeFailures().get() == 0) {
                throw new AssertionError("vacuous run: no resize ran out of memory; " + reproduce);
            }
            MemoryFootprint full = map.footprint();
            int entries = checkModels(r, "after the fill");
            assertEquals(limit.bytes, full.reservedBytes(), "the fill did not reserve the whole limit: " + full
                    + "; " + reproduce);
            assertEquals(2L * entries, full.liveSlices(), "live slices after the fill, with " + entries
                    + " entries (a failed put leaked or lost a slice?): " + full + "; " + reproduce);

            phase(r, threads, seed + 1, "remove", (owner, random, run) -> removeMost(r, owner, run));
            MemoryFootprint thinned = map.footprint();
            checkModels(r, "after the removals");
            assertTrue(thinned.liveBytes() <= full.liveBytes() / 2, "removing three quarters of the entries freed "
                    + "too little: " + full + " before, " + thinned + " after; " + reproduce);

            phase(r, threads, seed + 2, "put back", (owner, random, run) -> putBack(r, owner, random, run));
            checkModels(r, "after putting keys back");
            System.out.println("MemoryLimitStressTest footprints, " + reproduce + ":\n  full     " + full
                    + "\n  thinned  " + thinned + "\n  refilled " + map.footprint());

            map.close();
            assertThrows(IllegalStateException.class, map::footprint, "footprint() of a closed map");
            if (pool != null) {
                MemoryFootprint closed = pool.footprint();
                assertEquals(0, closed.liveSlices(), "live slices after close: " + closed + "; " + reproduce);
                assertEquals(0, closed.liveBytes(), "live bytes after close: " + closed + "; " + reproduce);
            }
        } finally {
            map.close();
            if (pool != null) {
                pool.close();
            }
        }
    }

    interface WriterBody {
        void run(Owner owner, SplittableRandom random, StressRun run) throws Exception;
    }

    /** Runs {@code body} in every writer, next to the scanners, until the writers are done. */
    private static void phase(Run r, StressRun.Threads threads, long seed, String name, WriterBody body)
            throws Exception {
        StressRun run = new StressRun();
        AtomicLong writersLeft = new AtomicLong(r.owners().length);
        run.workers(threads.factory("limit-" + name), r.owners().length, index -> {
            try {
                body.run(r.owners()[index], new SplittableRandom(seed + index), run);
            } finally {
                writersLeft.decrementAndGet();
            }
        });
        run.workers(threads.factory("limit-scan"), SCANNERS, index -> {
            SplittableRandom random = new SplittableRandom(seed + 1000 + index);
            for (long i = 0; (writersLeft.get() > 0 || i < MIN_SCANS_PER_SCANNER) && run.proceed(i); i++) {
                r.scanned().addAndGet(scan(r, random, (int) (i % 4)));
                r.scans().incrementAndGet();
            }
        });
        run.runAndCheck("memory limit, " + name + ", " + r.reproduce(), () -> "operations " + r.ops().get()
                + ", out-of-memory failures " + r.failures().get() + " (" + r.resizeFailures().get()
                + " in a resize), scans " + r.scans().get() + " returning " + r.scanned().get()
                + " keys, footprint " + r.map().footprint());
    }

    /** A filler size: mostly small, some of hundreds of bytes, a tenth of kilobytes. */
    private static int randomFiller(SplittableRandom random) {
        int p = random.nextInt(10);
        return p < 6 ? random.nextInt(100) : p < 9 ? 100 + random.nextInt(900) : 1_000 + random.nextInt(5_000);
    }

    /**
     * Puts until {@value #FAILURES} of this writer's puts failed for lack of memory. The cap on puts is global: a
     * writer may run alone for a while (virtual threads) and cannot fill the pool by itself.
     */
    private static void fill(Run r, Owner o, SplittableRandom random, StressRun run) {
        int failures = 0;
        for (long ops = 0; failures < FAILURES && run.proceed(ops); ops++) {
            if (r.ops().get() >= MAX_FILL_OPS) {
                throw new AssertionError("the writers made " + r.ops().get() + " puts and writer " + o.writer
                        + " reached the limit only " + failures + " times");
            }
            int choice = random.nextInt(10);
            int i = choice < 6 || o.count == 0 ? o.newKey() : random.nextInt(o.count);
            long gen = o.nextGen();
            int filler = randomFiller(random);
            String what;
            try {
                what = r.api() == Api.MAP ? mapPut(r, o, i, gen, filler, choice == 5 || choice == 9)
                        : zcPut(r, o, i, gen, filler, choice, random);
            } catch (GroveOutOfMemoryException e) {
                failures++;
                r.failures().incrementAndGet();
                checkKey(r, o, i, "after a failed " + (r.api() == Api.MAP ? "put" : "zero-copy update"));
                continue;
            }
            if (what != null) {
                throw new AssertionError(what + " of key " + o.key(i) + " (writer " + o.writer + ")");
            }
            r.ops().incrementAndGet();
        }
    }

    /** A put (or putIfAbsent) of key {@code i}; the model is updated if it succeeds. A complaint, or null. */
    private static String mapPut(Run r, Owner o, int i, long gen, int filler, boolean ifAbsent) {
        long k = o.key(i);
        byte[] expected = o.expected(i);
        byte[] value = Checksummed.value(k, gen, filler);
        byte[] old = ifAbsent ? r.map().putIfAbsent(k, value) : r.map().put(k, value);
        if (!Arrays.equals(old, expected)) {
            return (ifAbsent ? "putIfAbsent" : "put") + " returned " + describe(old) + " where the model holds "
                    + describe(expected);
        }
        if (!ifAbsent || expected == null) {
            o.set(i, gen, filler);
        }
        return null;
    }

    /**
     * A zero-copy put, putIfAbsent, or putIfAbsentComputeIfPresent whose computer grows the present value and
     * rewrites it; the model is updated if it succeeds. A complaint, or null.
     */
    private static String zcPut(Run r, Owner o, int i, long gen, int filler, int choice, SplittableRandom random) {
        long k = o.key(i);
        ZeroCopySortedMap<Long, byte[]> zc = r.map().zc();
        boolean present = o.present[i];
        if (choice < 5) {
            zc.put(k, Checksummed.value(k, gen, filler));
            o.set(i, gen, filler);
        } else if (choice < 7) {
            boolean inserted = zc.putIfAbsent(k, Checksummed.value(k, gen, filler));
            if (inserted == present) {
                return "zero-copy putIfAbsent returned " + inserted + " on a key the model has "
                        + (present ? "present" : "absent");
            }
            if (inserted) {
                o.set(i, gen, filler);
            }
        } else {
            // the value to insert is small, so that on a present key the resize, not the insert value, tends to
            // be the allocation that fails
            int insertFiller = present ? 0 : filler;
            int grown = present ? o.fillers[i] + 100 + random.nextInt(3_000) : filler;
            boolean[] ran = {false};
            boolean inserted;
            try {
                inserted = zc.putIfAbsentComputeIfPresent(k, Checksummed.value(k, gen, insertFiller), view -> {
                    ran[0] = true;
                    Checksummed.rewriteInPlace(view, k, gen, MIN_SIZE + grown);
                });
            } catch (GroveOutOfMemoryException e) {
                if (ran[0]) {
                    r.resizeFailures().incrementAndGet();
                }
                throw e;
            }
            if (inserted == present || ran[0] != present) {
                return "putIfAbsentComputeIfPresent returned " + inserted + " and ran its computer " + ran[0]
                        + " on a key the model has " + (present ? "present" : "absent");
            }
            o.set(i, gen, inserted ? insertFiller : grown);
        }
        return null;
    }

    /** Removes the writer's present keys but every fourth, checking what each removal returns. */
    private static void removeMost(Run r, Owner o, StressRun run) {
        int[] removed = new int[o.count];
        int n = 0;
        for (int i = 0; i < o.count && run.proceed(i); i++) {
            if (!o.present[i] || i % 4 == 0) {
                continue;
            }
            long k = o.key(i);
            byte[] expected = o.expected(i);
            if (r.api() == Api.MAP) {
                byte[] old = r.map().remove(k);
                if (!Arrays.equals(old, expected)) {
                    throw new AssertionError("remove of key " + k + " returned " + describe(old) + " where the model "
                            + "holds " + describe(expected));
                }
            } else if (!r.map().zc().remove(k)) {
                throw new AssertionError("zero-copy remove of present key " + k + " returned false");
            }
            o.present[i] = false;
            removed[n++] = i;
            r.ops().incrementAndGet();
        }
        o.removed = Arrays.copyOf(removed, n);
    }

    /** Puts every other removed key back with a value of its old size: the removals made room, none may fail. */
    private static void putBack(Run r, Owner o, SplittableRandom random, StressRun run) {
        for (int j = 0; j < o.removed.length && run.proceed(j); j += 2) {
            int i = o.removed[j];
            long k = o.key(i);
            long gen = o.nextGen();
            byte[] value = Checksummed.value(k, gen, o.fillers[i]);
            try {
                boolean inserted = r.api() == Api.MAP ? r.map().put(k, value) == null
                        : random.nextBoolean() ? r.map().zc().putIfAbsent(k, value)
                        : r.map().zc().putIfAbsentComputeIfPresent(k, value, v -> {
                            throw new AssertionError("the computer ran on absent key " + k);
                        });
                if (!inserted) {
                    throw new AssertionError("putting removed key " + k + " back found it present");
                }
            } catch (GroveOutOfMemoryException e) {
                throw new AssertionError("putting removed key " + k + " back (" + value.length + " bytes) ran out "
                        + "of memory although the removals freed more than the put-backs take: " + r.map()
                        .footprint(), e);
            }
            o.set(i, gen, o.fillers[i]);
            r.ops().incrementAndGet();
        }
    }

    /** Checks that key {@code i} of {@code o} reads as the model says. */
    private static void checkKey(Run r, Owner o, int i, String when) {
        long k = o.key(i);
        byte[] now = r.map().get(k);
        byte[] expected = o.expected(i);
        if (!Arrays.equals(now, expected) || r.map().containsKey(k) != (expected != null)) {
            throw new AssertionError(when + ": key " + k + " (writer " + o.writer + ") holds " + describe(now)
                    + ", containsKey " + r.map().containsKey(k) + ", where the model holds " + describe(expected));
        }
    }

    private static String describe(byte[] value) {
        if (value == null) {
            return "null (absent)";
        }
        return value.length < Checksummed.MIN_SIZE ? value.length + " bytes"
                : "generation " + Checksummed.readLong(value, 8) + " of key " + Checksummed.readLong(value, 0) + " ("
                        + value.length + " bytes)";
    }

    /**
     * With no writer running: every key of every owner reads as modelled, iteration returns exactly the present
     * keys in order with their values, and {@code size()} agrees. Returns the number of entries.
     */
    private static int checkModels(Run r, String when) {
        String what = when + ", " + r.reproduce();
        int entries = 0;
        for (Owner o : r.owners()) {
            for (int i = 0; i < o.count; i++) {
                checkKey(r, o, i, what);
                entries += o.present[i] ? 1 : 0;
            }
        }
        long[] keys = new long[entries];
        int n = 0;
        for (Owner o : r.owners()) {
            for (int i = 0; i < o.count; i++) {
                if (o.present[i]) {
                    keys[n++] = o.key(i);
                }
            }
        }
        Arrays.sort(keys);
        int at = 0;
        for (Map.Entry<Long, byte[]> e : r.map().entrySet()) {
            if (at >= entries || e.getKey() != keys[at]) {
                throw new AssertionError(what + ": iteration returned key " + e.getKey() + " where "
                        + (at < entries ? "key " + keys[at] : "the end") + " was expected");
            }
            Checksummed.check(e.getKey(), e.getValue(), what + ": iteration");
            at++;
        }
        assertEquals(entries, at, what + ": keys returned by iteration");
        assertEquals(entries, r.map().size(), what + ": size()");
        return entries;
    }

    /** One scan of kind {@code kind} (0-3), checked; returns the number of keys it returned. */
    private static long scan(Run r, SplittableRandom random, int kind) {
        GroveSortedMap<Long, byte[]> map = r.map();
        long keySpace = (KEY_MASK + 1) * r.owners().length;
        switch (kind) {
            case 0, 1 -> {
                boolean descending = kind == 1;
                NavigableMap<Long, byte[]> view = descending ? map.descendingMap() : map;
                return entries(view.entrySet().iterator(), new OrderedLongScan(
                        (descending ? "descending" : "ascending") + " scan", descending, k -> k >= 0));
            }
            case 2 -> {
                long a = random.nextLong(keySpace);
                long b = random.nextLong(keySpace);
                long lo = Math.min(a, b);
                long hi = Math.max(a, b);
                boolean descending = random.nextBoolean();
                NavigableMap<Long, byte[]> sub = map.subMap(lo, true, hi, false);
                return entries((descending ? sub.descendingMap() : sub).entrySet().iterator(), new OrderedLongScan(
                        "sub-map scan [" + lo + ", " + hi + ")" + (descending ? " descending" : ""), descending,
                        k -> k >= lo && k < hi));
            }
            default -> {
                boolean descending = random.nextBoolean();
                OrderedLongScan scan = new OrderedLongScan("zero-copy entry stream" + (descending ? ", descending"
                        : ""), descending, k -> k >= 0);
                try (Stream<Map.Entry<Handle, Handle>> stream = (descending ? map.zc().descendingMap() : map.zc())
                        .entryStream()) {
                    stream.forEach(e -> {
                        long k;
                        byte[] v;
                        try {
                            k = Serializers.longs().read(e.getKey());
                            v = e.getValue().read(view -> view.toByteArray());
                        } catch (ConcurrentModificationException removedOrReplaced) {
                            return;
                        }
                        scan.next(k);
                        // an in-place rewrite may be seen partly through a handle: only the key field is sure
                        Checksummed.checkKeyField(k, v, "zero-copy entry stream");
                    });
                }
                return scan.count();
            }
        }
    }

    private static long entries(Iterator<Map.Entry<Long, byte[]>> it, OrderedLongScan scan) {
        while (it.hasNext()) {
            Map.Entry<Long, byte[]> e = it.next();
            scan.next(e.getKey());
            Checksummed.check(e.getKey(), e.getValue(), "scan");
        }
        return scan.count();
    }
}
