package io.grove.sorted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.grove.GroveOutOfMemoryException;
import io.grove.GroveSortedMap;
import io.grove.MemoryFootprint;
import io.grove.MemoryPool;
import io.grove.SerializerException;
import io.grove.WriteBatch;
import io.grove.serial.Serializer;
import io.grove.serial.Serializers;
import io.grove.testing.BadInput;
import io.grove.testing.BadInput.LyingSerializer;
import io.grove.view.Handle;
import java.time.Duration;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.opentest4j.AssertionFailedError;

/**
 * The single-threaded contract of {@link WriteBatch} on a {@link GroveSortedMap}, against a {@link TreeMap} model
 * to which the batch's operations are applied one by one, in order.
 *
 * <p>Covered: puts and removals applied (puts over present keys, removals of absent keys), compared on
 * {@code get}, {@code containsKey}, a zero-copy {@code get}, {@code size}, the entries in order and the first and
 * last keys, and value handles taken before a batch that replaces or removes their values; the last operation on a
 * key wins; {@code size()} and {@code clear()}; empty batches; a batch applied again, and changed and applied
 * again; a long seeded differential run of random batches mixed with single-key updates, with chunks of 4 and of
 * 64 entries so that chunks split and merge; batches of 10,000 operations; bad input (nulls rejected by the batch
 * and leaving it unchanged; a key or a value too large, and a serializer that throws or lies, fail the whole
 * {@code apply} and change neither the map nor its pool's live slices); a memory limit (a batch whose values do
 * not fit throws {@link GroveOutOfMemoryException}, changes nothing, leaks nothing, and the map works on; so does
 * one whose new keys do not fit, which fails later, while it gives its keys entries); a closed map; a batch applied
 * from a function passed to an operation on the same map ("Recursive update"); a user's comparator (keys equal
 * under it are one key); and the pool's live slices once every key is removed by a batch, against a twin map that
 * runs the same operations one key at a time.
 *
 * <p>The seed of the random tests comes from the system property {@code grove.seed} if set
 * ({@code -Dgrove.seed=...}), otherwise it is random; it is printed, and every assertion message of those tests
 * carries it, with the round and the batch's operations.
 */
class WriteBatchContractTest {
    static final long SEED = seed();
    private static final Duration TIME_LIMIT = Duration.ofSeconds(120);
    private static final Serializer<String> STRINGS = Serializers.strings();

    private final List<AutoCloseable> toClose = new ArrayList<>();

    private static long seed() {
        String property = System.getProperty("grove.seed");
        long seed = property != null && !property.isBlank() ? Long.parseLong(property.trim())
                : new SplittableRandom().nextLong();
        System.out.println("WriteBatchContractTest: -Dgrove.seed=" + seed);
        return seed;
    }

    @AfterEach
    void closeAll() throws Exception {
        Collections.reverse(toClose); // maps before the pools they draw on
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private <T extends AutoCloseable> T closeLater(T closeable) {
        toClose.add(closeable);
        return closeable;
    }

    private GroveSortedMap<String, String> stringMap(int chunkSize) {
        return closeLater(GroveSortedMap.builder(STRINGS, STRINGS).chunkSize(chunkSize).build());
    }

    // ---- the model ---------------------------------------------------------------------------------------------

    /** One operation of a batch: a put, or a removal if {@code value} is {@code null}. */
    private record Op<K, V>(K key, V value) {
        static <K, V> Op<K, V> put(K key, V value) {
            return new Op<>(key, value);
        }

        static <K, V> Op<K, V> remove(K key) {
            return new Op<>(key, null);
        }

        void addTo(WriteBatch<K, V> batch) {
            if (value == null) {
                batch.remove(key);
            } else {
                batch.put(key, value);
            }
        }

        void applyTo(Map<K, V> model) {
            if (value == null) {
                model.remove(key);
            } else {
                model.put(key, value);
            }
        }

        @Override
        public String toString() {
            return value == null ? "remove(" + key + ")" : "put(" + key + ", " + cut(String.valueOf(value)) + ")";
        }
    }

    private static String cut(String s) {
        return s.length() <= 24 ? s : s.substring(0, 24) + "...(" + s.length() + " chars)";
    }

    /** A new batch of {@code map} holding {@code ops}, in order. */
    private static <K, V> WriteBatch<K, V> batchOf(GroveSortedMap<K, V> map, List<Op<K, V>> ops) {
        WriteBatch<K, V> batch = map.batch();
        for (Op<K, V> op : ops) {
            op.addTo(batch);
        }
        assertEquals(ops.size(), batch.size(), "the batch's size after adding " + ops.size() + " operations");
        return batch;
    }

    private static <K, V> void applyAll(Map<K, V> model, List<Op<K, V>> ops) {
        for (Op<K, V> op : ops) {
            op.applyTo(model);
        }
    }

    private static <K, V> List<Map.Entry<K, V>> entries(Map<K, V> map) {
        List<Map.Entry<K, V>> out = new ArrayList<>();
        for (Map.Entry<K, V> e : map.entrySet()) {
            out.add(new SimpleImmutableEntry<>(e.getKey(), e.getValue()));
        }
        return out;
    }

    /**
     * Asserts that {@code map} holds exactly what {@code model} holds: size, emptiness, the entries in order, the
     * first and last keys, and for each of {@code probes} {@code get}, {@code containsKey} and a zero-copy
     * {@code get} read with {@code values}.
     */
    private static <K, V> void assertMatches(TreeMap<K, V> model, GroveSortedMap<K, V> map, Collection<K> probes,
            Serializer<V> values, Supplier<String> at) {
        assertEntries(model, map, at);
        if (model.isEmpty()) {
            assertThrows(NoSuchElementException.class, map::firstKey, () -> at.get() + ": firstKey of an empty map");
            assertThrows(NoSuchElementException.class, map::lastKey, () -> at.get() + ": lastKey of an empty map");
        } else {
            assertEquals(model.firstKey(), map.firstKey(), () -> at.get() + ": firstKey");
            assertEquals(model.lastKey(), map.lastKey(), () -> at.get() + ": lastKey");
        }
        for (K k : probes) {
            V expected = model.get(k);
            assertEquals(expected, map.get(k), () -> at.get() + ": get(" + k + ")");
            assertEquals(expected != null, map.containsKey(k), () -> at.get() + ": containsKey(" + k + ")");
            Handle handle = map.zc().get(k);
            if (expected == null) {
                assertNull(handle, () -> at.get() + ": zc().get(" + k + ") of an absent key");
            } else {
                assertNotNull(handle, () -> at.get() + ": zc().get(" + k + ") of a present key");
                assertEquals(expected, values.read(handle), () -> at.get() + ": zc().get(" + k + ")");
            }
        }
        // Last: the counts, once the contents are known to be right.
        assertEquals(model.isEmpty(), map.isEmpty(), () -> at.get() + ": isEmpty");
        assertEquals(model.size(), map.size(), () -> at.get() + ": size (the entries are right)");
    }

    private static <K, V> void assertEntries(TreeMap<K, V> model, GroveSortedMap<K, V> map, Supplier<String> at) {
        List<Map.Entry<K, V>> expected = entries(model);
        List<Map.Entry<K, V>> actual = entries(map);
        if (!expected.equals(actual)) {
            fail(at.get() + ": entries differ\n  expected " + abbreviate(expected) + "\n  actual   "
                    + abbreviate(actual) + "\n  first difference: " + firstDifference(expected, actual));
        }
    }

    private static <K, V> String abbreviate(List<Map.Entry<K, V>> entries) {
        StringBuilder s = new StringBuilder("[");
        int shown = 0;
        for (Map.Entry<K, V> e : entries) {
            if (shown++ == 40) {
                s.append(", ...(").append(entries.size()).append(" entries)");
                break;
            }
            s.append(s.length() > 1 ? ", " : "").append(e.getKey()).append('=')
                    .append(cut(String.valueOf(e.getValue())));
        }
        return s.append(']').toString();
    }

    private static <K, V> String firstDifference(List<Map.Entry<K, V>> expected, List<Map.Entry<K, V>> actual) {
        for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
            if (!expected.get(i).equals(actual.get(i))) {
                return "at " + i + ": expected " + expected.get(i) + ", actual " + actual.get(i);
            }
        }
        return "sizes " + expected.size() + " and " + actual.size();
    }

