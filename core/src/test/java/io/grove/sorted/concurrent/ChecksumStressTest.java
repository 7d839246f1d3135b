package io.grove.sorted.concurrent;

import static io.grove.testing.Checksummed.MIN_SIZE;
import static io.grove.testing.Checksummed.check;
import static io.grove.testing.Checksummed.checkFinalState;
import static io.grove.testing.Checksummed.checkOld;
import static io.grove.testing.Checksummed.gen;
import static io.grove.testing.Checksummed.readThroughHandle;
import static io.grove.testing.Checksummed.rewriteInPlace;
import static io.grove.testing.Checksummed.value;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import io.grove.view.Handle;
import java.util.Iterator;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Torn and misdirected reads while chunks are rebalanced: every value encodes its own key and a checksum
 * ({@link io.grove.testing.Checksummed}), and concurrent readers check each value they get while writers replace, remove and
 * reinsert values of many sizes, rewrite values in place (with and without resizing them), and insert ever-new
 * keys, in a map of chunks of eight entries, so chunks split, compact and merge all the time. Removed values go
 * back to Nova and are reused by later inserts at once, so a read that went through a stale entry or value
 * reference (one a rebalance copied from a chunk after the entry changed) and still returned would show another
 * key's bytes or a broken checksum.
 *
 * <p>{@value #PERMANENT} permanent keys (negative numbers) are inserted first and then only updated, never
 * removed: every lookup of one must find it, and every ascending and descending iteration must return all of them,
 * in order. Sixteen of them are hot, so that readers and writers often meet on the same key.
 *
 * <p>Readers: {@code get} (a copy, which is atomic with respect to every update including in-place ones: full
 * check), iteration of the entry set, ascending or descending (full check, strictly ordered), and zero-copy
 * handles read through {@link Handle#read}. Even keys also get {@code zc().computeIfPresent} rewriting the whole
 * value in place, with or without a resize; odd keys only get updates that replace the value. A handle read is
 * checked fully on odd keys; on even keys only its key field, because the zero-copy contract
 * ({@code ZeroCopyMap.get}) lets a handle read see an in-place update that runs meanwhile partly.
 */
class ChecksumStressTest {
    private static final int MAX_KEYS = 60_000;
    private static final int WINDOW = 2_048;
    private static final int PERMANENT = 2_048;
    private static final int HOT = 16;
    private static final long TOTAL_WRITES = 300_000;
    private static final long MIN_READS_PER_READER = 20_000;
    private static final int MIN_ITERATIONS = 3;
    private static final int MAX_FILLER = 112;

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void readersNeverSeeTornOrMisdirectedValues(StressRun.Threads threads) throws Exception {
        try (GroveSortedMap<Long, byte[]> map = GroveSortedMap.builder(Serializers.longs(), Serializers.bytes())
                .chunkSize(8).memoryLimit(64L << 20).build()) {
            SplittableRandom setup = new SplittableRandom(42);
            for (long k = -1; k >= -PERMANENT; k--) {
                map.put(k, value(k, 0, setup.nextInt(MAX_FILLER + 1)));
            }
            int writers = Math.max(2, threads.count / 2);
            int iterators = 2;
            // at most 16 readers: with 78 virtual readers spinning on two carriers, the writers took 20 s
            int readers = Math.min(16, Math.max(1, threads.count - writers - iterators));
            AtomicLong frontier = new AtomicLong();
            AtomicLong writes = new AtomicLong();
            AtomicLong reads = new AtomicLong();
            AtomicLong found = new AtomicLong();
            AtomicLong iterations = new AtomicLong();
            AtomicLong writersLeft = new AtomicLong(writers);
            long perWriter = TOTAL_WRITES / writers;
            StressRun run = new StressRun();
            run.workers(threads.factory("checksum-writer"), writers, index -> {
                SplittableRandom random = new SplittableRandom(index);
                long i = 0;
                try {
                    for (; i < perWriter && run.proceed(i); i++) {
                        write(map, frontier, random, index);
                    }
                } finally {
                    writes.addAndGet(i);
                    writersLeft.decrementAndGet();
                }
            });
            run.workers(threads.factory("checksum-reader"), readers, index -> {
                SplittableRandom random = new SplittableRandom(1000 + index);
                long i = 0;
                long hits = 0;
                for (; (writersLeft.get() > 0 || i < MIN_READS_PER_READER) && run.proceed(i); i++) {
                    long f = frontier.get();
                    boolean permanent = (i & 3) == 2 || f == 0;
                    long k = permanent ? permanentKey(random) : random.nextLong(f);
                    if ((i & 1) == 0) {
                        byte[] v = map.get(k);
                        if (v != null) {
                            check(k, v, "get");
                            hits++;
                        } else if (permanent) {
                            throw new AssertionError("get missed permanent key " + k);
                        }
                    } else if (readThroughHandle(map.zc(), k)) {
                        hits++;
                    } else if (permanent) {
                        throw new AssertionError("zc().get missed permanent key " + k);
                    }
                }
                reads.addAndGet(i);
                found.addAndGet(hits);
            });
            run.workers(threads.factory("checksum-iterator"), iterators, index -> {
                long n = 0;
                for (long i = 0; (writersLeft.get() > 0 || n < MIN_ITERATIONS) && run.proceed(i); i++) {
                    boolean descending = ((index + n) & 1) == 1;
                    Iterator<Map.Entry<Long, byte[]>> it = descending ? map.descendingMap().entrySet().iterator()
                            : map.entrySet().iterator();
                    String what = descending ? "descending iterator" : "iterator";
                    long previous = descending ? Long.MAX_VALUE : Long.MIN_VALUE;
                    int permanentSeen = 0;
                    int seen = 0;
                    while (it.hasNext()) {
                        Map.Entry<Long, byte[]> e = it.next();
                        long k = e.getKey();
                        if (descending ? k >= previous : k <= previous) {
                            throw new AssertionError(what + " returned " + k + " after " + previous);
                        }
                        check(k, e.getValue(), what);
                        permanentSeen += k < 0 ? 1 : 0;
                        previous = k;
                        StressRun.letOthersRun(++seen);
                    }
                    if (permanentSeen != PERMANENT) {
                        throw new AssertionError("an iteration (" + what + ") returned " + permanentSeen + " of the "
                                + PERMANENT + " permanent keys");
                    }
                    n++;
                }
                iterations.addAndGet(n);
            });
            run.runAndCheck("checksummed values with " + threads, () -> "writes " + writes.get() + ", reads "
                    + reads.get() + " (" + found.get() + " found), iterations " + iterations.get()
                    + ", keys " + frontier.get());
            checkFinalState(k -> map.get(k), PERMANENT, frontier.get());
            if (found.get() == 0 || iterations.get() < MIN_ITERATIONS) {
                throw new AssertionError("vacuous run: " + found.get() + " values read, " + iterations.get()
                        + " iterations");
            }
        }
    }

    private static void write(GroveSortedMap<Long, byte[]> map, AtomicLong frontier, SplittableRandom random,
            int writer) {
        long f = frontier.get();
        if (f < MAX_KEYS && (f < WINDOW || random.nextInt(4) == 0)) {
            long k = frontier.getAndIncrement();
            if (k < MAX_KEYS) {
                checkOld(k, map.putIfAbsent(k, value(k, gen(writer, random), random.nextInt(MAX_FILLER + 1))),
                        "putIfAbsent of a new key");
                return;
            }
            f = MAX_KEYS;
        }
        boolean permanent = random.nextInt(4) == 0;
        long k = permanent ? permanentKey(random) : f - 1 - random.nextLong(Math.min(f, WINDOW));
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
            case 4 -> map.zc().put(k, fresh);
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
            case 7 -> map.zc().computeIfPresent(k, view -> rewriteInPlace(view, k, gen(writer, random), -1));
            default -> map.zc().computeIfPresent(k, view -> rewriteInPlace(view, k, gen(writer, random),
                    MIN_SIZE + random.nextInt(MAX_FILLER + 1)));
        }
    }

    /** A permanent key; a hot one half of the time. */
    private static long permanentKey(SplittableRandom random) {
        return -1 - random.nextInt(random.nextBoolean() ? HOT : PERMANENT);
    }
}
