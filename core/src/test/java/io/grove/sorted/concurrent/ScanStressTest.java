package io.grove.sorted.concurrent;

import io.grove.GroveSortedMap;
import io.grove.ZeroCopySortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import io.grove.view.Handle;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Ascending and descending scans while writers churn keys and force splits and merges, checked against the scan
 * guarantees of Oak §4.2: a scan returns every key of its range present for the whole scan, never a key that was
 * not present during it, and no key twice; and, as a sorted map's, in order.
 *
 * <p>Keys are 0 .. {@value #SLOTS}-1 in a map of chunks of four entries. The multiples of four are stable keys,
 * inserted before the run and never touched again; the other keys are churn keys. Writers fill a random run of 64
 * consecutive slots with churn keys (several chunks fill and split) or empty one (the chunks there shrink to their
 * stable keys and must merge), or insert, replace or remove single churn keys. Scanners repeat scans of every kind
 * (see {@link Kind}): the legacy entry and key sets and their descending forms, range views (ascending and
 * descending, random bounds and inclusiveness), and the zero-copy scans (unscoped handle sets and the streams that
 * reuse one handle, ascending and through {@code descendingMap()}). Every scan must be strictly ordered in its
 * direction, stay in its range, return exactly the stable keys of its range, each with its value, and only churn
 * keys with a value written for them.
 *
 * <p>A zero-copy element read after its entry was removed throws {@link ConcurrentModificationException}, which a
 * churn key may do legitimately: such an element is skipped. A stable key is never removed, so a skipped stable
 * key shows as missing.
 */
class ScanStressTest {
    private static final int MIN_SCANS_ACROSS_REBALANCE = 200;

    private static final int SLOTS = 6_000;
    private static final int RUN = 64;
    private static final long TOTAL_WRITES = 400_000;
    private static final int MIN_SCANS_PER_SCANNER = 4;

    /** The kinds of scan; each scanner cycles through all of them. */
    enum Kind {
        ENTRY_SET, KEY_SET, DESCENDING_ENTRY_SET, DESCENDING_KEY_SET, KEY_SET_DESCENDING_ITERATOR, SUB_MAP,
        DESCENDING_SUB_MAP, HEAD_MAP_DESCENDING, ZC_ENTRY_STREAM, ZC_KEY_STREAM, ZC_DESCENDING_ENTRY_STREAM,
        ZC_DESCENDING_KEY_STREAM, ZC_KEY_SET, ZC_DESCENDING_ENTRY_SET, ZC_SUB_MAP_DESCENDING_ENTRY_STREAM,
        ZC_TAIL_MAP_VALUE_STREAM_KEYS;

        boolean descending() {
            return name().contains("DESCENDING");
        }
    }

    static boolean stable(long k) {
        return (k & 3) == 0;
    }

    static long stableValue(long k) {
        return 3 * k + 1;
    }

    /** A scan's range: {@code [lo, hi]} with either end open or closed. */
    record Range(long lo, boolean loInclusive, long hi, boolean hiInclusive) {
        static final Range ALL = new Range(0, true, SLOTS - 1, true);

        boolean contains(long k) {
            return (loInclusive ? k >= lo : k > lo) && (hiInclusive ? k <= hi : k < hi);
        }

        long stableKeys() {
            long n = 0;
            for (long k = lo & ~3L; k <= hi; k += 4) {
                n += contains(k) ? 1 : 0;
            }
            return n;
        }
    }

    /** Receives each element of a scan: its key and its value ({@code null} for a key-only scan). */
    interface Visitor {
        void visit(long key, Long value);
    }

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void scansReturnEveryStableKeyOnceInOrderUnderSplitsAndMerges(StressRun.Threads threads) throws Exception {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).memoryLimit(64L << 20).build()) {
            for (long k = 0; k < SLOTS; k += 4) {
                map.put(k, stableValue(k));
            }
            AtomicLong skipped = new AtomicLong();
            StressRun run = new StressRun();
            ScansDuringWrites<Kind> scans = new ScansDuringWrites<>(run, threads, "scan", 0, map, Kind.class);
            scans.writers(TOTAL_WRITES, (writer, random, i) -> write(map, random, i, run));
            scans.scanners(MIN_SCANS_PER_SCANNER, (scanner, n, random) -> {
                Kind kind = scans.cycledKind(scanner, n);
                return new ScansDuringWrites.Scan<>(kind, () -> scanAndCheck(map, kind, random, skipped));
            });
            String what = "scans with " + threads;
            run.runAndCheck(what, () -> "writes " + scans.writes + ", scans per kind " + scans.scansPerKind
                    + " returning " + scans.keysReturned + " keys (" + skipped + " zero-copy elements removed before"
                    + " they were read), " + scans.scansAcrossRebalance + " scans ran across a rebalance, size "
                    + map.size());
            long allScans = IntStream.range(0, Kind.values().length).mapToLong(scans.scansPerKind::get).sum();
            long acrossRebalance = scans.scansAcrossRebalance.get();
            // Not vacuous if half the scans, or at least MIN_SCANS_ACROSS_REBALANCE of them, overlapped a
            // rebalance: a share alone fails runs whose scans are fast (many scans, each overlapping less), a count
            // alone fails runs on a loaded machine (few scans, nearly all overlapping).
            if (acrossRebalance * 2 < allScans && acrossRebalance < MIN_SCANS_ACROSS_REBALANCE) {
                throw new AssertionError("vacuous run: only " + acrossRebalance + " of " + allScans
                        + " scans ran while a rebalance replaced chunks (half or " + MIN_SCANS_ACROSS_REBALANCE
                        + " needed)");
            }
            scans.checkEveryKindScanned(what);
            for (long k = 0; k < SLOTS; k += 4) {
                if (!Long.valueOf(stableValue(k)).equals(map.get(k))) {
                    throw new AssertionError("stable key " + k + " changed: " + map.get(k));
                }
            }
        }
    }

    /** One writer step: a run filled or emptied, or a single-key update; returns the number of map operations. */
    private static long write(GroveSortedMap<Long, Long> map, SplittableRandom random, long i, StressRun run) {
        int choice = random.nextInt(8);
        if (choice < 2) {
            long start = random.nextLong(SLOTS - RUN);
            long ops = 0;
            for (long k = start; k < start + RUN && run.proceed(i + ops); k++) {
                if (!stable(k)) {
                    if (choice == 0) {
                        map.put(k, churnValue(k, i + ops));
                    } else {
                        map.remove(k);
                    }
                    ops++;
                }
            }
            return Math.max(1, ops);
        }
        long k = random.nextLong(SLOTS);
        if (stable(k)) {
            k++;
        }
        switch (choice) {
            case 2 -> map.remove(k);
            case 3 -> map.zc().remove(k);
            case 4 -> map.put(k, churnValue(k, i));
            case 5 -> map.zc().putIfAbsent(k, churnValue(k, i));
            default -> map.putIfAbsent(k, churnValue(k, i));
        }
        return 1;
    }

    private static long churnValue(long k, long i) {
        return (k << 20) | (i & 0xFFFFF);
    }

    /**
     * Runs one scan of {@code kind} and checks it; returns the number of keys it returned and adds the zero-copy
     * elements it skipped as removed to {@code allSkipped}.
     */
    private static long scanAndCheck(GroveSortedMap<Long, Long> map, Kind kind, SplittableRandom random,
            AtomicLong allSkipped) {
        Range range = switch (kind) {
            case SUB_MAP, DESCENDING_SUB_MAP, ZC_SUB_MAP_DESCENDING_ENTRY_STREAM -> {
                long a = random.nextLong(SLOTS);
                long b = random.nextLong(SLOTS);
                yield new Range(Math.min(a, b), random.nextBoolean(), Math.max(a, b), random.nextBoolean());
            }
            case HEAD_MAP_DESCENDING -> new Range(0, true, random.nextLong(SLOTS), random.nextBoolean());
            case ZC_TAIL_MAP_VALUE_STREAM_KEYS -> new Range(random.nextLong(SLOTS), random.nextBoolean(), SLOTS - 1,
                    true);
            default -> Range.ALL;
        };
        boolean descending = kind.descending();
        long[] state = {descending ? Long.MAX_VALUE : Long.MIN_VALUE, 0, 0}; // previous key, stable seen, count
        long[] skipped = {0};
        String what = kind + " over " + range;
        Visitor check = (k, v) -> {
            long previous = state[0];
            if (previous != Long.MAX_VALUE && previous != Long.MIN_VALUE && (descending ? k >= previous
                    : k <= previous)) {
                throw new AssertionError(what + " returned " + k + " after " + previous + " (" + state[2]
                        + " keys into the scan)");
            }
            if (!range.contains(k)) {
                throw new AssertionError(what + " returned " + k + ", out of its range");
            }
            if (v != null && (stable(k) ? v != stableValue(k) : v >>> 20 != k)) {
                throw new AssertionError(what + " returned key " + k + " with value " + v + ", not written for it");
            }
            state[0] = k;
            state[1] += stable(k) ? 1 : 0;
            StressRun.letOthersRun(++state[2]);
        };
        scan(map, kind, range, check, skipped);
        long expectedStable = range.stableKeys();
        if (state[1] != expectedStable) {
            throw new AssertionError(what + " returned " + state[1] + " of the " + expectedStable
                    + " stable keys of its range (" + state[2] + " keys in all, " + skipped[0]
                    + " zero-copy elements skipped as removed); the map holds " + missingStable(map, range));
        }
        allSkipped.addAndGet(skipped[0]);
        return state[2];
    }

    private static String missingStable(GroveSortedMap<Long, Long> map, Range range) {
        StringBuilder b = new StringBuilder("every stable key of the range, checked with get afterwards");
        for (long k = range.lo() & ~3L; k <= range.hi(); k += 4) {
            if (range.contains(k) && map.get(k) == null) {
                b.append(" except ").append(k);
            }
        }
        return b.toString();
    }

    private static void scan(GroveSortedMap<Long, Long> map, Kind kind, Range r, Visitor visitor, long[] skipped) {
        switch (kind) {
            case ENTRY_SET -> entries(map.entrySet().iterator(), visitor);
            case KEY_SET -> keys(map.keySet().iterator(), visitor);
            case DESCENDING_ENTRY_SET -> entries(map.descendingMap().entrySet().iterator(), visitor);
            case DESCENDING_KEY_SET -> keys(map.descendingKeySet().iterator(), visitor);
            case KEY_SET_DESCENDING_ITERATOR -> keys(map.navigableKeySet().descendingIterator(), visitor);
            case SUB_MAP -> entries(subMap(map, r).entrySet().iterator(), visitor);
            case DESCENDING_SUB_MAP -> entries(subMap(map, r).descendingMap().entrySet().iterator(), visitor);
            case HEAD_MAP_DESCENDING -> keys(map.headMap(r.hi(), r.hiInclusive()).descendingKeySet().iterator(),
                    visitor);
            case ZC_ENTRY_STREAM -> zcEntries(map.zc().entryStream(), visitor, skipped);
            case ZC_KEY_STREAM -> zcKeys(map.zc().keyStream(), visitor, skipped);
            case ZC_DESCENDING_ENTRY_STREAM -> zcEntries(map.zc().descendingMap().entryStream(), visitor, skipped);
            case ZC_DESCENDING_KEY_STREAM -> zcKeys(map.zc().descendingMap().keyStream(), visitor, skipped);
            case ZC_KEY_SET -> zcKeys(map.zc().keySet().stream(), visitor, skipped);
            case ZC_DESCENDING_ENTRY_SET -> zcEntries(map.zc().descendingMap().entrySet().stream(), visitor, skipped);
            case ZC_SUB_MAP_DESCENDING_ENTRY_STREAM -> zcEntries(map.zc().subMap(r.lo(), r.loInclusive(), r.hi(),
                    r.hiInclusive()).descendingMap().entryStream(), visitor, skipped);
            case ZC_TAIL_MAP_VALUE_STREAM_KEYS -> {
                // the values of a tail map, ascending: stable values are 3k + 1, so each names its key
                ZeroCopySortedMap<Long, Long> tail = map.zc().tailMap(r.lo(), r.loInclusive());
                try (Stream<Handle> values = tail.valueStream()) {
                    values.forEach(h -> {
                        Long v = readOrNull(h, skipped);
                        if (v != null && stable((v - 1) / 3) && v % 3 == 1 && v < 3L * SLOTS) {
                            visitor.visit((v - 1) / 3, v);
                        } else if (v != null && v >>> 20 >= SLOTS) {
                            throw new AssertionError("the value stream returned " + v + ", never written");
                        }
                    });
                }
            }
        }
    }

    private static NavigableMap<Long, Long> subMap(GroveSortedMap<Long, Long> map, Range r) {
        return map.subMap(r.lo(), r.loInclusive(), r.hi(), r.hiInclusive());
    }

    private static void entries(Iterator<Map.Entry<Long, Long>> it, Visitor visitor) {
        while (it.hasNext()) {
            Map.Entry<Long, Long> e = it.next();
            visitor.visit(e.getKey(), e.getValue());
        }
    }

    private static void keys(Iterator<Long> it, Visitor visitor) {
        while (it.hasNext()) {
            visitor.visit(it.next(), null);
        }
    }

    private static void zcKeys(Stream<Handle> stream, Visitor visitor, long[] skipped) {
        try (stream) {
            stream.forEach(h -> {
                Long k = readOrNull(h, skipped);
                if (k != null) {
                    visitor.visit(k, null);
                }
            });
        }
    }

    private static void zcEntries(Stream<Map.Entry<Handle, Handle>> stream, Visitor visitor, long[] skipped) {
        try (stream) {
            stream.forEach(e -> {
                Long k = readOrNull(e.getKey(), skipped);
                if (k == null) {
                    return;
                }
                Long v = readOrNull(e.getValue(), skipped);
                if (v == null && stable(k)) {
                    throw new AssertionError("the value handle of stable key " + k + " failed: the entry was "
                            + "never removed nor its value replaced");
                }
                visitor.visit(k, v);
            });
        }
    }

    /** The long behind a zero-copy element, or {@code null} (counted) if its entry was removed meanwhile. */
    private static Long readOrNull(Handle h, long[] skipped) {
        try {
            return Serializers.longs().read(h);
        } catch (ConcurrentModificationException removed) {
            skipped[0]++;
            return null;
        }
    }
}
