package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Concurrent inserts of neighbouring raw keys whose 8-byte prefixes do not decide their order, in chunks of 4 and
 * 16 entries so that rebalances run all the time. It exercises three recent changes of the ordered map together:
 * searches compare the entries' 8-byte key prefixes and read a key off heap only on equal prefixes; an insertion
 * links its entry at the window its own search found, and a put-if-absent reuses the search of its presence check,
 * so the window is often stale (another thread linked a neighbour between its two ends) and the link CAS must fail
 * and retry; and scans read 16 entries ahead.
 *
 * <p><b>Keys</b> ({@link #universe}, {@value #STEM_KEYS} per stem): long common stems plus a 2-byte suffix (16
 * equal bytes: every prefix equal, every comparison reads both keys; 8 bytes of 0x80: equal prefixes above 0x7F;
 * 7 bytes of 0xFF: the prefix holds the first suffix byte; 15 zero bytes: equal to a short key's zero padding), and
 * short keys of 0 to 9 bytes over {0, 1, 0x7F, 0x80, 0xFF}, each also padded with zero bytes to 5, 7, 8 and 9
 * bytes, so that keys of different lengths share one prefix. They are sorted by {@link Arrays#compareUnsigned} and
 * cut into groups of {@value #GROUP} neighbours.
 *
 * <p><b>Inserters</b> take tickets of a shared counter: consecutive tickets cycle through the keys of one group,
 * {@value #ATTEMPTS} attempts per key, so several threads insert the same key and its neighbours at once; the
 * groups come in a random order (the seed is printed), so inserts land all over the map. Each attempt uses
 * {@code putIfAbsent}, {@code zc().putIfAbsent}, {@code zc().putIfAbsentComputeIfPresent} (whose computer adds 1
 * to the value in place) or, on some keys, {@code put}. A quarter of the keys are churn keys: <b>removers</b>
 * remove them (mostly in the group being inserted now), with {@code remove} or {@code zc().remove}, and put some
 * back. A <b>scanner</b> checks ascending and descending scans for order and duplicates meanwhile.
 *
 * <p><b>Checks.</b> Per key, the insertions reported minus the removals reported is 0 or 1 and equals its presence
 * at the end ({@link PresenceLedger}): every key never removed was reported inserted exactly once. Every value
 * names its key; on the keys that only {@code putIfAbsent} variants touched, the value counts exactly the
 * in-place increments reported. Iteration, ascending and descending, is strictly ordered by
 * {@link Arrays#compareUnsigned} (so no key twice) and returns exactly the keys that should be present, with
 * their values; {@code size()} agrees.
 */
class SharedStemInsertStressTest {
    private static final int STEM_KEYS = 4_000;
    private static final int GROUP = 8;
    private static final int ATTEMPTS = 6;
    private static final long MIN_REMOVER_OPS = 2_000;

    /** How each key is used, by its number in the sorted universe. */
    enum Role {
        /** Only put-if-absent variants: its value counts the in-place increments. */
        COUNTED,
        /** Put-if-absent variants and {@code put}. */
        PUT,
        /** As {@link #PUT}, and removed and put back by removers. */
        CHURN;

        static Role of(int key) {
            return switch (key & 3) {
                case 0, 2 -> COUNTED;
                case 1 -> PUT;
                default -> CHURN;
            };
        }
    }

    static final byte[][] UNIVERSE = universe();

    static Stream<Arguments> configurations() {
        return Stream.of(StressRun.Threads.values())
                .flatMap(threads -> Stream.of(Arguments.of(threads, 4), Arguments.of(threads, 16)));
    }

    /** The keys, sorted by {@link Arrays#compareUnsigned}, without duplicates. */
    static byte[][] universe() {
        TreeSet<byte[]> keys = new TreeSet<>(Arrays::compareUnsigned);
        byte[][] stems = {filled(16, 0x5A), filled(8, 0x80), filled(7, 0xFF), filled(15, 0x00), filled(9, 0x7F)};
        for (byte[] stem : stems) {
            for (int i = 0; i < STEM_KEYS; i++) {
                int suffix = i * 16 + i % 7; // spread over both bytes, high bytes 0x00 to 0xF9
                byte[] key = Arrays.copyOf(stem, stem.length + 2);
                key[stem.length] = (byte) (suffix >>> 8);
                key[stem.length + 1] = (byte) suffix;
                keys.add(key);
            }
        }
        byte[] alphabet = {0, 1, 0x7F, (byte) 0x80, (byte) 0xFF};
        List<byte[]> shortKeys = new ArrayList<>();
        shortKeys.add(new byte[0]);
        for (int length = 1; length <= 3; length++) {
            List<byte[]> longer = new ArrayList<>();
            for (byte[] k : shortKeys) {
                if (k.length == length - 1) {
                    for (byte b : alphabet) {
                        byte[] next = Arrays.copyOf(k, length);
                        next[length - 1] = b;
                        longer.add(next);
                    }
                }
            }
            shortKeys.addAll(longer);
        }
        for (byte[] k : shortKeys) {
            keys.add(k);
            for (int padded : new int[] {5, 7, 8, 9}) {
                keys.add(Arrays.copyOf(k, padded));
            }
        }
        return keys.toArray(byte[][]::new);
    }

    private static byte[] filled(int length, int b) {
        byte[] stem = new byte[length];
        Arrays.fill(stem, (byte) b);
        return stem;
    }

    static String hex(byte[] key) {
        return "[" + HexFormat.of().formatHex(key) + "]";
    }

    static String name(int key) {
        return "#" + key + " " + hex(UNIVERSE[key]);
    }

    /** The value an insertion writes for {@code key}: the key's number in the high half, a tag in the low. */
    static long valueOf(int key, long tag) {
        return ((long) key << 32) | tag;
    }

    static int keyOfValue(long value) {
        return (int) (value >>> 32);
    }

    @ParameterizedTest(name = "{0}, chunkSize {1}")
    @MethodSource("configurations")
    void insertsOfNeighboursWithSharedStemsAreEachCountedOnce(StressRun.Threads threads, int chunkSize)
            throws Exception {
        long seed = Long.getLong("grove.seed", System.nanoTime());
        String reproduce = "seed " + seed + " (rerun with -Dgrove.seed=" + seed + "), " + threads + ", chunkSize "
                + chunkSize;
        System.out.println("SharedStemInsertStressTest: " + reproduce);
        int keys = UNIVERSE.length;
        int groups = (keys + GROUP - 1) / GROUP;
        int[] groupOrder = shuffled(groups, new SplittableRandom(seed));
        long total = (long) groups * GROUP * ATTEMPTS;

        try (GroveSortedMap<byte[], Long> map = GroveSortedMap.builder(Serializers.bytes(), Serializers.longs())
                .chunkSize(chunkSize).memoryLimit(64L << 20).build()) {
            PresenceLedger ledger = new PresenceLedger(keys);
            AtomicLongArray increments = new AtomicLongArray(keys);
            AtomicLong tickets = new AtomicLong();
            AtomicLong removerOps = new AtomicLong();
            AtomicLong scans = new AtomicLong();
            AtomicLong scanned = new AtomicLong();
            int removers = Math.max(1, threads.count / 8);
            int scanners = 1;
            int inserters = threads.count - removers - scanners;
            AtomicLong insertersLeft = new AtomicLong(inserters);
            AtomicLong writersLeft = new AtomicLong(inserters + removers);
            Object[] chunksAtStart = Internals.chunks(map);
            StressRun run = new StressRun();

            run.workers(threads.factory("stem-insert"), inserters, index -> {
                try {
                    for (long i = 0; run.proceed(i); i++) {
                        long ticket = tickets.getAndIncrement();
                        if (ticket >= total) {
                            return;
                        }
                        int group = groupOrder[(int) (ticket / (GROUP * ATTEMPTS))];
                        int within = (int) (ticket % (GROUP * ATTEMPTS));
                        int key = group * GROUP + within % GROUP;
                        if (key < keys) {
                            insert(map, key, within / GROUP, ledger, increments);
                        }
                    }
                } finally {
                    insertersLeft.decrementAndGet();
                    writersLeft.decrementAndGet();
                }
            });
            run.workers(threads.factory("stem-remove"), removers, index -> {
                SplittableRandom random = new SplittableRandom(seed + 1 + index);
                long i = 0;
                try {
                    for (; (insertersLeft.get() > 0 || i < MIN_REMOVER_OPS) && run.proceed(i); i++) {
                        int key = churnKey(random, groupOrder, tickets.get(), keys);
                        switch (random.nextInt(6)) {
                            case 0, 1 -> {
                                Long old = map.remove(UNIVERSE[key]);
                                if (old != null) {
                                    checkValue(key, old, "remove's old value");
                                    ledger.removed(key);
                                }
                            }
                            case 2, 3 -> {
                                if (map.zc().remove(UNIVERSE[key])) {
                                    ledger.removed(key);
                                }
                            }
                            case 4 -> {
                                Long old = map.putIfAbsent(UNIVERSE[key], valueOf(key, 1L << 31));
                                if (old == null) {
                                    ledger.inserted(key);
                                } else {
                                    checkValue(key, old, "putIfAbsent's present value");
                                }
                            }
                            default -> {
                                if (map.zc().putIfAbsent(UNIVERSE[key], valueOf(key, 1L << 31))) {
                                    ledger.inserted(key);
                                }
                            }
                        }
                    }
                } finally {
                    removerOps.addAndGet(i);
                    writersLeft.decrementAndGet();
                }
            });
            run.workers(threads.factory("stem-scan"), scanners, index -> {
                for (long i = 0; (writersLeft.get() > 0 || i < 2) && run.proceed(i); i++) {
                    boolean descending = (i & 1) == 1;
                    Iterator<byte[]> it = descending ? map.descendingKeySet().iterator() : map.keySet().iterator();
                    scanned.addAndGet(checkOrdered(it, descending ? -1 : 1,
                            descending ? "descending scan" : "ascending scan"));
                    scans.incrementAndGet();
                }
            });

            run.runAndCheck("shared-stem inserts, " + reproduce, () -> "tickets " + tickets.get() + " of " + total
                    + ", remover operations " + removerOps.get() + ", scans " + scans.get() + " returning "
                    + scanned.get() + " keys, "
                    + Internals.chunks(map).length + " chunks");
            if (Internals.chunks(map) == chunksAtStart) {
                throw new AssertionError("vacuous run: no rebalance; " + reproduce);
            }
            checkFinalState(map, ledger, increments, reproduce);
        }
    }

    /** One insertion attempt, number {@code attempt} of {@code key}, by a method that depends on both. */
    private static void insert(GroveSortedMap<byte[], Long> map, int key, int attempt, PresenceLedger ledger,
            AtomicLongArray increments) {
        byte[] k = UNIVERSE[key];
        Role role = Role.of(key);
        int how = (attempt + key) % (role == Role.COUNTED ? 3 : 4);
        long value = role == Role.COUNTED ? valueOf(key, 0) : valueOf(key, 1L << 30 | attempt);
        switch (how) {
            case 0 -> {
                Long old = map.putIfAbsent(k, value);
                if (old == null) {
                    ledger.inserted(key);
                } else {
                    checkValue(key, old, "putIfAbsent's present value");
                }
            }
            case 1 -> {
                if (map.zc().putIfAbsent(k, value)) {
                    ledger.inserted(key);
                }
            }
            case 2 -> {
                int[] calls = {0};
                boolean inserted = map.zc().putIfAbsentComputeIfPresent(k, value, view -> {
                    calls[0]++;
                    // Serializers.longs() stores v ^ MIN_VALUE: adding 1 to the stored word adds 1 to v
                    view.putLong(0, view.getLong(0) + 1);
                });
                if (inserted == (calls[0] == 1) || calls[0] > 1) {
                    throw new AssertionError("putIfAbsentComputeIfPresent on " + name(key) + " returned " + inserted
                            + " and ran its computer " + calls[0] + " times");
                }
                if (inserted) {
                    ledger.inserted(key);
                } else {
                    increments.incrementAndGet(key);
                }
            }
            default -> {
                Long old = map.put(k, value);
                if (old == null) {
                    ledger.inserted(key);
                } else {
                    checkValue(key, old, "put's old value");
                }
            }
        }
    }

    /** A churn key: mostly one of the group being inserted now, where the inserters are. */
    private static int churnKey(SplittableRandom random, int[] groupOrder, long ticket, int keys) {
        int key;
        do {
            if (random.nextInt(4) == 0) {
                key = random.nextInt(keys);
            } else {
                int slot = (int) Math.min(groupOrder.length - 1, ticket / (GROUP * ATTEMPTS));
                key = groupOrder[slot] * GROUP + random.nextInt(GROUP);
            }
            key = (key & ~3) | 3;
        } while (key >= keys);
        return key;
    }

    private static void checkValue(int key, long value, String what) {
        if (keyOfValue(value) != key) {
            throw new AssertionError(what + " of " + name(key) + " is " + Long.toHexString(value)
                    + ", written for " + (keyOfValue(value) < UNIVERSE.length ? name(keyOfValue(value)) : "no key"));
        }
    }

    /** Checks a scan's order; returns the number of keys it returned. */
    private static long checkOrdered(Iterator<byte[]> it, int direction, String what) {
        byte[] previous = null;
        long n = 0;
        while (it.hasNext()) {
            byte[] k = it.next();
            if (previous != null && Integer.signum(Arrays.compareUnsigned(k, previous)) != direction) {
                throw new AssertionError(what + " returned " + hex(k) + " after " + hex(previous) + " (" + n
                        + " keys into the scan)");
            }
            previous = k;
            StressRun.letOthersRun(++n);
        }
        return n;
    }

    private static void checkFinalState(GroveSortedMap<byte[], Long> map, PresenceLedger ledger,
            AtomicLongArray increments, String reproduce) {
        int keys = UNIVERSE.length;
        int expected = ledger.check(k -> map.containsKey(UNIVERSE[k]), SharedStemInsertStressTest::name,
                "after the run, " + reproduce);
        for (int key = 0; key < keys; key++) {
            Role role = Role.of(key);
            if (role != Role.CHURN && ledger.insertions(key) != 1) {
                throw new AssertionError(name(key) + " was reported inserted " + ledger.insertions(key)
                        + " times, never removed; " + reproduce);
            }
            Long v = map.get(UNIVERSE[key]);
            if (v != null) {
                checkValue(key, v, "the final value");
                if (role == Role.COUNTED && v != valueOf(key, increments.get(key))) {
                    throw new AssertionError("the value of " + name(key) + " counts " + (v & 0xFFFF_FFFFL)
                            + " in-place increments, " + increments.get(key) + " were reported; " + reproduce);
                }
            }
        }
        assertEquals(expected, map.size(), "size(); " + reproduce);
        for (boolean descending : new boolean[] {false, true}) {
            List<Map.Entry<byte[], Long>> entries = new ArrayList<>(
                    (descending ? map.descendingMap() : map).entrySet());
            assertEquals(expected, entries.size(), (descending ? "descending" : "ascending")
                    + " iteration, number of entries; " + reproduce);
            int i = descending ? keys - 1 : 0;
            for (Map.Entry<byte[], Long> e : entries) {
                while (i >= 0 && i < keys && ledger.insertions(i) == ledger.removals(i)) {
                    i += descending ? -1 : 1;
                }
                if (i < 0 || i >= keys || !Arrays.equals(UNIVERSE[i], e.getKey())) {
                    throw new AssertionError((descending ? "descending" : "ascending") + " iteration returned "
                            + hex(e.getKey()) + " where " + (i < 0 || i >= keys ? "no key" : name(i))
                            + " was expected; " + reproduce);
                }
                checkValue(i, e.getValue(), "iteration's value");
                i += descending ? -1 : 1;
            }
        }
    }

    private static int[] shuffled(int n, SplittableRandom random) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        return a;
    }
}
