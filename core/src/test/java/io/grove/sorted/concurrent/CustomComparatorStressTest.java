package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.GroveSortedMap;
import io.grove.ZeroCopySortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import io.grove.view.Handle;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The slow path of the ordered map under concurrency: a map built with its own comparator, which the map applies
 * to deserialized keys ({@code KeyOrder.Deserializing}; no key prefixes), here a case-insensitive comparator in
 * reverse: {@code String.CASE_INSENSITIVE_ORDER.reversed()}. Keys are {@code key-NNNNN-xyz} for slot numbers
 * {@code N} (the letters spell {@code N} too), and every operation writes the letters in a random case, so the
 * bytes of a key change from call to call while the comparator sees one key; the map's ascending order is the
 * slots' descending order, which the byte order of the keys would not give.
 *
 * <p>As in {@link ScanStressTest}: slots that are multiples of four are stable keys, inserted before the run and
 * never touched again; writers fill and empty runs of the other slots (chunks of four entries split and merge)
 * and insert, replace, update in place and remove single ones, through the map and its zero-copy API. Scanners
 * repeat scans of every kind ({@link Kind}): ascending and descending, entry and key sets, sub-, head- and
 * tail-maps with bounds in random case, zero-copy streams. Every scan must be strictly ordered by the comparator
 * in its direction (so no key twice, in any case), stay inside its range, return every stable key of its range
 * with its value, and only values written for the key returned.
 *
 * <p>At the end the churn slots agree with what the updates' return values imply ({@link PresenceLedger}), the
 * stable keys hold their values, and a full iteration returns exactly the expected slots, in the comparator's
 * order. Seeds: writer {@code i} uses {@code seed + i}, scanner {@code i} {@code seed + 1000 + i}; the seed is
 * printed.
 */
class CustomComparatorStressTest {
    private static final Comparator<String> ORDER = String.CASE_INSENSITIVE_ORDER.reversed();
    private static final int SLOTS = 1_600;
    private static final int RUN = 40;
    private static final long TOTAL_WRITES = 60_000;
    private static final int MIN_SCANS_PER_SCANNER = 3;

    enum Kind {
        ENTRY_SET, KEY_SET, DESCENDING_ENTRY_SET, DESCENDING_KEY_SET, SUB_MAP, DESCENDING_SUB_MAP, HEAD_MAP,
        TAIL_MAP_DESCENDING, ZC_ENTRY_STREAM, ZC_DESCENDING_KEY_STREAM, ZC_SUB_MAP_ENTRY_STREAM,
        ZC_DESCENDING_ENTRY_SET;

        boolean descending() {
            return name().contains("DESCENDING");
        }
    }

    /** A range of slots, {@code [lo, hi]} with each end open or closed. */
    record Slots(int lo, boolean loInclusive, int hi, boolean hiInclusive) {
        static final Slots ALL = new Slots(0, true, SLOTS - 1, true);

        boolean contains(int n) {
            return (loInclusive ? n >= lo : n > lo) && (hiInclusive ? n <= hi : n < hi);
        }

        int stableKeys() {
            int count = 0;
            for (int n = 0; n < SLOTS; n += 4) {
                count += contains(n) ? 1 : 0;
            }
            return count;
        }
    }

    static boolean stable(int n) {
        return (n & 3) == 0;
    }

    static long stableValue(int n) {
        return -1_000_000L - n;
    }

    /** A churn value: the slot in the high half, a tag in the low half (in-place updates add to it). */
    static long churnValue(int n, long tag) {
        return ((long) n << 32) | (tag & 0xFFFF);
    }

    /** The canonical (lower-case) key of slot {@code n}. */
    static String canonical(int n) {
        StringBuilder letters = new StringBuilder();
        for (int v = n, i = 0; i < 3; i++, v /= 26) {
            letters.append((char) ('a' + v % 26));
        }
        return String.format(Locale.ROOT, "key-%05d-%s", n, letters);
    }