    private static <K> Set<K> keysOf(Map<K, ?> model, List<? extends Op<K, ?>> ops) {
        Set<K> keys = new LinkedHashSet<>(model.keySet());
        for (Op<K, ?> op : ops) {
            keys.add(op.key());
        }
        return keys;
    }

    // ---- 1. puts and removals ------------------------------------------------------------------------------

    @Test
    void putsAndRemovalsAreAppliedAsTheModelAppliesThem() {
        GroveSortedMap<String, String> map = BadInput.fill(stringMap(4)); // "a" and "k0".."k19", several chunks
        TreeMap<String, String> model = BadInput.fill(new TreeMap<>());
        List<Op<String, String>> ops = List.of(
                Op.put("k3", "replaced3"), // over a present key
                Op.put("b", "new-b"), // absent, between "a" and "k0"
                Op.remove("k5"), // present
                Op.remove("absent-0"), // absent, before "k0"
                Op.remove("zzz"), // absent, after the last key
                Op.remove("0"), // absent, before the first key
                Op.put("k19", "replaced19"), // the last key
                Op.put("", "empty key"), // the smallest key there is
                Op.put("k10x", ""), // an empty value, between k10 and k11
                Op.put("long", "L".repeat(3_000)),
                Op.remove("a"), // the first key
                Op.put("~", "after everything"));
        Handle replaced = map.zc().get("k3");
        Handle removed = map.zc().get("k5");
        Handle untouched = map.zc().get("k7");
        MemoryFootprint before = map.footprint();

        WriteBatch<String, String> batch = map.batch();
        for (Op<String, String> op : ops) {
            WriteBatch<String, String> returned = op.value() == null ? batch.remove(op.key())
                    : batch.put(op.key(), op.value());
            assertSame(batch, returned, "put and remove return the batch itself");
        }
        assertEquals(ops.size(), batch.size());
        // The batch only collects operations: the map is not touched before apply.
        assertMatches(BadInput.fill(new TreeMap<>()), map, keysOf(model, ops), STRINGS, () -> "before apply");
        assertEquals(before.liveSlices(), map.footprint().liveSlices(), "a batch not applied took slices");
        assertEquals(before.liveBytes(), map.footprint().liveBytes(), "a batch not applied took bytes");

        batch.apply();
        applyAll(model, ops);
        assertMatches(model, map, keysOf(model, ops), STRINGS, () -> "after apply of " + ops);
        assertEquals(ops.size(), batch.size(), "apply leaves the batch's operations in it");
        assertEquals(List.copyOf(model.descendingKeySet()), List.copyOf(map.descendingKeySet()), "descending keys");
        assertEquals(model.ceilingKey("k1"), map.ceilingKey("k1"));
        assertEquals(model.lowerEntry("k10x"), map.lowerEntry("k10x"));
        assertEquals(model.higherEntry("k10x"), map.higherEntry("k10x"));

        // Value handles fail once their value is replaced or removed; a handle on an untouched value still reads.
        assertFalse(replaced.isValid(), "a handle on a value the batch replaced");
        assertThrows(ConcurrentModificationException.class, () -> STRINGS.read(replaced));
        assertFalse(removed.isValid(), "a handle on a value the batch removed");
        assertThrows(ConcurrentModificationException.class, () -> STRINGS.read(removed));
        assertTrue(untouched.isValid(), "a handle on a value the batch did not touch");
        assertEquals("v7", STRINGS.read(untouched));

        // The map works as usual afterwards.
        assertEquals("replaced3", map.put("k3", "again"));
        assertNull(map.remove("k5"));
        assertEquals("new-b", map.remove("b"));
        model.put("k3", "again");
        model.remove("b");
        assertMatches(model, map, keysOf(model, ops), STRINGS, () -> "single-key updates after the batch");
    }

    // ---- 2. the last operation on a key wins -------------------------------------------------------------------

