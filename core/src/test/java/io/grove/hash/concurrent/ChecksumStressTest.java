package io.grove.hash.concurrent;

import static io.grove.testing.Checksummed.MIN_SIZE;
import static io.grove.testing.Checksummed.check;
import static io.grove.testing.Checksummed.checkFinalState;
import static io.grove.testing.Checksummed.checkOld;
import static io.grove.testing.Checksummed.gen;
import static io.grove.testing.Checksummed.readThroughHandle;
import static io.grove.testing.Checksummed.rewriteInPlace;
import static io.grove.testing.Checksummed.value;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Torn and misdirected reads: every value encodes its own key and a checksum, and concurrent readers check each
 * value they get while writers replace, remove and reinsert values of many sizes and a growing key range makes
 * the segments of an {@code expectedSize(1)} map grow all the time. Removed values and entries go back to Nova
 * and are reused by later inserts at once, so a read that went through a stale reference or a half-moved chain
 * and still returned would show another key's bytes or a broken checksum.
 *
 * <p>{@value #PERMANENT} permanent keys (negative numbers) are inserted first and then only updated, never removed:
 * every lookup of one must find it, and every iteration must return all of them, also while their segments grow.
 * Sixteen of them are hot, so that readers and writers often meet on the same key.
 *
 * <p>A value is {@code [key: 8][generation: 8][filler: n][checksum: 8]}, n from 0 to 112, the filler and checksum
 * derived from key, generation and length ({@link io.grove.testing.Checksummed}). Readers: {@code get} (full
 * check), iteration of the entry set (full check, no key twice), zero-copy handles (full check on odd keys; on even keys only the key field, because even
 * keys also get in-place rewrites, which a handle may see partly by contract). Writers: put, replace,
 * replace(k, o, n), remove, putIfAbsent (reinsert), compute, and on even keys {@code zc().computeIfPresent}
 * rewriting the value in place, with or without resizing it; old values the writers get back are checked too.
 */
class ChecksumStressTest {
    private static final int MAX_KEYS = 100_000;
    private static final int WINDOW = 4_096;
    /** Keys -1 .. -PERMANENT are inserted before the run and never removed, only updated. */
    private static final int PERMANENT = 4_096;
    /** Keys -1 .. -HOT take a large share of the updates and reads, so that both meet on the same key. */
    private static final int HOT = 16;
    private static final long TOTAL_WRITES = 800_000;
    private static final long MIN_READS_PER_READER = 20_000;
    private static final int MIN_ITERATIONS = 3;
    private static final int MAX_FILLER = 112;

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void readersNeverSeeTornOrMisdirectedValues(StressRun.Threads threads) throws Exception {
        try (GroveHashMap<Long, byte[]> map = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
                .expectedSize(1).memoryLimit(64L << 20).build()) {
            SplittableRandom setup = new SplittableRandom(42);
            for (long k = -1; k >= -PERMANENT; k--) {
                map.put(k, value(k, 0, setup.nextInt(MAX_FILLER + 1)));
            }
            int bitsBefore = Internals.totalBucketBits(map);
            int writers = Math.max(2, threads.count / 2);
            int iterators = 1;
            int readers = Math.max(1, threads.count - writers - iterators);
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
                    if ((i & 3) == 2 || f == 0) {
                        long k = permanentKey(random);
                        byte[] v = map.get(k);
                        if (v == null) {
                            throw new AssertionError("get missed permanent key " + k);
                        }
                        check(k, v, "get");
                        hits++;
                        continue;
                    }
                    long k = random.nextLong(f);
                    if ((i & 3) != 3) {
                        byte[] v = map.get(k);
                        if (v != null) {
                            check(k, v, "get");
                            hits++;
                        }
                    } else if (readThroughHandle(map.zc(), k)) {
                        hits++;
                    }
                }
                reads.addAndGet(i);
                found.addAndGet(hits);
            });
            run.workers(threads.factory("checksum-iterator"), iterators, index -> {
                long n = 0;
                for (long i = 0; (writersLeft.get() > 0 || n < MIN_ITERATIONS) && run.proceed(i); i++) {
                    Set<Long> seen = new HashSet<>();
                    int permanentSeen = 0;
                    for (Map.Entry<Long, byte[]> e : map.entrySet()) {
                        if (!seen.add(e.getKey())) {
                            throw new AssertionError("the iterator returned key " + e.getKey() + " twice");
                        }
                        check(e.getKey(), e.getValue(), "iterator");
                        permanentSeen += e.getKey() < 0 ? 1 : 0;
                        StressRun.letOthersRun(seen.size());
                    }
                    if (permanentSeen != PERMANENT) {
                        throw new AssertionError("an iteration returned " + permanentSeen + " of the " + PERMANENT
                                + " permanent keys");
                    }
                    n++;
                }
                iterations.addAndGet(n);
            });
            run.runAndCheck("checksummed values with " + threads, () -> "writes " + writes.get() + ", reads "
                    + reads.get() + " (" + found.get() + " found), iterations " + iterations.get()
                    + ", keys " + frontier.get());
            checkFinalState(k -> map.get(k), PERMANENT, frontier.get());
            if (found.get() == 0 || Internals.totalBucketBits(map) - bitsBefore < 2 * Internals.segmentCount(map)) {
                throw new AssertionError("vacuous run: " + found.get() + " values read, bucket bits grew by "
                        + (Internals.totalBucketBits(map) - bitsBefore));
            }
        }
    }

    private static void write(GroveHashMap<Long, byte[]> map, AtomicLong frontier, SplittableRandom random,
            int writer) {
        long f = frontier.get();
        if (f < MAX_KEYS && (f < WINDOW || random.nextInt(4) == 0)) {
            long k = frontier.getAndIncrement();
            if (k < MAX_KEYS) {
                // usually absent; another writer may have taken it from its window between the increment and here
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
            case 4 -> {
                byte[] seen = map.get(k);
                if (seen != null) {
                    check(k, seen, "get");
                    map.replace(k, seen, fresh); // byte[] equality is identity: this must fail and change nothing
                }
            }
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