    /** Slot {@code n}'s key with each letter in a random case. */
    static String key(int n, SplittableRandom random) {
        char[] c = canonical(n).toCharArray();
        for (int i = 0; i < c.length; i++) {
            if (Character.isLetter(c[i]) && random.nextBoolean()) {
                c[i] = Character.toUpperCase(c[i]);
            }
        }
        return new String(c);
    }

    /** The slot of a key returned by the map, checking that it is one of slot's spellings. */
    static int slotOf(String key) {
        int n = Integer.parseInt(key.substring(4, 9));
        if (n < 0 || n >= SLOTS || !key.toLowerCase(Locale.ROOT).equals(canonical(n))) {
            throw new AssertionError("the map returned a key never written: " + key);
        }
        return n;
    }

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void scansFollowTheComparatorUnderChurn(StressRun.Threads threads) throws Exception {
        long seed = Long.getLong("grove.seed", System.nanoTime());
        String reproduce = "seed " + seed + " (rerun with -Dgrove.seed=" + seed + "), " + threads;
        System.out.println("CustomComparatorStressTest: " + reproduce);
        try (GroveSortedMap<String, Long> map = GroveSortedMap.builder(Serializers.strings(), Serializers.longs())
                .comparator(ORDER).chunkSize(4).memoryLimit(64L << 20).build()) {
            SplittableRandom setup = new SplittableRandom(seed - 1);
            for (int n = 0; n < SLOTS; n += 4) {
                map.put(key(n, setup), stableValue(n));
            }
            PresenceLedger ledger = new PresenceLedger(SLOTS);
            StressRun run = new StressRun();
            ScansDuringWrites<Kind> scans = new ScansDuringWrites<>(run, threads, "cmp", seed, map, Kind.class);
            scans.writers(TOTAL_WRITES, (writer, random, i) -> write(map, random, i, ledger, run));
            scans.scanners(MIN_SCANS_PER_SCANNER, (scanner, n, random) -> {
                Kind kind = scans.cycledKind(scanner, n);
                return new ScansDuringWrites.Scan<>(kind, () -> scanAndCheck(map, kind, random));
            });
            run.runAndCheck("custom comparator, " + reproduce, () -> "writes " + scans.writes + ", scans per kind "
                    + scans.scansPerKind + " returning " + scans.keysReturned + " keys, " + scans.scansAcrossRebalance
                    + " scans across a rebalance");
            scans.checkEveryKindScanned(reproduce);
            if (scans.scansAcrossRebalance.get() == 0) {
                throw new AssertionError("vacuous run: no scan ran while a rebalance replaced chunks; " + reproduce);
            }
            checkFinalState(map, ledger, reproduce);
        }
    }

    /** One writer step: a run filled or emptied, or a single-key update; returns the number of map operations. */
    private static long write(GroveSortedMap<String, Long> map, SplittableRandom random, long i, PresenceLedger ledger,
            StressRun run) {
        int choice = random.nextInt(10);
        if (choice < 2) {
            int start = random.nextInt(SLOTS - RUN);
            long ops = 0;
            for (int n = start; n < start + RUN && run.proceed(i + ops); n++) {
                if (!stable(n)) {
                    update(map, n, choice == 0 ? 2 : 6, random, i + ops, ledger);
                    ops++;
                }
            }
            return Math.max(1, ops);
        }
        int n = random.nextInt(SLOTS);
        if (stable(n)) {
            n++;
        }
        update(map, n, choice - 2, random, i, ledger);
        return 1;
    }

    /** Update number {@code how} (0-7) of churn slot {@code n}, recorded in the ledger. */
    private static void update(GroveSortedMap<String, Long> map, int n, int how, SplittableRandom random, long i,
            PresenceLedger ledger) {
        String key = key(n, random);
        long value = churnValue(n, i);
        switch (how) {
            case 0 -> record(n, map.putIfAbsent(key, value), ledger, false);
            case 1 -> {
                if (map.zc().putIfAbsent(key, value)) {
                    ledger.inserted(n);
                }
            }
            case 2 -> record(n, map.put(key, value), ledger, false);
            case 3 -> {
                // in place, adds 1 to the value's low half (Serializers.longs() stores v ^ MIN_VALUE)
                if (map.zc().putIfAbsentComputeIfPresent(key, value, view -> view.putLong(0, view.getLong(0) + 1))) {
                    ledger.inserted(n);
                }
            }
            case 4, 6 -> record(n, map.remove(key), ledger, true);
            case 5, 7 -> {
                if (map.zc().remove(key)) {
                    ledger.removed(n);
                }
            }
            default -> throw new AssertionError(how);
        }
    }