    @Test
    void theLastOperationOnAKeyWinsWithinABatch() {
        GroveSortedMap<String, String> map = BadInput.fill(stringMap(4));
        TreeMap<String, String> model = BadInput.fill(new TreeMap<>());
        List<Op<String, String>> ops = List.of(
                Op.put("k1", "p1"), Op.remove("k1"), // present: put then remove -> absent
                Op.put("new1", "p1"), Op.remove("new1"), // absent: put then remove -> absent
                Op.remove("k2"), Op.put("k2", "p2"), // present: remove then put -> the put's value
                Op.remove("new2"), Op.put("new2", "p2"), // absent: remove then put
                Op.put("k3", "first"), Op.put("k3", "second"), // present: put twice -> the second
                Op.put("new3", "first"), Op.put("new3", "second"), // absent: put twice
                Op.remove("k4"), Op.remove("k4"), // removed twice
                Op.put("k5", "x"), Op.remove("k5"), Op.put("k5", "y"), Op.remove("k5"), Op.put("k5", "last"),
                Op.put("new5", "x"), Op.remove("new5"), Op.put("new5", "y"), Op.remove("new5"),
                Op.put("a", "a1"), Op.put("k6", "k6"), Op.put("a", "a2")); // interleaved with another key
        WriteBatch<String, String> batch = batchOf(map, ops);
        batch.apply();
        applyAll(model, ops);
        assertMatches(model, map, keysOf(model, ops), STRINGS, () -> "after " + ops);
        assertEquals("p2", map.get("k2"));
        assertEquals("second", map.get("new3"));
        assertEquals("last", map.get("k5"));
        assertFalse(map.containsKey("new5"));
        assertEquals("a2", map.get("a"));
    }

    // ---- 3. size, clear, empty batches, applying again -------------------------------------------------------

    @Test
    void anEmptyBatchChangesNothing() {
        GroveSortedMap<String, String> map = BadInput.fill(stringMap(4));
        TreeMap<String, String> model = BadInput.fill(new TreeMap<>());
        MemoryFootprint before = map.footprint();
        WriteBatch<String, String> empty = map.batch();
        assertEquals(0, empty.size());
        empty.apply();
        empty.apply();
        assertMatches(model, map, model.keySet(), STRINGS, () -> "after an empty batch");
        assertEquals(before.liveSlices(), map.footprint().liveSlices(), "an empty batch changed the live slices");
        assertEquals(before.liveBytes(), map.footprint().liveBytes(), "an empty batch changed the live bytes");

        // Of an empty map too.
        GroveSortedMap<String, String> emptyMap = stringMap(4);
        emptyMap.batch().apply();
        assertMatches(new TreeMap<>(), emptyMap, List.of("a"), STRINGS, () -> "an empty batch of an empty map");
        assertEquals(0, emptyMap.footprint().liveSlices());
    }

    @Test
    void sizeCountsEveryOperationAndClearEmptiesTheBatch() {
        GroveSortedMap<String, String> map = BadInput.fill(stringMap(4));
        TreeMap<String, String> model = BadInput.fill(new TreeMap<>());
        WriteBatch<String, String> batch = map.batch();
        batch.put("x", "1");
        assertEquals(1, batch.size());
        batch.put("x", "2"); // the same key again: every operation counts
        batch.remove("x");
        batch.remove("absent");
        assertEquals(4, batch.size());
        batch.clear();
        assertEquals(0, batch.size());
        batch.apply(); // cleared: nothing to apply
        assertMatches(model, map, List.of("x", "absent", "a"), STRINGS, () -> "a cleared batch applied");
        batch.clear(); // clearing an empty batch
        assertEquals(0, batch.size());

        // A cleared batch collects again, and applies only what was added since.
        batch.remove("a").put("y", "fresh").put("k0", "changed");
        assertEquals(3, batch.size());
        batch.apply();
        model.remove("a");
        model.put("y", "fresh");
        model.put("k0", "changed");
        assertMatches(model, map, List.of("x", "y", "a", "k0", "absent"), STRINGS, () -> "after clear and new ops");
    }

    @Test
    void aBatchAppliedAgainAppliesItsOperationsAgain() {
        GroveSortedMap<String, String> map = BadInput.fill(stringMap(4));
        TreeMap<String, String> model = BadInput.fill(new TreeMap<>());
        List<Op<String, String>> ops = List.of(Op.put("k1", "batch1"), Op.remove("k2"), Op.put("new", "batchNew"),
                Op.remove("absent"));
        WriteBatch<String, String> batch = batchOf(map, ops);
        batch.apply();
        applyAll(model, ops);
        assertMatches(model, map, keysOf(model, ops), STRINGS, () -> "first apply");

        // Another writer changes the batch's keys (and adds the absent one) in between.
        map.put("k1", "other1");
        map.put("k2", "other2");
        map.remove("new");
        map.put("absent", "other");
        model.put("k1", "other1");
        model.put("k2", "other2");
        model.remove("new");
        model.put("absent", "other");
        assertMatches(model, map, keysOf(model, ops), STRINGS, () -> "after the other writer");

        batch.apply();
        applyAll(model, ops);
        assertMatches(model, map, keysOf(model, ops), STRINGS, () -> "second apply");
        assertEquals("batch1", map.get("k1"));
        assertFalse(map.containsKey("k2"));
        assertEquals("batchNew", map.get("new"));
        assertFalse(map.containsKey("absent"));

        // Applied a third time with nothing changed in between: the same contents.
        long live = map.footprint().liveSlices();
        batch.apply();
        assertMatches(model, map, keysOf(model, ops), STRINGS, () -> "third apply");
        assertEquals(live, map.footprint().liveSlices(), "applying the same batch again took more slices");
    }

    @Test
    void aBatchChangedAfterApplyAppliesAllItsOperationsAgain() {
        GroveSortedMap<String, String> map = BadInput.fill(stringMap(4));
        TreeMap<String, String> model = BadInput.fill(new TreeMap<>());
        List<Op<String, String>> first = List.of(Op.put("k1", "b1"), Op.remove("k2"), Op.put("n1", "b1"));
        WriteBatch<String, String> batch = batchOf(map, first);
        batch.apply();
        applyAll(model, first);
        assertMatches(model, map, keysOf(model, first), STRINGS, () -> "first apply");

        map.put("k2", "back");
        model.put("k2", "back");
        // Operations added after the first apply come after the earlier ones: remove("n1") undoes put("n1").
        List<Op<String, String>> more = List.of(Op.remove("n1"), Op.put("k1", "b2"), Op.put("n2", "b2"));
        for (Op<String, String> op : more) {
            op.addTo(batch);
        }
        assertEquals(first.size() + more.size(), batch.size());
        batch.apply();
        applyAll(model, first);
        applyAll(model, more);
        List<Op<String, String>> all = new ArrayList<>(first);
        all.addAll(more);
        assertMatches(model, map, keysOf(model, all), STRINGS, () -> "after the changed batch");
        assertFalse(map.containsKey("k2"), "the earlier removal applies again");
        assertFalse(map.containsKey("n1"), "the later removal wins over the earlier put");
        assertEquals("b2", map.get("k1"));
    }

    // ---- 4. differential --------------------------------------------------------------------------------------

