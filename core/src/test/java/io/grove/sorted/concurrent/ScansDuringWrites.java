package io.grove.sorted.concurrent;

import io.grove.GroveSortedMap;
import io.grove.testing.StressRun;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * The writers and scanners of a stress test that scans a sorted map while writers change it, added to a
 * {@link StressRun}: half the run's threads (at least two) write until each made its share of the test's total
 * operations; the others (at least two) scan until every writer is done and each made a minimum number of scans.
 * Writer {@code i} draws from {@code seed + i}, scanner {@code i} from {@code seed + 1000 + i} ({@code i} numbers
 * all the workers: writers first). Counts the writes, the scans of each kind, the keys they returned and the scans
 * that ran across a rebalance (the map's chunk array was replaced meanwhile: {@link Internals#chunks}), for the
 * test's figures and vacuity checks. The test keeps its own write step, scan and checks.
 */
final class ScansDuringWrites<K extends Enum<K>> {
    /** One step of writer {@code writer}, its {@code i}-th operation first; returns the map operations it made. */
    interface WriteStep {
        long write(int writer, SplittableRandom random, long i);
    }

    /** Chooses scan number {@code n} of scanner {@code scanner} (choices that draw from {@code random} first). */
    interface ScanStep<K> {
        Scan<K> next(int scanner, long n, SplittableRandom random);
    }

    /** A scan of {@code kind}: {@code scanAndCheck} runs it, checks it and returns the number of keys returned. */
    record Scan<K>(K kind, LongSupplier scanAndCheck) {}

    private final StressRun run;
    private final StressRun.Threads threads;
    private final String name;
    private final long seed;
    private final GroveSortedMap<?, ?> map;
    private final K[] kinds;
    private final AtomicLong writersLeft;
    /** The number of writers; writer {@code i} is worker {@code i} of the run. */
    final int writers;
    /** The run's figures: operations written, scans per kind (by ordinal), keys returned, scans across a rebalance. */
    final AtomicLong writes = new AtomicLong();
    final AtomicLongArray scansPerKind;
    final AtomicLong keysReturned = new AtomicLong();
    final AtomicLong scansAcrossRebalance = new AtomicLong();

    /** Scans of {@code kinds} of {@code map} in {@code run}, by threads named {@code name}-writer and -scanner. */
    ScansDuringWrites(StressRun run, StressRun.Threads threads, String name, long seed, GroveSortedMap<?, ?> map,
            Class<K> kinds) {
        this.run = run;
        this.threads = threads;
        this.name = name;
        this.seed = seed;
        this.map = map;
        this.kinds = kinds.getEnumConstants();
        this.writers = Math.max(2, threads.count / 2);
        this.writersLeft = new AtomicLong(writers);
        this.scansPerKind = new AtomicLongArray(this.kinds.length);
    }

    /** Adds the writers, which share {@code totalWrites} operations; call it before {@link #scanners}. */
    void writers(long totalWrites, WriteStep step) {
        long perWriter = totalWrites / writers;
        run.workers(threads.factory(name + "-writer"), writers, index -> {
            SplittableRandom random = new SplittableRandom(seed + index);
            long i = 0;
            try {
                while (i < perWriter && run.proceed(i)) {
                    i += step.write(index, random, i);
                }
            } finally {
                writes.addAndGet(i);
                writersLeft.decrementAndGet();
            }
        });
    }

    /** Adds the scanners, which scan until the writers are done and each made {@code minScansPerScanner} scans. */
    void scanners(int minScansPerScanner, ScanStep<K> step) {
        run.workers(threads.factory(name + "-scanner"), Math.max(2, threads.count - writers), index -> {
            SplittableRandom random = new SplittableRandom(seed + 1000 + index);
            for (long n = 0; (writersLeft.get() > 0 || n < minScansPerScanner) && run.proceed(n); n++) {
                Scan<K> scan = step.next(index, n, random);
                Object[] chunksBefore = Internals.chunks(map);
                keysReturned.addAndGet(scan.scanAndCheck().getAsLong());
                if (Internals.chunks(map) != chunksBefore) {
                    scansAcrossRebalance.incrementAndGet();
                }
                scansPerKind.incrementAndGet(scan.kind().ordinal());
            }
        });
    }

    /** Kind number {@code n} of {@code scanner} when scanners cycle through every kind. */
    K cycledKind(int scanner, long n) {
        return kinds[(int) ((scanner + n) % kinds.length)];
    }

    /** Fails if some kind of scan never ran; {@code context} ends the message. */
    void checkEveryKindScanned(String context) {
        for (K kind : kinds) {
            if (scansPerKind.get(kind.ordinal()) == 0) {
                throw new AssertionError("no scan of kind " + kind + " ran; " + context);
            }
        }
    }
}
