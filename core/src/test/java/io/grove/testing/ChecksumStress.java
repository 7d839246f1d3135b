package io.grove.testing;

import static io.grove.testing.Checksummed.MIN_SIZE;
import static io.grove.testing.Checksummed.check;
import static io.grove.testing.Checksummed.checkFinalState;
import static io.grove.testing.Checksummed.checkOld;
import static io.grove.testing.Checksummed.gen;
import static io.grove.testing.Checksummed.readThroughHandle;
import static io.grove.testing.Checksummed.rewriteInPlace;
import static io.grove.testing.Checksummed.value;

import io.grove.ZeroCopyMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The checksum stress run of the hash map and the sorted map: concurrent readers check every value they get
 * ({@link Checksummed}: each value encodes its own key and a checksum) while writers replace, remove and reinsert
 * values of 0 to {@value #MAX_FILLER} filler bytes, rewrite values of even keys in place (with and without
 * resizing them) and insert ever-new keys; old values the writers get back are checked too. A read that went
 * through a stale reference into reused memory and still returned shows another key's bytes or a broken checksum.
 *
 * <p>{@code permanent} keys (-1 down to -permanent) are inserted first ({@link #ChecksumStress}) and then only
 * updated, never removed: every lookup of one must find it, and every iteration must return all of them. Sixteen
 * of them are hot, so that readers and writers often meet on the same key.
 *
 * <p>Readers: {@code get} (full check) and zero-copy handles ({@link Checksummed#readThroughHandle}: full check on
 * odd keys, only the key field on even keys, which a handle read may see partly rewritten). Iterators: each
 * iteration the suite gives ({@link Scan}) is checked fully, with no key twice or, for an ordered one, strictly in
 * order. Writers: put, replace, replace-or-the-suite's-own write ({@link Write}), remove, putIfAbsent, compute,
 * computeIfPresent, and on even keys {@code zc().computeIfPresent} rewriting the value in place.
 */
public final class ChecksumStress {
    /** Each reader reads at least this many times, also after the writers are done. */
    public static final long MIN_READS_PER_READER = 20_000;
    /** Each iterator worker iterates at least this many times; a run with fewer is vacuous. */
    public static final int MIN_ITERATIONS = 3;
    /** The largest filler of a value. */
    public static final int MAX_FILLER = 112;
    /** Keys -1 .. -HOT take a large share of the updates and reads, so that both meet on the same key. */
    private static final int HOT = 16;

    /**
     * The size of a run, tuned by each suite to its map.
     *
     * @param maxKeys how many non-negative keys the writers insert at the most
     * @param window the most recent keys that updates and removals go to
     * @param permanent how many permanent keys (-1 .. -permanent) there are
     * @param totalWrites the writes of all writers together
     * @param iterators how many iterator workers run
     * @param maxReaders the most readers, whatever the thread configuration
     * @param handleReadEvery a power of two: read {@code i} of a reader goes through a zero-copy handle when
     *     {@code i % handleReadEvery == handleReadEvery - 1} (every fourth iteration reads a permanent key by
     *     {@code get} in any case)
     */
    public record Sizes(int maxKeys, int window, int permanent, long totalWrites, int iterators, int maxReaders,
            int handleReadEvery) {}

    /** How the entries of one iteration must be ordered. */
    public enum Order {
        /** In any order, but no key twice. */
        ANY,
        /** Strictly ascending keys. */
        ASCENDING,
        /** Strictly descending keys. */
        DESCENDING
    }

    /** One iteration over the map: its name in messages, its entries and their order. */
    public record Scan(String what, Iterator<Map.Entry<Long, byte[]>> entries, Order order) {}

    /** The iteration that iterator worker {@code index} makes the {@code n}-th time. */
    public interface Scans {
        /** A fresh iteration. */
        Scan next(int index, long n);
    }

    /** The write that differs between the suites (op 4 of the mix): writes {@code fresh} to {@code key}. */
    public interface Write {
        /** Writes; checks what it gets back. */
        void apply(long key, byte[] fresh);
    }

    private final ConcurrentMap<Long, byte[]> map;
    private final ZeroCopyMap<Long, byte[]> zc;
    private final Sizes sizes;

    /**
     * Inserts the permanent keys into the empty {@code map} (whose zero-copy API is {@code zc}), with seed 42;
     * {@link #run} stresses it.
     */
    public ChecksumStress(ConcurrentMap<Long, byte[]> map, ZeroCopyMap<Long, byte[]> zc, Sizes sizes) {
        this.map = map;
        this.zc = zc;
        this.sizes = sizes;
        SplittableRandom setup = new SplittableRandom(42);
        for (long k = -1; k >= -sizes.permanent; k--) {
            map.put(k, value(k, 0, setup.nextInt(MAX_FILLER + 1)));
        }
    }

    /**
     * Runs half the threads (at least 2) as writers (writer i seeded with i), {@code sizes.iterators} as iterators
     * and the rest (at least 1, at most {@code sizes.maxReaders}) as readers (reader i seeded with 1000 + i),
     * until the writers made their writes and the readers and iterators their minimum; then checks the final state
     * of every key and that values were read. {@code scans} gives the iterations, {@code write} op 4 of the mix.
     */
    public void run(StressRun.Threads threads, Scans scans, Write write) throws InterruptedException {
        int writers = Math.max(2, threads.count / 2);
        int readers = Math.min(sizes.maxReaders, Math.max(1, threads.count - writers - sizes.iterators));
        AtomicLong frontier = new AtomicLong();
        AtomicLong writes = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        AtomicLong found = new AtomicLong();
        AtomicLong iterations = new AtomicLong();
        AtomicLong writersLeft = new AtomicLong(writers);
        long perWriter = sizes.totalWrites / writers;
        StressRun run = new StressRun();
        run.workers(threads.factory("checksum-writer"), writers, index -> {
            SplittableRandom random = new SplittableRandom(index);
            long i = 0;
            try {
                for (; i < perWriter && run.proceed(i); i++) {
                    write(frontier, random, index, write);
                }
            } finally {
                writes.addAndGet(i);
                writersLeft.decrementAndGet();
            }
        });
        long handleMask = sizes.handleReadEvery - 1L;
        run.workers(threads.factory("checksum-reader"), readers, index -> {
            SplittableRandom random = new SplittableRandom(1000 + index);
            long i = 0;
            long hits = 0;
            for (; (writersLeft.get() > 0 || i < MIN_READS_PER_READER) && run.proceed(i); i++) {
                long f = frontier.get();
                boolean permanent = (i & 3) == 2 || f == 0;
                long k = permanent ? permanentKey(random) : random.nextLong(f);
                boolean viaHandle = (i & handleMask) == handleMask;
                if (viaHandle ? readThroughHandle(zc, k) : getAndCheck(k)) {
                    hits++;
                } else if (permanent) {
                    throw new AssertionError((viaHandle ? "zc().get" : "get") + " missed permanent key " + k);
                }
            }
            reads.addAndGet(i);
            found.addAndGet(hits);
        });
        run.workers(threads.factory("checksum-iterator"), sizes.iterators, index -> {
            long n = 0;
            for (long i = 0; (writersLeft.get() > 0 || n < MIN_ITERATIONS) && run.proceed(i); i++) {
                checkIteration(scans.next(index, n));
                n++;
            }
            iterations.addAndGet(n);
        });
        run.runAndCheck("checksummed values with " + threads, () -> "writes " + writes.get() + ", reads "
                + reads.get() + " (" + found.get() + " found), iterations " + iterations.get()
                + ", keys " + frontier.get());
        checkFinalState(k -> map.get(k), sizes.permanent, frontier.get());
        if (found.get() == 0 || iterations.get() < MIN_ITERATIONS) {
            throw new AssertionError("vacuous run: " + found.get() + " values read, " + iterations.get()
                    + " iterations");
        }
    }

    /** Whether {@code map.get(k)} found a value; checks it fully. */
    private boolean getAndCheck(long k) {
        byte[] v = map.get(k);
        if (v == null) {
            return false;
        }
        check(k, v, "get");
        return true;
    }

    /** Checks every entry of {@code scan}, its order, and that it returned every permanent key. */
    private void checkIteration(Scan scan) {
        Set<Long> seen = scan.order == Order.ANY ? new HashSet<>() : null;
        long previous = scan.order == Order.DESCENDING ? Long.MAX_VALUE : Long.MIN_VALUE;
        int permanentSeen = 0;
        int count = 0;
        while (scan.entries.hasNext()) {
            Map.Entry<Long, byte[]> e = scan.entries.next();
            long k = e.getKey();
            switch (scan.order) {
                case ANY -> {
                    if (!seen.add(k)) {
                        throw new AssertionError(scan.what + " returned key " + k + " twice");
                    }
                }
                case ASCENDING, DESCENDING -> {
                    if (scan.order == Order.DESCENDING ? k >= previous : k <= previous) {
                        throw new AssertionError(scan.what + " returned " + k + " after " + previous);
                    }
                }
            }
            check(k, e.getValue(), scan.what);
            permanentSeen += k < 0 ? 1 : 0;
            previous = k;
            StressRun.letOthersRun(++count);
        }
        if (permanentSeen != sizes.permanent) {
            throw new AssertionError("an iteration (" + scan.what + ") returned " + permanentSeen + " of the "
                    + sizes.permanent + " permanent keys");
        }
    }

    private void write(AtomicLong frontier, SplittableRandom random, int writer, Write own) {
        long f = frontier.get();
        if (f < sizes.maxKeys && (f < sizes.window || random.nextInt(4) == 0)) {
            long k = frontier.getAndIncrement();
            if (k < sizes.maxKeys) {
                // usually absent; another writer may have taken it from its window between the increment and here
                checkOld(k, map.putIfAbsent(k, value(k, gen(writer, random), random.nextInt(MAX_FILLER + 1))),
                        "putIfAbsent of a new key");
                return;
            }
            f = sizes.maxKeys;
        }
        boolean permanent = random.nextInt(4) == 0;
        long k = permanent ? permanentKey(random) : f - 1 - random.nextLong(Math.min(f, sizes.window));
        byte[] fresh = value(k, gen(writer, random), random.nextInt(MAX_FILLER + 1));
        int op;
        do {
            op = random.nextInt((k & 1) == 0 ? 9 : 7);
        } while (permanent && (op == 2 || op == 5)); // permanent keys are never removed
        switch (op) {
            case 0 -> checkOld(k, map.put(k, fresh), "put");
            case 1 -> checkOld(k, map.replace(k, fresh), "replace");
            case 2 -> checkOld(k, map.remove(k), "remove");
            case 3 -> checkOld(k, map.putIfAbsent(k, fresh), "putIfAbsent");
            case 4 -> own.apply(k, fresh);
            case 5 -> map.compute(k, (key, old) -> {
                if (old != null) {
                    check(key, old, "compute");
                }
                return old != null && random.nextInt(3) == 0 ? null : fresh;
            });
            case 6 -> map.computeIfPresent(k, (key, old) -> {
                check(key, old, "computeIfPresent");
                return fresh;
            });
            case 7 -> zc.computeIfPresent(k, view -> rewriteInPlace(view, k, gen(writer, random), -1));
            default -> zc.computeIfPresent(k, view -> rewriteInPlace(view, k, gen(writer, random),
                    MIN_SIZE + random.nextInt(MAX_FILLER + 1)));
        }
    }

    /** A permanent key; a hot one half of the time. */
    private long permanentKey(SplittableRandom random) {
        return -1L - random.nextInt(random.nextBoolean() ? HOT : sizes.permanent);
    }
}