    @ParameterizedTest(name = "chunkSize={0}")
    @ValueSource(ints = {4, 64})
    void randomBatchesAndSingleKeyUpdatesMatchTheModel(int chunkSize) {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            try (MemoryPool pool = MemoryPool.builder().blockSize(1 << 20).build()) {
                GroveSortedMap<Long, String> map = GroveSortedMap.builder(Serializers.longs(), STRINGS)
                        .chunkSize(chunkSize).pool(pool).build();
                Differential run = new Differential(map, chunkSize);
                try {
                    run.run();
                } finally {
                    map.close();
                }
                assertEquals(0, pool.footprint().liveSlices(), run.at("live slices in the pool after the map was "
                        + "closed: " + pool.footprint()));
            }
        }, () -> "did not finish in " + TIME_LIMIT + "; seed=" + SEED + " chunkSize=" + chunkSize);
    }

    /** One differential run: random batches (and single-key updates) on a map and on a {@link TreeMap}. */
    private static final class Differential {
        private static final int ROUNDS = 2_000;
        private static final int KEYS = 301; // keys 0..300
        private static final int PHASE = 150;

        private final GroveSortedMap<Long, String> map;
        private final TreeMap<Long, String> model = new TreeMap<>();
        private final SplittableRandom random;
        private final int chunkSize;
        private int round;
        private String what = "start";

        Differential(GroveSortedMap<Long, String> map, int chunkSize) {
            this.map = map;
            this.chunkSize = chunkSize;
            this.random = new SplittableRandom(SEED + chunkSize);
        }

        Supplier<String> at(String detail) {
            return () -> "seed=" + SEED + " (rerun with -Dgrove.seed=" + SEED + ") chunkSize=" + chunkSize
                    + " round=" + round + " " + what + " " + detail;
        }

        void run() {
            try {
                rounds();
            } catch (AssertionFailedError e) {
                throw e;
            } catch (Throwable t) {
                // An exception from the map rather than a wrong answer: still say where, and with which seed.
                throw new AssertionFailedError(at("threw " + t).get(), t);
            }
        }

        private void rounds() {
            int largest = 0;
            int smallestAfterLargest = Integer.MAX_VALUE;
            for (round = 0; round < ROUNDS; round++) {
                // Phases that grow the map and phases that shrink it, so that chunks split and then merge.
                boolean growing = round / PHASE % 2 == 0;
                List<Op<Long, String>> ops = randomOps(growing ? 0.75 : 0.25);
                what = "batch " + ops;
                batchOf(map, ops).apply();
                applyAll(model, ops);
                assertMatches(model, map, keysOf(Map.of(), ops), STRINGS, at("after the batch"));
                if (random.nextInt(4) == 0) {
                    singleKeyUpdates(growing);
                }
                largest = Math.max(largest, model.size());
                if (largest > KEYS / 2) {
                    smallestAfterLargest = Math.min(smallestAfterLargest, model.size());
                }
            }
            what = "end";
            assertTrue(largest > KEYS / 2, at("the run never filled the map: at most " + largest + " entries"));
            assertTrue(smallestAfterLargest < KEYS / 4, at("the run never emptied the map much: at least "
                    + smallestAfterLargest + " entries after " + largest));
            // Everything removed by one batch.
            List<Op<Long, String>> removeAll = new ArrayList<>();
            for (long k = 0; k < KEYS; k++) {
                removeAll.add(Op.remove(k));
            }
            what = "removing every key";
            batchOf(map, removeAll).apply();
            model.clear();
            assertMatches(model, map, List.of(0L, 150L, 300L), STRINGS, at("after removing every key"));
        }

        private List<Op<Long, String>> randomOps(double putShare) {
            int n = 1 + random.nextInt(50);
            List<Op<Long, String>> ops = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                long key = !ops.isEmpty() && random.nextInt(4) == 0 ? ops.get(random.nextInt(ops.size())).key()
                        : random.nextInt(KEYS); // a quarter of them on a key the batch already has
                ops.add(random.nextDouble() < putShare ? Op.put(key, value(i)) : Op.remove(key));
            }
            return ops;
        }

        /** A value of 0 to 40 characters, now and then of a few hundred or thousand, that names its round. */
        private String value(int i) {
            String base = "r" + round + "." + i;
            return switch (random.nextInt(10)) {
                case 0 -> "";
                case 1 -> base + "#".repeat(200 + random.nextInt(3_000));
                default -> base + "-".repeat(random.nextInt(30));
            };
        }

        private void singleKeyUpdates(boolean growing) {
            int n = 1 + random.nextInt(5);
            for (int i = 0; i < n; i++) {
                long key = random.nextInt(KEYS);
                String value = value(100 + i);
                what = "single-key update of " + key;
                switch (random.nextInt(growing ? 4 : 6)) {
                    case 0, 1 -> assertEquals(model.put(key, value), map.put(key, value), at("put"));
                    case 2 -> {
                        map.zc().put(key, value);
                        model.put(key, value);
                    }
                    case 3 -> assertEquals(model.putIfAbsent(key, value), map.putIfAbsent(key, value),
                            at("putIfAbsent"));
                    default -> assertEquals(model.remove(key), map.remove(key), at("remove"));
                }
                assertEquals(model.get(key), map.get(key), at("get after the single-key update"));
            }
            assertEntries(model, map, at("after single-key updates"));
        }
    }

    // ---- 5. large batches ------------------------------------------------------------------------------------

    @ParameterizedTest(name = "chunkSize={0}")
    @ValueSource(ints = {4, GroveSortedMap.Builder.DEFAULT_CHUNK_SIZE})
    void batchesOfTenThousandOperations(int chunkSize) {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            GroveSortedMap<Long, String> map = closeLater(GroveSortedMap.builder(Serializers.longs(), STRINGS)
                    .chunkSize(chunkSize).build());
            TreeMap<Long, String> model = new TreeMap<>();
            for (long k = 0; k < 20_000; k += 20) { // 1,000 present keys, between which the batch inserts
                map.put(k, "old" + k);
                model.put(k, "old" + k);
            }
            List<Long> fresh = new ArrayList<>();
            for (long i = 0; i < 10_000; i++) {
                fresh.add(2 * i + 1); // odd: none present
            }
            Collections.shuffle(fresh, new Random(SEED));
            List<Op<Long, String>> puts = new ArrayList<>();
            for (long k : fresh) {
                puts.add(Op.put(k, "new" + k));
            }
            batchOf(map, puts).apply();
            applyAll(model, puts);
            assertEquals(11_000, model.size());
            assertMatches(model, map, fresh.subList(0, 100), STRINGS, () -> "after 10,000 puts, seed=" + SEED);

            Collections.shuffle(fresh, new Random(SEED + 1));
            List<Op<Long, String>> removals = new ArrayList<>();
            for (long k : fresh) {
                removals.add(Op.remove(k));
            }
            batchOf(map, removals).apply();
            applyAll(model, removals);
            assertEquals(1_000, model.size());
            assertMatches(model, map, fresh.subList(0, 100), STRINGS, () -> "after 10,000 removals, seed=" + SEED);

            // And one batch of 10,000 puts over the present keys and removals of absent ones, interleaved.
            List<Op<Long, String>> mixed = new ArrayList<>();
            for (long k = 0; k < 10_000; k++) {
                mixed.add(k % 2 == 0 ? Op.put(k / 2 * 20 % 20_000, "mixed" + k) : Op.remove(k * 20 + 7));
            }
            batchOf(map, mixed).apply();
            applyAll(model, mixed);
            assertMatches(model, map, List.of(0L, 20L, 27L, 19_980L), STRINGS, () -> "after the mixed batch");
        });
    }

    // ---- 6. bad input ---------------------------------------------------------------------------------------

    @Test
    void nullKeysAndValuesAreRejectedAndLeaveTheBatchUnchanged() {
        GroveSortedMap<String, String> map = BadInput.fill(stringMap(4));
        TreeMap<String, String> model = BadInput.fill(new TreeMap<>());
        WriteBatch<String, String> batch = map.batch();
        batch.put("k1", "one");
        assertThrows(NullPointerException.class, () -> batch.put(null, "v"));
        assertEquals(1, batch.size(), "put(null, v) changed the batch's size");
        assertThrows(NullPointerException.class, () -> batch.put("k2", null));
        assertEquals(1, batch.size(), "put(k, null) changed the batch's size");
        assertThrows(NullPointerException.class, () -> batch.remove(null));
        assertEquals(1, batch.size(), "remove(null) changed the batch's size");
        assertThrows(NullPointerException.class, () -> batch.put(null, null));
        assertEquals(1, batch.size(), "put(null, null) changed the batch's size");
        // Operations added after the rejected ones pair each key with its own value.
        batch.put("k3", "three").remove("k4").put("new", "fresh");
        assertEquals(4, batch.size());
        batch.apply();
        List<Op<String, String>> ops = List.of(Op.put("k1", "one"), Op.put("k3", "three"), Op.remove("k4"),
                Op.put("new", "fresh"));
        applyAll(model, ops);
        assertMatches(model, map, keysOf(model, ops), STRINGS, () -> "after the rejected and the valid operations");
        assertEquals("v2", map.get("k2"), "the rejected put(k2, null) must not apply");
    }

    /** A map on a pool of 64 KiB blocks (a small largest slice), filled as {@link BadInput#fill}. */
    private GroveSortedMap<String, String> smallSliceMap(MemoryPool pool) {
        return BadInput.fill(closeLater(GroveSortedMap.builder(STRINGS, STRINGS).chunkSize(4).pool(pool).build()));
    }

    @Test
    void aKeyTooLargeFailsTheWholeBatchAndChangesNothing() {
        MemoryPool pool = closeLater(MemoryPool.builder().blockSize(1 << 16).build());
        GroveSortedMap<String, String> map = smallSliceMap(pool);
        TreeMap<String, String> model = BadInput.fill(new TreeMap<>());
        int max = pool.maxSliceSize();
        String big = "x".repeat(max + 1); // sorts between "k..." and "y"/"z"
        // Operations before and after the large key, in key order and in the order they were added.
        List<Op<String, String>> ops = List.of(Op.put("b", "before"), Op.remove("k1"), Op.put("k2", "changed"),
                Op.put(big, "v"), Op.put("z", "after"), Op.remove("a"), Op.put("y", "after"));
        MemoryFootprint before = map.footprint();
        WriteBatch<String, String> batch = batchOf(map, ops);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, batch::apply);
        assertTrue(String.valueOf(e.getMessage()).contains(String.valueOf(max)), () -> "the limit is not in: " + e);
        assertMatches(model, map, keysOf(model, ops), STRINGS, () -> "after a batch with a key too large");
        assertEquals(before.liveSlices(), map.footprint().liveSlices(), "live slices after the failed batch");
        assertEquals(before.liveBytes(), map.footprint().liveBytes(), "live bytes after the failed batch");
        // The same with the large key as a removal.
        WriteBatch<String, String> removal = map.batch().put("b", "before").remove(big).put("z", "after");
        assertThrows(IllegalArgumentException.class, removal::apply);
        assertMatches(model, map, List.of("b", "z"), STRINGS, () -> "after a batch removing a key too large");
        assertEquals(before.liveSlices(), map.footprint().liveSlices(), "live slices after the failed removal");

        // The largest key fits, in a batch too.
        String largest = "x".repeat(max);
        List<Op<String, String>> fits = List.of(Op.put("b", "before"), Op.put(largest, "v"), Op.put("z", "after"));
        batchOf(map, fits).apply();
        applyAll(model, fits);
        assertMatches(model, map, keysOf(model, fits), STRINGS, () -> "after a batch with the largest key");
    }

    @Test
    void aValueTooLargeFailsTheWholeBatchAndChangesNothing() {
        MemoryPool pool = closeLater(MemoryPool.builder().blockSize(1 << 16).build());
        GroveSortedMap<String, String> map = smallSliceMap(pool);
        TreeMap<String, String> model = BadInput.fill(new TreeMap<>());
        int largestValue = pool.maxSliceSize() - 8; // the value header takes 8 bytes of the slice
        List<Op<String, String>> ops = List.of(Op.put("b", "before"), Op.remove("k1"), Op.put("k2", "changed"),
                Op.put("k3", "y".repeat(largestValue + 1)), Op.put("k4", "y".repeat(1000)), Op.put("z", "after"),
                Op.remove("a"));
        MemoryFootprint before = map.footprint();
        WriteBatch<String, String> batch = batchOf(map, ops);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, batch::apply);
        assertTrue(String.valueOf(e.getMessage()).contains(String.valueOf(largestValue)),
                () -> "the limit is not in: " + e);
        assertMatches(model, map, keysOf(model, ops), STRINGS, () -> "after a batch with a value too large");
        // The values serialized before the failure are freed.
        assertEquals(before.liveSlices(), map.footprint().liveSlices(), "live slices after the failed batch");
        assertEquals(before.liveBytes(), map.footprint().liveBytes(), "live bytes after the failed batch");

        // The largest value fits.
        List<Op<String, String>> fits = List.of(Op.put("b", "before"), Op.put("k3", "y".repeat(largestValue)));
        batchOf(map, fits).apply();
        applyAll(model, fits);
        assertMatches(model, map, keysOf(model, fits), STRINGS, () -> "after a batch with the largest value");
    }

    @Test
    void aThrowingOrLyingSerializerFailsTheWholeBatchAndChangesNothing() {
        GroveSortedMap<String, String> map = BadInput.fill(closeLater(
                GroveSortedMap.builder(new LyingSerializer(), new LyingSerializer()).chunkSize(4).build()));
        TreeMap<String, String> model = BadInput.fill(new TreeMap<>());
        MemoryFootprint before = map.footprint();
        for (Op<String, String> bad : List.<Op<String, String>>of(Op.put("k5", "boom-value"), Op.put("boom-key", "v"),
                Op.remove("boom-key"), Op.put("k5", "lie-value"), Op.put("lie-key", "v"))) {
            List<Op<String, String>> ops = List.of(Op.put("b", "before"), Op.put("k1", "changed"), Op.remove("k2"),
                    bad, Op.put("z", "after"), Op.remove("a"));
            RuntimeException e = assertThrows(RuntimeException.class, batchOf(map, ops)::apply, bad::toString);
            if (bad.toString().contains("lie")) {
                assertTrue(e instanceof SerializerException, () -> bad + " threw " + e);
            } else {
                assertTrue(BadInput.messages(e).contains("boom from the serializer"), () -> "lost the cause: " + e);
            }
            Set<String> probes = keysOf(model, ops);
            probes.removeIf(k -> k.startsWith("boom") || k.startsWith("lie")); // (the map cannot look them up)
            assertMatches(model, map, probes, STRINGS, () -> "after a batch with " + bad);
            assertEquals(before.liveSlices(), map.footprint().liveSlices(), () -> "live slices after " + bad);
            assertEquals(before.liveBytes(), map.footprint().liveBytes(), () -> "live bytes after " + bad);
        }
    }

    // ---- 7. memory limit ------------------------------------------------------------------------------------

    @Test
    void aBatchWhoseValuesDoNotFitThrowsChangesNothingAndLeaksNothing() {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            long limit = MemoryPool.Builder.DEFAULT_BLOCK_SIZE; // 8 MiB
            GroveSortedMap<Long, String> map = closeLater(GroveSortedMap.builder(Serializers.longs(), STRINGS)
                    .chunkSize(16).memoryLimit(limit).build());
            TreeMap<Long, String> model = new TreeMap<>();
            String kilobyte = "v".repeat(1_000);
            for (long k = 0; k < 1_000; k++) {
                map.put(k * 10, kilobyte + k);
                model.put(k * 10, kilobyte + k);
            }
            MemoryFootprint before = map.footprint();
            // 500 puts over present keys, 200 removals, 9,000 new keys: about 9.5 MB of values.
            List<Op<Long, String>> ops = new ArrayList<>();
            for (long k = 0; k < 9_700; k++) {
                ops.add(k < 500 ? Op.put(k * 10, "over" + kilobyte) : k < 700 ? Op.remove(k * 10)
                        : Op.put(k * 10 + 5, kilobyte));
            }
            WriteBatch<Long, String> tooLarge = batchOf(map, ops);
            for (int attempt = 0; attempt < 2; attempt++) {
                int a = attempt;
                assertThrows(GroveOutOfMemoryException.class, tooLarge::apply, () -> "attempt " + a);
                assertMatches(model, map, List.of(0L, 10L, 4_990L, 5_000L, 9_990L, 15L, 95_005L), STRINGS,
                        () -> "after the failed batch, attempt " + a);
                MemoryFootprint after = map.footprint();
                assertEquals(before.liveSlices(), after.liveSlices(), () -> "live slices, attempt " + a + ": "
                        + before + " -> " + after);
                assertEquals(before.liveBytes(), after.liveBytes(), () -> "live bytes, attempt " + a + ": "
                        + before + " -> " + after);
            }

            // A smaller batch of the same kind applies.
            List<Op<Long, String>> smaller = ops.subList(400, 1_200);
            batchOf(map, smaller).apply();
            applyAll(model, smaller);
            assertMatches(model, map, keysOf(Map.of(), smaller.subList(0, 50)), STRINGS, () -> "the smaller batch");
            // About 5 MB more fit (the failed batches' values were all freed): 1.5 MB used now, of 8.
            List<Op<Long, String>> more = new ArrayList<>();
            for (long k = 0; k < 5_000; k++) {
                more.add(Op.put(-1 - k, kilobyte));
            }
            batchOf(map, more).apply();
            applyAll(model, more);
            assertMatches(model, map, List.of(-1L, -5_000L, 0L), STRINGS, () -> "5 MB more after the failures");
        });
    }

    /**
     * Keys are copied into the pool only when the batch gives them entries, after its values were serialized: a
     * batch whose new keys do not fit fails there, and must still leave the contents as they were and hold no
     * value or placeholder; the keys it managed to insert stay as removed keys until their chunks are compacted,
     * and none is left once every key is removed (GroveSortedMap's javadoc).
     */
    @Test
    void aBatchWhoseKeysDoNotFitThrowsChangesNothingAndTheMapWorksOn() {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            MemoryPool pool = closeLater(MemoryPool.builder().blockSize(1 << 16).memoryLimit(1 << 19).build());
            GroveSortedMap<String, String> map = closeLater(GroveSortedMap.builder(STRINGS, STRINGS).chunkSize(4)
                    .pool(pool).build());
            TreeMap<String, String> model = new TreeMap<>();
            String kilobyte = "v".repeat(1_000);
            try {
                for (int n = 0; n < 1_000; n++) {
                    map.put("f" + (1_000 + n), kilobyte);
                    model.put("f" + (1_000 + n), kilobyte);
                }
                fail("a 512 KiB pool held a thousand 1 KB values");
            } catch (GroveOutOfMemoryException expected) {
                // full
            }
            for (int i = 0; i < 20; i++) { // room for about 20 keys of 900 bytes, in pieces of about 1 KB
                map.remove("f" + (1_000 + 3 * i));
                model.remove("f" + (1_000 + 3 * i));
            }
            MemoryFootprint before = map.footprint();
            List<Op<String, String>> ops = new ArrayList<>();
            ops.add(Op.put("f1001", "small")); // before the new keys, and after them
            ops.add(Op.remove("f1004"));
            int newKeys = 60;
            for (int i = 0; i < newKeys; i++) {
                ops.add(Op.put("n" + (100 + i) + "x".repeat(900), "v"));
            }
            ops.add(Op.put("zz", "small"));
            ops.add(Op.remove("f1010"));
            assertThrows(GroveOutOfMemoryException.class, batchOf(map, ops)::apply);
            Set<String> probes = keysOf(model, ops);
            assertMatches(model, map, probes, STRINGS, () -> "after the failed batch");
            MemoryFootprint after = map.footprint();
            assertTrue(after.liveSlices() >= before.liveSlices()
                    && after.liveSlices() <= before.liveSlices() + newKeys,
                    () -> "live slices: more than the batch's new keys, or fewer than before: " + before + " -> "
                            + after);

            // The map works on: a batch of small values on the present keys applies, and so do single updates.
            List<Op<String, String>> small = List.of(Op.put("f1001", "small"), Op.remove("f1004"),
                    Op.put("f1002", "s"));
            batchOf(map, small).apply();
            applyAll(model, small);
            assertMatches(model, map, probes, STRINGS, () -> "after a batch that fits");
            // Once every key is removed, no slice is left: not the keys the failed batch inserted either.
            map.clear();
            model.clear();
            assertMatches(model, map, probes, STRINGS, () -> "after clear");
            assertEquals(0, map.footprint().liveSlices(), () -> "slices left after clear: " + map.footprint()
                    + " (after the failed batch: " + after + ")");
        });
    }

    // ---- 8. closed map --------------------------------------------------------------------------------------

    @Test
    void aClosedMapRefusesBatches() {
        MemoryPool pool = closeLater(MemoryPool.builder().blockSize(1 << 16).build());
        GroveSortedMap<String, String> map = smallSliceMap(pool);
        WriteBatch<String, String> made = map.batch().put("b", "v").remove("k1").put("k2", "changed");
        WriteBatch<String, String> empty = map.batch();
        map.close();
        assertThrows(IllegalStateException.class, map::batch, "batch() on a closed map");
        assertThrows(IllegalStateException.class, made::apply, "apply of a batch made before the close");
        assertThrows(IllegalStateException.class, empty::apply, "apply of an empty batch made before the close");
        assertThrows(IllegalStateException.class, made::apply, "apply again");
        assertEquals(0, pool.footprint().liveSlices(), "the failed apply left slices in the shared pool");
    }

    // ---- 9. from a function of the same map -----------------------------------------------------------------

    @Test
    void aBatchAppliedFromAFunctionOfTheSameMapThrowsAndChangesNothing() {
        GroveSortedMap<String, String> map = BadInput.fill(stringMap(4));
        TreeMap<String, String> model = BadInput.fill(new TreeMap<>());
        List<Op<String, String>> ops = List.of(Op.put("k1", "batch"), Op.put("new", "batch"), Op.remove("k2"),
                Op.put("a", "batch"), Op.remove("k19"));
        WriteBatch<String, String> batch = batchOf(map, ops);
        Set<String> probes = keysOf(model, ops);

        // The function catches the exception and returns a value: compute completes, the batch did nothing.
        List<IllegalStateException> caught = new ArrayList<>();
        assertEquals("computed", map.compute("k1", (k, v) -> {
            caught.add(assertThrows(IllegalStateException.class, batch::apply));
            assertNull(map.get("new"), "a change of the batch visible inside the function");
            assertEquals("v2", map.get("k2"), "a change of the batch visible inside the function");
            return "computed";
        }));
        assertEquals(1, caught.size());
        assertTrue(String.valueOf(caught.get(0).getMessage()).contains("Recursive update"),
                () -> "message: " + caught.get(0));
        model.put("k1", "computed");
        assertMatches(model, map, probes, STRINGS, () -> "after compute whose function caught the exception");

        // The exception propagates out of each kind of function: the operation fails, nothing changes.
        long live = map.footprint().liveSlices();
        Map<String, Runnable> functions = new LinkedHashMap<>();
        functions.put("compute(present)", () -> map.compute("k3", (k, v) -> {
            batch.apply();
            return "x";
        }));
        functions.put("compute(absent)", () -> map.compute("absent", (k, v) -> {
            batch.apply();
            return "x";
        }));
        functions.put("computeIfAbsent", () -> map.computeIfAbsent("absent", k -> {
            batch.apply();
            return "x";
        }));
        functions.put("computeIfPresent", () -> map.computeIfPresent("k3", (k, v) -> {
            batch.apply();
            return "x";
        }));
        functions.put("merge", () -> map.merge("k3", "m", (a, b) -> {
            batch.apply();
            return "x";
        }));
        functions.put("zc().computeIfPresent", () -> map.zc().computeIfPresent("k3", view -> batch.apply()));
        functions.put("zc().putIfAbsentComputeIfPresent",
                () -> map.zc().putIfAbsentComputeIfPresent("k3", "v", view -> batch.apply()));
        for (Map.Entry<String, Runnable> f : functions.entrySet()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, f.getValue()::run, f.getKey());
            assertTrue(String.valueOf(e.getMessage()).contains("Recursive update"), () -> f.getKey() + ": " + e);
            assertMatches(model, map, probes, STRINGS, () -> "after " + f.getKey());
            // A failed insertion of an absent key may leave that key's slice until its chunk is compacted.
            long now = map.footprint().liveSlices();
            assertTrue(now == live || now == live + 1, () -> f.getKey() + ": live slices " + live + " -> " + now);
        }

        // The batch is intact: applied from outside any function, it applies.
        batch.apply();
        applyAll(model, ops);
        assertMatches(model, map, probes, STRINGS, () -> "the batch applied afterwards");

        // From a function of another map, the batch applies.
        GroveSortedMap<String, String> other = stringMap(4);
        WriteBatch<String, String> second = map.batch().put("k5", "from another map's function").remove("k6");
        assertEquals("done", other.compute("x", (k, v) -> {
            second.apply();
            return "done";
        }));
        model.put("k5", "from another map's function");
        model.remove("k6");
        assertMatches(model, map, List.of("k5", "k6"), STRINGS, () -> "a batch applied from another map's function");
    }

    // ---- 10. a user's comparator ----------------------------------------------------------------------------

    @Test
    void aUsersComparatorDecidesWhichKeysAreTheSame() {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            // Case-insensitive, descending: "B" and "b" are one key, "b" comes before "a".
            Comparator<String> order = Comparator.comparing((String s) -> s.toLowerCase(Locale.ROOT),
                    Comparator.reverseOrder());
            GroveSortedMap<String, String> map = closeLater(GroveSortedMap.builder(STRINGS, STRINGS)
                    .comparator(order).chunkSize(4).build());
            TreeMap<String, String> model = new TreeMap<>(order);
            List<Op<String, String>> ops = List.of(Op.put("Ab", "1"), Op.put("aB", "2"), Op.put("c", "3"),
                    Op.put("C", "4"), Op.remove("c"), Op.put("d", "5"), Op.remove("D"), Op.put("D", "6"),
                    Op.put("e", "7"), Op.put("z", "8"), Op.put("A", "9"));
            batchOf(map, ops).apply();
            applyAll(model, ops);
            assertSameUnder(model, map, keysOf(model, ops), () -> "after " + ops);
            assertEquals(List.of("z", "e", "d", "ab", "a"),
                    map.keySet().stream().map(k -> k.toLowerCase(Locale.ROOT)).toList());
            assertEquals("2", map.get("AB"));
            assertEquals("6", map.get("d"));
            assertFalse(map.containsKey("C"));

            // Random batches on keys in mixed case.
            SplittableRandom random = new SplittableRandom(SEED + 10);
            for (int round = 0; round < 300; round++) {
                List<Op<String, String>> batch = new ArrayList<>();
                for (int i = 0, n = 1 + random.nextInt(30); i < n; i++) {
                    String key = switch (random.nextInt(3)) {
                        case 0 -> "key";
                        case 1 -> "KEY";
                        default -> "Key";
                    } + random.nextInt(60);
                    batch.add(random.nextInt(3) == 0 ? Op.remove(key) : Op.put(key, "r" + round + "." + i));
                }
                batchOf(map, batch).apply();
                applyAll(model, batch);
                int r = round;
                assertSameUnder(model, map, keysOf(Map.of(), batch),
                        () -> "seed=" + SEED + " (rerun with -Dgrove.seed=" + SEED + ") round " + r + ": " + batch);
            }
        });
    }

    /**
     * As {@link #assertMatches}, for a map whose comparator makes different strings one key: keys are compared by
     * that comparator (lower case here), since which spelling of a key a map keeps is not the point.
     */
    private static void assertSameUnder(TreeMap<String, String> model, GroveSortedMap<String, String> map,
            Collection<String> probes, Supplier<String> at) {
        assertEquals(lowerCased(entries(model)), lowerCased(entries(map)), () -> at.get() + ": entries");
        if (!model.isEmpty()) {
            assertEquals(model.firstKey().toLowerCase(Locale.ROOT), map.firstKey().toLowerCase(Locale.ROOT),
                    () -> at.get() + ": firstKey");
            assertEquals(model.lastKey().toLowerCase(Locale.ROOT), map.lastKey().toLowerCase(Locale.ROOT),
                    () -> at.get() + ": lastKey");
        }
        for (String k : probes) {
            for (String spelling : List.of(k, k.toUpperCase(Locale.ROOT), k.toLowerCase(Locale.ROOT))) {
                assertEquals(model.get(spelling), map.get(spelling), () -> at.get() + ": get(" + spelling + ")");
                assertEquals(model.containsKey(spelling), map.containsKey(spelling),
                        () -> at.get() + ": containsKey(" + spelling + ")");
            }
        }
        assertEquals(model.size(), map.size(), () -> at.get() + ": size (the entries are right)");
    }

    private static List<Map.Entry<String, String>> lowerCased(List<Map.Entry<String, String>> entries) {
        List<Map.Entry<String, String>> out = new ArrayList<>();
        for (Map.Entry<String, String> e : entries) {
            out.add(new SimpleImmutableEntry<>(e.getKey().toLowerCase(Locale.ROOT), e.getValue()));
        }
        return out;
    }

    // ---- 11. footprint after removing everything ------------------------------------------------------------

    /**
     * GroveSortedMap's javadoc: the pool holds no removed key once every key is removed. Each phase runs as one
     * batch on one map and as single-key updates on a twin map, which shows what the map itself reaches.
     */
    @ParameterizedTest(name = "chunkSize={0}")
    @ValueSource(ints = {4, 64})
    void removingEveryKeyByABatchLeavesNoSliceInThePool(int chunkSize) {
        GroveSortedMap<Long, String> map = closeLater(GroveSortedMap.builder(Serializers.longs(), STRINGS)
                .chunkSize(chunkSize).build());
        GroveSortedMap<Long, String> twin = closeLater(GroveSortedMap.builder(Serializers.longs(), STRINGS)
                .chunkSize(chunkSize).build());
        MemoryFootprint empty = map.footprint();
        assertEquals(0, empty.liveSlices(), "a new map's pool holds slices: " + empty);
        List<Op<Long, String>> puts = new ArrayList<>();
        List<Op<Long, String>> removals = new ArrayList<>();
        List<Op<Long, String>> absent = new ArrayList<>();
        for (long k = 0; k < 2_000; k++) {
            puts.add(Op.put(k * 3, "value" + k));
            removals.add(Op.remove(k * 3));
            absent.add(Op.remove(k * 7 + 1)); // keys that were never there
        }
        TreeMap<Long, String> model = new TreeMap<>();
        applyAll(model, puts);
        batchOf(map, puts).apply();
        applyAll(twin, puts);
        assertEntries(model, map, () -> "after 2,000 puts");
        assertEquals(4_000, twin.footprint().liveSlices(), () -> "2,000 keys and values: " + twin.footprint());
        assertEquals(4_000, map.footprint().liveSlices(), () -> "2,000 keys and values: " + map.footprint());

        batchOf(map, removals).apply();
        applyAll(twin, removals);
        assertTrue(map.isEmpty());
        assertEquals(0, twin.footprint().liveSlices(), () -> "single-key removals of every key left slices: "
                + twin.footprint());
        assertEquals(0, map.footprint().liveSlices(), () -> "a batch removing every key left slices: "
                + map.footprint() + ", size() " + map.size());
        assertEquals(empty.liveBytes(), map.footprint().liveBytes(), () -> "a batch removing every key left bytes: "
                + map.footprint());

        batchOf(map, absent).apply();
        applyAll(twin, absent);
        assertTrue(map.isEmpty());
        assertEquals(0, twin.footprint().liveSlices(), () -> "single-key removals of absent keys left slices: "
                + twin.footprint());
        assertEquals(0, map.footprint().liveSlices(), () -> "a batch of removals of absent keys left slices: "
                + map.footprint() + ", size() " + map.size());
    }
}