    /**
     * Records what an update that returns the previous value did: {@code null} means it inserted (or removed
     * nothing).
     */
    private static void record(int n, Long previous, PresenceLedger ledger, boolean removal) {
        if (previous == null) {
            if (!removal) {
                ledger.inserted(n);
            }
            return;
        }
        checkValue(n, previous, removal ? "remove's old value" : "an update's previous value");
        if (removal) {
            ledger.removed(n);
        }
    }

    private static void checkValue(int n, long v, String what) {
        boolean ok = stable(n) ? v == stableValue(n) : v >>> 32 == n;
        if (!ok) {
            throw new AssertionError(what + " of slot " + n + " is " + Long.toHexString(v) + ", not written for it");
        }
    }

    /** Runs one scan of {@code kind}, checks it and returns the number of keys it returned. */
    private static long scanAndCheck(GroveSortedMap<String, Long> map, Kind kind, SplittableRandom random) {
        int a = random.nextInt(SLOTS);
        int b = random.nextInt(SLOTS);
        Slots range = switch (kind) {
            case SUB_MAP, DESCENDING_SUB_MAP, ZC_SUB_MAP_ENTRY_STREAM -> new Slots(Math.min(a, b),
                    random.nextBoolean(), Math.max(a, b), random.nextBoolean());
            // the map's head is the high slots: headMap(key of a) holds slots above a
            case HEAD_MAP -> new Slots(a, random.nextBoolean(), SLOTS - 1, true);
            case TAIL_MAP_DESCENDING -> new Slots(0, true, b, random.nextBoolean());
            default -> Slots.ALL;
        };
        // in the comparator's order slots descend: a view ascending in that order sees decreasing slots
        int direction = kind.descending() ? 1 : -1;
        String what = kind + " over slots " + range;
        long[] state = {-1, 0, 0}; // previous slot, stable keys seen, keys seen
        Visitor check = (n, v) -> {
            if (state[0] >= 0 && Integer.signum(n - (int) state[0]) != direction) {
                throw new AssertionError(what + " returned slot " + n + " after " + state[0] + " (" + state[2]
                        + " keys into the scan)");
            }
            if (!range.contains(n)) {
                throw new AssertionError(what + " returned slot " + n + ", out of its range");
            }
            if (v != null) {
                checkValue(n, v, what + ": the value");
            }
            state[0] = n;
            state[1] += stable(n) ? 1 : 0;
            StressRun.letOthersRun(++state[2]);
        };
        scan(map, kind, range, random, check);
        if (state[1] != range.stableKeys()) {
            throw new AssertionError(what + " returned " + state[1] + " of the " + range.stableKeys()
                    + " stable keys of its range (" + state[2] + " keys in all)");
        }
        return state[2];
    }

    interface Visitor {
        void visit(int slot, Long value);
    }

    private static void scan(GroveSortedMap<String, Long> map, Kind kind, Slots r, SplittableRandom random,
            Visitor visitor) {
        switch (kind) {
            case ENTRY_SET -> entries(map.entrySet().iterator(), visitor);
            case KEY_SET -> keys(map.keySet().iterator(), visitor);
            case DESCENDING_ENTRY_SET -> entries(map.descendingMap().entrySet().iterator(), visitor);
            case DESCENDING_KEY_SET -> keys(map.descendingKeySet().iterator(), visitor);
            case SUB_MAP -> entries(subMap(map, r, random).entrySet().iterator(), visitor);
            case DESCENDING_SUB_MAP -> entries(subMap(map, r, random).descendingMap().entrySet().iterator(), visitor);
            case HEAD_MAP -> keys(map.headMap(key(r.lo(), random), r.loInclusive()).keySet().iterator(), visitor);
            case TAIL_MAP_DESCENDING -> entries(map.tailMap(key(r.hi(), random), r.hiInclusive()).descendingMap()
                    .entrySet().iterator(), visitor);
            case ZC_ENTRY_STREAM -> zcEntries(map.zc().entryStream(), visitor);
            case ZC_DESCENDING_KEY_STREAM -> zcKeys(map.zc().descendingMap().keyStream(), visitor);
            case ZC_SUB_MAP_ENTRY_STREAM -> {
                ZeroCopySortedMap<String, Long> sub = map.zc().subMap(key(r.hi(), random), r.hiInclusive(),
                        key(r.lo(), random), r.loInclusive());
                zcEntries(sub.entryStream(), visitor);
            }
            case ZC_DESCENDING_ENTRY_SET -> zcEntries(map.zc().descendingMap().entrySet().stream(), visitor);
        }
    }

