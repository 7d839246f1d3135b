package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.GroveSortedMap;
import io.grove.ZeroCopySortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import io.grove.view.Handle;
import io.grove.view.ResizableView;
import java.util.BitSet;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Writes through range views while chunks of four entries split, merge and compact all the time. Keys are the
 * slots {@code 0 .. SLOTS-1}. Every write goes through a view made at random ({@link #randomView}): sub-, head-
 * and tail-maps with every bound variant (inclusive, exclusive, the two-argument forms), of the map or of its
 * descending map, some narrowed twice, some then turned descending again, and the same of {@code zc()}. Writers
 * use {@code put}, {@code putIfAbsent}, {@code remove}, {@code computeIfPresent} on map views and {@code put},
 * {@code putIfAbsent}, {@code remove}, {@code computeIfPresent}, {@code putIfAbsentComputeIfPresent} on zero-copy
 * views; the computers add 1 to the value in place.
 *
 * <p>A quarter of the writes use a key just outside (or anywhere outside) the view's range. They must change
 * nothing: insertions (zero-copy ones too) throw {@link IllegalArgumentException}; {@code remove},
 * {@code computeIfPresent} and {@code get}, of map and zero-copy views, see the key as absent and return
 * {@code null} or {@code false} (the bound semantics of {@link java.util.concurrent.ConcurrentSkipListMap}'s
 * sub-maps); no computer runs. Their values carry a
 * {@link #FORBIDDEN} bit that no legitimate write uses, and every read, scan and the final state reject it.
 *
 * <p>Slots by role ({@code n & 3}): {@link Role#STABLE} slots are inserted before the run and only ever targeted
 * by out-of-range writes; {@link Role#OWNED} slots are written in range only by their owner, who keeps an exact
 * model and checks every return value against it and, after an out-of-range write by itself, that the key is
 * unchanged; {@link Role#COUNTED} slots get only put-if-absent variants and increments from every writer;
 * {@link Role#CHURN} slots get everything but the zero-copy {@code put} (which reports nothing) from every
 * writer.
 *
 * <p>Scanners scan random views (map views: key set, entry set, descending key set; zero-copy views: key and
 * entry streams and sets) meanwhile. Each scan must return only keys inside its view's range, strictly ordered in
 * the view's direction (so no duplicates), values written for their key, and every key present throughout the
 * scan: the stable keys of the range and the counted keys inserted before the scan began.
 *
 * <p>At the end: the stable slots hold their values, the owned slots their owners' models, each counted slot was
 * inserted at most once and counts exactly the increments reported, and the churn slots agree with the updates'
 * return values ({@link PresenceLedger}); ascending and descending iteration return exactly the expected keys.
 * Seeds: writer {@code i} uses {@code seed + i}, scanner {@code i} {@code seed + 1000 + i}; the seed is printed.
 */
class ViewWriteStressTest {
    private static final int SLOTS = 2_048;
    private static final long TOTAL_WRITES = 200_000;
    private static final int MIN_SCANS_PER_SCANNER = 3;
    /** The tag bit of values written by out-of-range writes, which must never reach the map. */
    private static final long FORBIDDEN = 1L << 31;
    private static final long TAG_MASK = (1L << 30) - 1;

    enum Role {
        STABLE, OWNED, COUNTED, CHURN;

        static Role of(long n) {
            return values()[(int) (n & 3)];
        }
    }

    enum Op {
        PUT, PUT_IF_ABSENT, REMOVE, COMPUTE_IF_PRESENT, GET,
        ZC_PUT, ZC_PUT_IF_ABSENT, ZC_REMOVE, ZC_COMPUTE_IF_PRESENT, ZC_UPSERT, ZC_GET;

        static final Op[] MAP_WRITES = {PUT, PUT_IF_ABSENT, REMOVE, COMPUTE_IF_PRESENT};
        static final Op[] ZC_WRITES = {ZC_PUT, ZC_PUT_IF_ABSENT, ZC_REMOVE, ZC_COMPUTE_IF_PRESENT, ZC_UPSERT};
        static final Op[] MAP_COUNTED = {PUT_IF_ABSENT, COMPUTE_IF_PRESENT};
        static final Op[] ZC_COUNTED = {ZC_PUT_IF_ABSENT, ZC_COMPUTE_IF_PRESENT, ZC_UPSERT};
        static final Op[] ZC_CHURN = {ZC_PUT_IF_ABSENT, ZC_REMOVE, ZC_COMPUTE_IF_PRESENT, ZC_UPSERT};

        /** Whether the operation on a key outside a view's range must throw {@link IllegalArgumentException}. */
        boolean rejectsOutOfRange() {
            return this == PUT || this == PUT_IF_ABSENT || this == ZC_PUT || this == ZC_PUT_IF_ABSENT
                    || this == ZC_UPSERT;
        }
    }

    enum ScanKind {
        KEY_SET, ENTRY_SET, DESCENDING_KEY_SET, ZC_KEY_STREAM, ZC_ENTRY_STREAM, ZC_KEY_SET, ZC_ENTRY_SET;

        static final ScanKind[] MAP = {KEY_SET, ENTRY_SET, DESCENDING_KEY_SET};
        static final ScanKind[] ZC = {ZC_KEY_STREAM, ZC_ENTRY_STREAM, ZC_KEY_SET, ZC_ENTRY_SET};
    }

    /** A key range in key order; a {@code null} end is open. */
    record Bounds(Long lo, boolean loInclusive, Long hi, boolean hiInclusive) {
        static final Bounds ALL = new Bounds(null, false, null, false);

        boolean contains(long n) {
            return (lo == null || (loInclusive ? n >= lo : n > lo)) && (hi == null || (hiInclusive ? n <= hi : n < hi));
        }

        /** The lowest slot inside, or {@code SLOTS} if none. */
        long lowestSlot() {
            return lo == null ? 0 : loInclusive ? lo : lo + 1;
        }

        long highestSlot() {
            return hi == null ? SLOTS - 1 : hiInclusive ? hi : hi - 1;
        }

        @Override
        public String toString() {
            return (lo == null ? "(-inf" : (loInclusive ? "[" : "(") + lo) + ", "
                    + (hi == null ? "+inf)" : hi + (hiInclusive ? "]" : ")"));
        }
    }

    /** A view of {@code bounds} in a direction: a map view or a zero-copy one (the other is null). */
    record View(String path, Bounds bounds, boolean descending, ConcurrentNavigableMap<Long, Long> map,
            ZeroCopySortedMap<Long, Long> zc) {

        View descendingView() {
            return new View(path + ".descendingMap()", bounds, !descending,
                    map == null ? null : map.descendingMap(), zc == null ? null : zc.descendingMap());
        }

        /**
         * A sub-, head- or tail-map inside this view's range, with random bounds and flags (on map views sometimes
         * the two-argument form: "from" inclusive, "to" exclusive).
         */
        View narrowed(SplittableRandom r) {
            int kind = r.nextInt(3); // sub, head, tail
            // in a descending view, head is the high end of the keys: headMap sets the lower bound
            boolean setsLo = kind == 0 || (kind == 1) == descending;
            boolean setsHi = kind == 0 || (kind == 1) != descending;
            long min = bounds.lo() == null ? 0 : bounds.lo();
            long max = bounds.hi() == null ? SLOTS - 1 : bounds.hi();
            long x = setsLo ? min + r.nextLong(max - min + 1) : 0;
            long yMin = setsLo ? x : min;
            long y = setsHi ? yMin + r.nextLong(max - yMin + 1) : 0;
            boolean twoArg = map != null && r.nextInt(3) == 0;
            // "from" is the lower bound ascending, the upper one descending
            boolean xInc = twoArg ? !descending : r.nextBoolean();
            boolean yInc = twoArg ? descending : r.nextBoolean();
            // a new bound equal to an exclusive bound of this view must be exclusive too
            if (setsLo && xInc && bounds.lo() != null && !bounds.loInclusive() && x == bounds.lo()) {
                xInc = false;
                twoArg = false;
            }
            if (setsHi && yInc && bounds.hi() != null && !bounds.hiInclusive() && y == bounds.hi()) {
                yInc = false;
                twoArg = false;
            }
            Bounds narrowed = new Bounds(setsLo ? Long.valueOf(x) : bounds.lo(), setsLo ? xInc : bounds.loInclusive(),
                    setsHi ? Long.valueOf(y) : bounds.hi(), setsHi ? yInc : bounds.hiInclusive());
            long from = descending ? y : x;
            boolean fromInc = descending ? yInc : xInc;
            long to = descending ? x : y;
            boolean toInc = descending ? xInc : yInc;
            String call;
            ConcurrentNavigableMap<Long, Long> m = null;
            ZeroCopySortedMap<Long, Long> z = null;
            switch (kind) {
                case 0 -> {
                    call = twoArg ? ".subMap(" + from + ", " + to + ")"
                            : ".subMap(" + from + ", " + fromInc + ", " + to + ", " + toInc + ")";
                    if (map != null) {
                        m = twoArg ? map.subMap(from, to) : map.subMap(from, fromInc, to, toInc);
                    } else {
                        z = zc.subMap(from, fromInc, to, toInc);
                    }
                }
                case 1 -> {
                    call = twoArg ? ".headMap(" + to + ")" : ".headMap(" + to + ", " + toInc + ")";
                    if (map != null) {
                        m = twoArg ? map.headMap(to) : map.headMap(to, toInc);
                    } else {
                        z = zc.headMap(to, toInc);
                    }
                }
                default -> {
                    call = twoArg ? ".tailMap(" + from + ")" : ".tailMap(" + from + ", " + fromInc + ")";
                    if (map != null) {
                        m = twoArg ? map.tailMap(from) : map.tailMap(from, fromInc);
                    } else {
                        z = zc.tailMap(from, fromInc);
                    }
                }
            }
            return new View(path + call, narrowed, descending, m, z);
        }

        @Override
        public String toString() {
            return path + " over " + bounds + (descending ? " descending" : "");
        }
    }

    /** A random view: of the map or of {@code zc()}, narrowed once or twice, each step maybe descending. */
    static View randomView(GroveSortedMap<Long, Long> map, SplittableRandom r, boolean zeroCopy) {
        View v = zeroCopy ? new View("zc()", Bounds.ALL, false, null, map.zc())
                : new View("map", Bounds.ALL, false, map, null);
        if (r.nextInt(4) == 0) {
            v = v.descendingView();
        }
        v = v.narrowed(r);
        if (r.nextInt(4) == 0) {
            v = v.narrowed(r);
        }
        if (r.nextInt(3) == 0) {
            v = v.descendingView();
        }
        return v;
    }

    static long valueOf(long n, long tag) {
        return n << 32 | tag;
    }

    static long stableValue(long n) {
        return valueOf(n, 0x1234_5678);
    }

    /** What the writers did, shared by all of them. */
    private record Shared(GroveSortedMap<Long, Long> map, int writers, PresenceLedger ledger,
            AtomicLongArray increments, long[] owned, AtomicLongArray opsInRange, AtomicLong outOfRange) {

        int owner(long n) {
            return (int) ((n >> 2) % writers);
        }
    }

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void writesThroughViewsStayInsideTheirRanges(StressRun.Threads threads) throws Exception {
        long seed = Long.getLong("grove.seed", System.nanoTime());
        String reproduce = "seed " + seed + " (rerun with -Dgrove.seed=" + seed + "), " + threads;
        System.out.println("ViewWriteStressTest: " + reproduce);
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).memoryLimit(64L << 20).build()) {
            for (long n = 0; n < SLOTS; n += 4) {
                map.put(n, stableValue(n));
            }
            StressRun run = new StressRun();
            ScansDuringWrites<ScanKind> scans = new ScansDuringWrites<>(run, threads, "view", seed, map,
                    ScanKind.class);
            Shared shared = new Shared(map, scans.writers, new PresenceLedger(SLOTS), new AtomicLongArray(SLOTS),
                    new long[SLOTS], new AtomicLongArray(Op.values().length), new AtomicLong());
            scans.writers(TOTAL_WRITES, (writer, random, i) -> {
                write(shared, randomView(map, random, random.nextBoolean()), random, writer, i);
                return 1;
            });
            scans.scanners(MIN_SCANS_PER_SCANNER, (scanner, n, random) -> {
                boolean zeroCopy = (n & 1) == 1;
                View view = randomView(map, random, zeroCopy);
                ScanKind[] kinds = zeroCopy ? ScanKind.ZC : ScanKind.MAP;
                ScanKind kind = kinds[random.nextInt(kinds.length)];
                return new ScansDuringWrites.Scan<>(kind, () -> scanAndCheck(shared, view, kind));
            });
            run.runAndCheck("view writes, " + reproduce, () -> "writes " + scans.writes + " (in range, per "
                    + "operation " + shared.opsInRange() + "; out of range " + shared.outOfRange().get()
                    + "), scans per kind " + scans.scansPerKind + " returning " + scans.keysReturned + " keys, "
                    + scans.scansAcrossRebalance + " scans across a rebalance");
            scans.checkEveryKindScanned(reproduce);
            for (Op op : Op.values()) {
                if (shared.opsInRange().get(op.ordinal()) == 0) {
                    throw new AssertionError("no in-range " + op + " ran; " + reproduce);
                }
            }
            if (shared.outOfRange().get() == 0 || scans.scansAcrossRebalance.get() == 0) {
                throw new AssertionError("vacuous run: " + shared.outOfRange().get() + " out-of-range writes, "
                        + scans.scansAcrossRebalance.get() + " scans across a rebalance; " + reproduce);
            }
            checkFinalState(shared, reproduce);
        }
    }

    /** One write through {@code v} by writer {@code writer}: a quarter (all, if the range is empty) out of range. */
    private static void write(Shared shared, View v, SplittableRandom r, int writer, long i) {
        long inside = insideSlot(v.bounds(), r);
        long outside = outsideSlot(v.bounds(), r);
        if (outside >= 0 && (inside < 0 || r.nextInt(4) == 0)) {
            writeOutOfRange(shared, v, outside, r, writer);
            return;
        }
        if (inside < 0) {
            return; // an empty range with nothing outside it cannot happen with slots 0 .. SLOTS-1
        }
        writeInRange(shared, v, inside, r, writer, i);
    }

    /** A slot inside the range, often one at its ends; -1 if the range holds no slot. */
    private static long insideSlot(Bounds b, SplittableRandom r) {
        long lowest = b.lowestSlot();
        long highest = b.highestSlot();
        if (lowest > highest) {
            return -1;
        }
        return switch (r.nextInt(6)) {
            case 0 -> lowest;
            case 1 -> highest;
            default -> lowest + r.nextLong(highest - lowest + 1);
        };
    }

    /** A slot outside the range, often the one just beyond an end; -1 if every slot is inside. */
    private static long outsideSlot(Bounds b, SplittableRandom r) {
        long below = b.lo() == null ? -1 : b.loInclusive() ? b.lo() - 1 : b.lo();
        long above = b.hi() == null ? SLOTS : b.hiInclusive() ? b.hi() + 1 : b.hi();
        boolean hasBelow = below >= 0;
        boolean hasAbove = above < SLOTS;
        if (!hasBelow && !hasAbove) {
            return -1;
        }
        boolean low = hasBelow && (!hasAbove || r.nextBoolean());
        boolean edge = r.nextBoolean();
        if (low) {
            return edge ? below : r.nextLong(below + 1);
        }
        return edge ? above : above + r.nextLong(SLOTS - above);
    }

    private static final BiFunction<Long, Long, Long> NEVER_CALLED = (k, v) -> {
        throw new AssertionError("the function of an out-of-range computeIfPresent ran on key " + k);
    };

    private static final Consumer<ResizableView> NEVER_RUN = view -> {
        throw new AssertionError("the computer of an out-of-range zero-copy update ran");
    };

    /** Adds 1 to a value in place (Serializers.longs() stores v ^ MIN_VALUE: adding 1 to the word adds 1 to v). */
    private static final Consumer<ResizableView> INCREMENT = view -> view.putLong(0, view.getLong(0) + 1);

    private static void writeOutOfRange(Shared shared, View v, long n, SplittableRandom r, int writer) {
        Op[] family = v.map() != null ? new Op[] {Op.PUT, Op.PUT_IF_ABSENT, Op.REMOVE, Op.COMPUTE_IF_PRESENT, Op.GET}
                : new Op[] {Op.ZC_PUT, Op.ZC_PUT_IF_ABSENT, Op.ZC_REMOVE, Op.ZC_COMPUTE_IF_PRESENT, Op.ZC_UPSERT,
                    Op.ZC_GET};
        Op op = family[r.nextInt(family.length)];
        long value = valueOf(n, FORBIDDEN);
        String what = op + " of out-of-range key " + n + " through " + v;
        Long before = shared.map().get(n);
        shared.outOfRange().incrementAndGet();
        try {
            Object result = switch (op) {
                case PUT -> v.map().put(n, value);
                case PUT_IF_ABSENT -> v.map().putIfAbsent(n, value);
                case REMOVE -> v.map().remove(n);
                case COMPUTE_IF_PRESENT -> v.map().computeIfPresent(n, NEVER_CALLED);
                case GET -> v.map().containsKey(n) ? "containsKey true" : v.map().get(n);
                case ZC_PUT -> {
                    v.zc().put(n, value);
                    yield "returned";
                }
                case ZC_PUT_IF_ABSENT -> v.zc().putIfAbsent(n, value);
                case ZC_REMOVE -> v.zc().remove(n);
                case ZC_COMPUTE_IF_PRESENT -> v.zc().computeIfPresent(n, NEVER_RUN);
                case ZC_UPSERT -> v.zc().putIfAbsentComputeIfPresent(n, value, NEVER_RUN);
                case ZC_GET -> v.zc().get(n);
            };
            if (op.rejectsOutOfRange()) {
                throw new AssertionError(what + " did not throw IllegalArgumentException but returned " + result);
            }
            if (result != null && result != Boolean.FALSE) {
                throw new AssertionError(what + " returned " + result + ", not null or false (absent)");
            }
        } catch (IllegalArgumentException e) {
            if (!op.rejectsOutOfRange()) {
                throw new AssertionError(what + " threw instead of seeing the key as absent", e);
            }
        }
        Role role = Role.of(n);
        if (role == Role.STABLE || (role == Role.OWNED && shared.owner(n) == writer)) {
            Long after = shared.map().get(n);
            long expected = role == Role.STABLE ? stableValue(n) : shared.owned()[(int) n];
            if (!(expected == 0 ? after == null : after != null && after == expected)) {
                throw new AssertionError(what + " changed the key from " + hex(before) + " to " + hex(after));
            }
        }
    }

    private static void writeInRange(Shared shared, View v, long n, SplittableRandom r, int writer, long i) {
        Role role = Role.of(n);
        boolean zc = v.zc() != null;
        String what = "through " + v + ", key " + n;
        if (role == Role.STABLE || (role == Role.OWNED && shared.owner(n) != writer)) {
            shared.opsInRange().incrementAndGet(zc ? Op.ZC_GET.ordinal() : Op.GET.ordinal());
            Long value = zc ? readOrNull(v.zc().get(n)) : v.map().get(n);
            if (role == Role.STABLE ? value == null || value != stableValue(n) : value != null) {
                if (value == null) {
                    throw new AssertionError("get " + what + ": the stable key is missing");
                }
                checkValue(n, value, "get " + what);
            }
            return;
        }
        Op op = switch (role) {
            case OWNED -> zc ? pick(Op.ZC_WRITES, r) : pick(Op.MAP_WRITES, r);
            case COUNTED -> zc ? pick(Op.ZC_COUNTED, r) : pick(Op.MAP_COUNTED, r);
            default -> zc ? pick(Op.ZC_CHURN, r) : pick(Op.MAP_WRITES, r);
        };
        shared.opsInRange().incrementAndGet(op.ordinal());
        what = op + " " + what;
        long fresh = valueOf(n, role == Role.COUNTED ? 0 : i & TAG_MASK);
        if (role == Role.OWNED) {
            writeOwned(shared, v, n, op, fresh, what);
            return;
        }
        PresenceLedger ledger = shared.ledger();
        int slot = (int) n;
        switch (op) {
            case PUT -> {
                Long old = v.map().put(n, fresh);
                if (old == null) {
                    ledger.inserted(slot);
                } else {
                    checkValue(n, old, what + ": the old value");
                }
            }
            case PUT_IF_ABSENT -> {
                Long old = v.map().putIfAbsent(n, fresh);
                if (old == null) {
                    ledger.inserted(slot);
                } else {
                    checkValue(n, old, what + ": the present value");
                }
            }
            case REMOVE -> {
                Long old = v.map().remove(n);
                if (old != null) {
                    checkValue(n, old, what + ": the old value");
                    ledger.removed(slot);
                }
            }
            case COMPUTE_IF_PRESENT -> {
                Long next = v.map().computeIfPresent(n, (k, old) -> {
                    checkValue(n, old, "computeIfPresent's old value");
                    return old + 1;
                });
                if (next != null) {
                    checkValue(n, next, what + ": the result");
                    shared.increments().incrementAndGet(slot);
                }
            }
            case ZC_PUT_IF_ABSENT -> {
                if (v.zc().putIfAbsent(n, fresh)) {
                    ledger.inserted(slot);
                }
            }
            case ZC_REMOVE -> {
                if (v.zc().remove(n)) {
                    ledger.removed(slot);
                }
            }
            case ZC_COMPUTE_IF_PRESENT -> {
                if (v.zc().computeIfPresent(n, INCREMENT)) {
                    shared.increments().incrementAndGet(slot);
                }
            }
            case ZC_UPSERT -> {
                if (v.zc().putIfAbsentComputeIfPresent(n, fresh, INCREMENT)) {
                    ledger.inserted(slot);
                } else {
                    shared.increments().incrementAndGet(slot);
                }
            }
            default -> throw new AssertionError(op);
        }
    }

    /** An update of an owned slot by its owner, checked against its exact model ({@code 0}: absent). */
    private static void writeOwned(Shared shared, View v, long n, Op op, long fresh, String what) {
        long[] model = shared.owned();
        int slot = (int) n;
        long m = model[slot];
        Long expectedOld = m == 0 ? null : m;
        Object result;
        Object expected;
        switch (op) {
            case PUT -> {
                result = v.map().put(n, fresh);
                expected = expectedOld;
                model[slot] = fresh;
            }
            case PUT_IF_ABSENT -> {
                result = v.map().putIfAbsent(n, fresh);
                expected = expectedOld;
                model[slot] = m == 0 ? fresh : m;
            }
            case REMOVE -> {
                result = v.map().remove(n);
                expected = expectedOld;
                model[slot] = 0;
            }
            case COMPUTE_IF_PRESENT -> {
                result = v.map().computeIfPresent(n, (k, old) -> old + 1);
                expected = m == 0 ? null : m + 1;
                model[slot] = m == 0 ? 0 : m + 1;
            }
            case ZC_PUT -> {
                v.zc().put(n, fresh);
                result = expected = null;
                model[slot] = fresh;
            }
            case ZC_PUT_IF_ABSENT -> {
                result = v.zc().putIfAbsent(n, fresh);
                expected = m == 0;
                model[slot] = m == 0 ? fresh : m;
            }
            case ZC_REMOVE -> {
                result = v.zc().remove(n);
                expected = m != 0;
                model[slot] = 0;
            }
            case ZC_COMPUTE_IF_PRESENT -> {
                result = v.zc().computeIfPresent(n, INCREMENT);
                expected = m != 0;
                model[slot] = m == 0 ? 0 : m + 1;
            }
            case ZC_UPSERT -> {
                result = v.zc().putIfAbsentComputeIfPresent(n, fresh, INCREMENT);
                expected = m == 0;
                model[slot] = m == 0 ? fresh : m + 1;
            }
            default -> throw new AssertionError(op);
        }
        if (!java.util.Objects.equals(result, expected)) {
            throw new AssertionError(what + " returned " + describe(result) + " where its owner's model says "
                    + describe(expected) + " (the key held " + hex(expectedOld) + ")");
        }
    }

    private static Op pick(Op[] ops, SplittableRandom r) {
        return ops[r.nextInt(ops.length)];
    }

    private static String describe(Object o) {
        return o instanceof Long l ? hex(l) : String.valueOf(o);
    }

    private static String hex(Long v) {
        return v == null ? "null (absent)" : "0x" + Long.toHexString(v);
    }

    private static void checkValue(long n, long v, String what) {
        boolean ok = Role.of(n) == Role.STABLE ? v == stableValue(n) : v >>> 32 == n && (v & FORBIDDEN) == 0;
        if (!ok) {
            throw new AssertionError(what + ": value " + hex(v) + " of key " + n + " was not written for it"
                    + ((v & FORBIDDEN) != 0 && v >>> 32 == n ? " (an out-of-range write's value)" : ""));
        }
    }

    /** A zero-copy value, or {@code null} if absent or removed (or replaced) before the read. */
    private static Long readOrNull(Handle h) {
        if (h == null) {
            return null;
        }
        try {
            return Serializers.longs().read(h);
        } catch (ConcurrentModificationException removed) {
            return null;
        }
    }

    /** Runs one scan of {@code kind} over {@code v}, checks it and returns the number of keys it returned. */
    private static long scanAndCheck(Shared shared, View v, ScanKind kind) {
        Bounds b = v.bounds();
        BitSet mustSee = new BitSet(SLOTS);
        for (long n = 0; n < SLOTS; n += 4) {
            if (b.contains(n)) {
                mustSee.set((int) n);
            }
            if (b.contains(n + 2) && shared.ledger().insertions((int) n + 2) > 0) {
                mustSee.set((int) n + 2); // counted slots are never removed once inserted
            }
        }
        boolean descending = v.descending() ^ kind == ScanKind.DESCENDING_KEY_SET;
        String what = kind + " of " + v;
        OrderedLongScan scan = new OrderedLongScan(what, descending, b::contains);
        BitSet seen = new BitSet(SLOTS);
        switch (kind) {
            case KEY_SET -> keys(v.map().keySet().iterator(), scan, seen);
            case DESCENDING_KEY_SET -> keys(v.map().descendingKeySet().iterator(), scan, seen);
            case ENTRY_SET -> {
                for (Map.Entry<Long, Long> e : v.map().entrySet()) {
                    visit(e.getKey(), e.getValue(), scan, seen, what);
                }
            }
            case ZC_KEY_STREAM -> zcKeys(v.zc().keyStream(), scan, seen);
            case ZC_KEY_SET -> zcKeys(v.zc().keySet().stream(), scan, seen);
            case ZC_ENTRY_STREAM -> zcEntries(v.zc().entryStream(), scan, seen, what);
            case ZC_ENTRY_SET -> zcEntries(v.zc().entrySet().stream(), scan, seen, what);
        }
        mustSee.andNot(seen);
        if (!mustSee.isEmpty()) {
            throw new AssertionError(what + " missed keys present throughout the scan: " + mustSee + " ("
                    + scan.count() + " keys returned)");
        }
        return scan.count();
    }

    private static void visit(long key, Long value, OrderedLongScan scan, BitSet seen, String what) {
        scan.next(key);
        seen.set((int) key);
        if (value != null) {
            checkValue(key, value, what);
        }
    }

    private static void keys(Iterator<Long> it, OrderedLongScan scan, BitSet seen) {
        while (it.hasNext()) {
            visit(it.next(), null, scan, seen, null);
        }
    }

    private static void zcKeys(Stream<Handle> stream, OrderedLongScan scan, BitSet seen) {
        try (stream) {
            stream.forEach(h -> {
                Long k = readOrNull(h);
                if (k != null) {
                    visit(k, null, scan, seen, null);
                }
            });
        }
    }

    private static void zcEntries(Stream<Map.Entry<Handle, Handle>> stream, OrderedLongScan scan, BitSet seen,
            String what) {
        try (stream) {
            stream.forEach(e -> {
                Long k = readOrNull(e.getKey());
                if (k != null) {
                    // a handle on a value replaced or removed since fails: the key is still returned
                    visit(k, readOrNull(e.getValue()), scan, seen, what);
                }
            });
        }
    }

    private static void checkFinalState(Shared shared, String reproduce) {
        GroveSortedMap<Long, Long> map = shared.map();
        PresenceLedger ledger = shared.ledger();
        // the ledger holds only counted and churn slots; the others must show 0 there
        ledger.check(n -> (Role.of(n) == Role.COUNTED || Role.of(n) == Role.CHURN) && map.containsKey((long) n),
                n -> "slot " + n + " (" + Role.of(n) + ")", "after the run, " + reproduce);
        BitSet expected = new BitSet(SLOTS);
        for (int n = 0; n < SLOTS; n++) {
            Long v = map.get((long) n);
            String what = "the final value of slot " + n + " (" + Role.of(n) + "); " + reproduce;
            switch (Role.of(n)) {
                case STABLE -> {
                    if (v == null || v != stableValue(n)) {
                        throw new AssertionError("stable slot " + n + " changed to " + hex(v) + "; " + reproduce);
                    }
                }
                case OWNED -> {
                    long m = shared.owned()[n];
                    if (!(m == 0 ? v == null : v != null && v == m)) {
                        throw new AssertionError("owned slot " + n + " holds " + hex(v) + ", its owner's model "
                                + hex(m == 0 ? null : m) + "; " + reproduce);
                    }
                }
                case COUNTED -> {
                    if (ledger.insertions(n) > 1) {
                        throw new AssertionError("counted slot " + n + " was reported inserted "
                                + ledger.insertions(n) + " times; " + reproduce);
                    }
                    if (v != null && v != valueOf(n, shared.increments().get(n))) {
                        throw new AssertionError("counted slot " + n + " holds " + hex(v) + ", "
                                + shared.increments().get(n) + " increments were reported; " + reproduce);
                    }
                }
                default -> { }
            }
            if (v != null) {
                checkValue(n, v, what);
                expected.set(n);
            }
        }
        assertEquals(expected.cardinality(), map.size(), "size(); " + reproduce);
        for (boolean descending : new boolean[] {false, true}) {
            BitSet left = (BitSet) expected.clone();
            OrderedLongScan scan = new OrderedLongScan((descending ? "descending" : "ascending")
                    + " final iteration; " + reproduce, descending, n -> n >= 0 && n < SLOTS);
            for (Map.Entry<Long, Long> e : (descending ? map.descendingMap() : map).entrySet()) {
                scan.next(e.getKey());
                if (!left.get(e.getKey().intValue())) {
                    throw new AssertionError("final iteration returned slot " + e.getKey() + ", absent to get; "
                            + reproduce);
                }
                left.clear(e.getKey().intValue());
                checkValue(e.getKey(), e.getValue(), "final iteration");
            }
            if (!left.isEmpty()) {
                throw new AssertionError("final iteration missed " + left + "; " + reproduce);
            }
        }
    }
}