    /** The sub-map of slots {@code r}: from its high end to its low end in the comparator's order. */
    private static NavigableMap<String, Long> subMap(GroveSortedMap<String, Long> map, Slots r,
            SplittableRandom random) {
        return map.subMap(key(r.hi(), random), r.hiInclusive(), key(r.lo(), random), r.loInclusive());
    }

    private static void entries(Iterator<Map.Entry<String, Long>> it, Visitor visitor) {
        while (it.hasNext()) {
            Map.Entry<String, Long> e = it.next();
            visitor.visit(slotOf(e.getKey()), e.getValue());
        }
    }

    private static void keys(Iterator<String> it, Visitor visitor) {
        while (it.hasNext()) {
            visitor.visit(slotOf(it.next()), null);
        }
    }

    private static void zcKeys(Stream<Handle> stream, Visitor visitor) {
        try (stream) {
            stream.forEach(h -> {
                String k = readKeyOrNull(h);
                if (k != null) {
                    visitor.visit(slotOf(k), null);
                }
            });
        }
    }

    private static void zcEntries(Stream<Map.Entry<Handle, Handle>> stream, Visitor visitor) {
        try (stream) {
            stream.forEach(e -> {
                String k = readKeyOrNull(e.getKey());
                if (k == null) {
                    return;
                }
                int n = slotOf(k);
                Long v;
                try {
                    v = Serializers.longs().read(e.getValue());
                } catch (ConcurrentModificationException removed) {
                    if (stable(n)) {
                        throw new AssertionError("the value handle of stable slot " + n + " failed", removed);
                    }
                    v = null;
                }
                visitor.visit(n, v);
            });
        }
    }

    /** A zero-copy key, or {@code null} if its entry was removed (and compacted) before the read. */
    private static String readKeyOrNull(Handle h) {
        try {
            return Serializers.strings().read(h);
        } catch (ConcurrentModificationException removed) {
            return null;
        }
    }

    private static void checkFinalState(GroveSortedMap<String, Long> map, PresenceLedger ledger,
            String reproduce) {
        SplittableRandom random = new SplittableRandom(0);
        // stable slots were never updated: the ledger holds nothing for them
        int expected = ledger.check(n -> !stable(n) && map.containsKey(key(n, random)),
                n -> "slot " + n, "after the run, " + reproduce) + Slots.ALL.stableKeys();
        for (int n = 0; n < SLOTS; n++) {
            Long v = map.get(key(n, random));
            if (stable(n) && (v == null || v != stableValue(n))) {
                throw new AssertionError("stable slot " + n + " changed: " + v + "; " + reproduce);
            }
            if (v != null) {
                checkValue(n, v, "the final value");
            }
        }
        assertEquals(expected, map.size(), "size(); " + reproduce);
        int n = SLOTS;
        int count = 0;
        for (String k : map.keySet()) {
            int slot = slotOf(k);
            do {
                n--;
            } while (n >= 0 && !stable(n) && ledger.insertions(n) == ledger.removals(n));
            if (slot != n) {
                throw new AssertionError("iteration returned slot " + slot + " where slot " + n
                        + " was expected; " + reproduce);
            }
            count++;
        }
        assertEquals(expected, count, "keys returned by iteration; " + reproduce);
    }
}
