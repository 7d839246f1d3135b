package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.serial.Serializer;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import io.grove.view.ResizableView;
import java.time.Duration;
import java.util.AbstractMap.SimpleEntry;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * Differential random test (CONTRIBUTING.md, testing layer 3): long seeded sequences of every {@code ConcurrentMap}
 * method, the views and their iterators, and the zero-copy API, applied to a {@link GroveHashMap} and to a
 * {@link ConcurrentHashMap} model, comparing every result, the arguments every user function receives and how
 * often it runs, and the full contents periodically.
 *
 * <p>The seed comes from the system property {@code grove.seed} if set ({@code -Dgrove.seed=...} on the Maven
 * command line), otherwise it is random; every assertion message carries it. The key space changes by phase:
 * small (collisions, removals of present keys), large (the map starts at {@code expectedSize(1)} and its segments
 * grow several times), small again (shrinking by removals).
 *
 * <p>Each combination of key and value types also runs on a map built with {@code inlineEntries}, whose cells are
 * sized so that keys and values of the domain fall on both sides of the limit ({@link #runInCells}): puts and
 * resizing in-place updates then move entries into their cells and out of them, removals shift cells, segments grow
 * by copying cells, and zero-copy handles move entries out of their cells.
 */
class GroveHashMapDifferentialTest {
    static final long SEED = seed();
    private static final int STEPS = 40_000;
    private static final int FULL_CHECK_EVERY = 2_000;
    private static final Duration TIME_LIMIT = Duration.ofSeconds(30);

    private static long seed() {
        String property = System.getProperty("grove.seed");
        long seed = property != null && !property.isBlank() ? Long.parseLong(property.trim())
                : new SplittableRandom().nextLong();
        System.out.println("GroveHashMapDifferentialTest: -Dgrove.seed=" + seed);
        return seed;
    }

    @Test
    void longKeysLongValues() {
        run(LONGS, LONGS, 1);
    }

    @Test
    void stringKeysStringValues() {
        run(STRINGS, STRINGS, 2);
    }

    @Test
    void longKeysStringValues() {
        run(LONGS, STRINGS, 3);
    }

    @Test
    void stringKeysLongValues() {
        run(STRINGS, LONGS, 4);
    }

    /** Long values (8 bytes) all fit; resizing in-place updates move them out of their cells and back. */
    @Test
    void longKeysLongValuesInCells() {
        runInCells(LONGS, LONGS, 5, 8, 8);
    }

    /**
     * String keys of up to 16 bytes fit (most of them: not the long runs of "x"), and values of up to 16 bytes (the
     * short ones, and the empty one; not most random strings, nor the long ones).
     */
    @Test
    void stringKeysStringValuesInCells() {
        runInCells(STRINGS, STRINGS, 6, 16, 16);
    }

    @Test
    void longKeysStringValuesInCells() {
        runInCells(LONGS, STRINGS, 7, 8, 16);
    }

    @Test
    void stringKeysLongValuesInCells() {
        runInCells(STRINGS, LONGS, 8, 16, 8);
    }

    /**
     * The premise of the runs in cells: the keys and the values of the string domain fall on both sides of the limit
     * of 16 bytes, and most of the values the runs put (short strings) fit.
     */
    @Test
    void stringKeysAndValuesStraddleTheCellLimits() {
        Serializer<String> s = STRINGS.serializer();
        int[] keys = new int[2];
        for (int i = 0; i < 3_000; i++) {
            keys[s.size(STRINGS.key(i)) <= 16 ? 0 : 1]++;
        }
        int[] values = new int[2];
        SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < 3_000; i++) {
            values[s.size(STRINGS.value(random)) <= 16 ? 0 : 1]++;
        }
        assertTrue(keys[0] > keys[1] && keys[1] > 100, () -> "keys that fit, that do not: " + keys[0] + ", " + keys[1]);
        assertTrue(values[0] > values[1] && values[1] > 100,
                () -> "values that fit, that do not: " + values[0] + ", " + values[1]);
    }

    private static <K, V> void run(Domain<K> keys, Domain<V> values, long stream) {
        run(keys, values, stream, GroveHashMap.builder(keys.serializer(), values.serializer()), "");
    }

    /** A run on a map with cells for keys of up to {@code keyBytes} and values of up to {@code valueBytes}. */
    private static <K, V> void runInCells(Domain<K> keys, Domain<V> values, long stream, int keyBytes,
            int valueBytes) {
        run(keys, values, stream, GroveHashMap.builder(keys.serializer(), values.serializer())
                .inlineEntries(keyBytes, valueBytes), " in cells(" + keyBytes + ", " + valueBytes + ")");
    }

    private static <K, V> void run(Domain<K> keys, Domain<V> values, long stream, GroveHashMap.Builder<K, V> builder,
            String layout) {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            // a pool small enough for 16 segments, so that the large stream makes them grow
            try (GroveHashMap<K, V> map = builder.expectedSize(1).memoryLimit(256L << 20).build()) {
                new Run<>(keys, values, map, SEED, stream, layout).run();
            }
        }, () -> "did not finish in " + TIME_LIMIT + "; seed=" + SEED);
    }

    // ---- domains: how keys and values of one type are made and changed --------------------------------------------

    /** Deterministic makers of keys and values of one type. */
    interface Domain<T> {
        String name();

        Serializer<T> serializer();

        /** The key with this index: a fixed key space, so that keys repeat. */
        T key(int index);

        T value(SplittableRandom random);

        /** A changed value, usually of another serialized size. */
        T derive(T value, int salt);

        /** A changed value of the same serialized size. */
        T sameSize(T value, int salt);

        T combine(T a, T b);
    }

    static final Domain<Long> LONGS = new Domain<>() {
        @Override
        public String name() {
            return "Long";
        }

        @Override
        public Serializer<Long> serializer() {
            return Serializers.longs();
        }

        @Override
        public Long key(int index) {
            return index % 3 == 0 ? -1_000_003L * index : index;
        }

        @Override
        public Long value(SplittableRandom random) {
            return random.nextInt(10) == 0 ? random.nextLong() : random.nextInt(-8, 9);
        }

        @Override
        public Long derive(Long value, int salt) {
            return value * 31 + salt;
        }

        @Override
        public Long sameSize(Long value, int salt) {
            return value ^ (salt | 1);
        }

        @Override
        public Long combine(Long a, Long b) {
            return a * 7 + b;
        }
    };

    static final Domain<String> STRINGS = new Domain<>() {
        private static final String[] PALETTE = {"a", "b", "z", "é", "ж", "中", "😀", " ", ",", "=", "{", "}"};

        @Override
        public String name() {
            return "String";
        }

        @Override
        public Serializer<String> serializer() {
            return Serializers.strings();
        }

        @Override
        public String key(int index) {
            return switch (index % 6) {
                case 0 -> index == 0 ? "" : "k" + index;
                case 1 -> "ключ" + index;
                case 2 -> "😀" + index;
                case 3 -> "x".repeat(index % 97) + index;
                case 4 -> "k" + index + "=v, {}";
                default -> "key-" + index;
            };
        }

        @Override
        public String value(SplittableRandom random) {
            int kind = random.nextInt(20);
            if (kind < 12) {
                return "v" + random.nextInt(12);
            }
            if (kind == 12) {
                return "";
            }
            int length = kind == 13 ? random.nextInt(300, 3000) : random.nextInt(1, 60);
            StringBuilder s = new StringBuilder(length);
            for (int i = 0; i < length; i++) {
                s.append(PALETTE[random.nextInt(PALETTE.length)]);
            }
            return s.toString();
        }

        @Override
        public String derive(String value, int salt) {
            return (value.length() > 400 ? prefix(value, 7) : value) + salt;
        }

        @Override
        public String sameSize(String value, int salt) {
            StringBuilder s = new StringBuilder(value.length());
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                s.append(c >= 'a' && c <= 'z' ? (char) ('a' + (c - 'a' + salt) % 26) : c);
            }
            return s.toString();
        }

        /** At most {@code n} chars of {@code s}, never splitting a surrogate pair. */
        private static String prefix(String s, int n) {
            if (s.length() <= n) {
                return s;
            }
            return s.substring(0, Character.isHighSurrogate(s.charAt(n - 1)) ? n - 1 : n);
        }

        @Override
        public String combine(String a, String b) {
            return (a.length() > 400 ? prefix(a, 5) : a) + prefix(b, 9);
        }
    };

    // ---- one run ------------------------------------------------------------------------------------------------

    private static final class Run<K, V> {
        private final Domain<K> kd;
        private final Domain<V> vd;
        private final GroveHashMap<K, V> map;
        private final ConcurrentHashMap<K, V> model = new ConcurrentHashMap<>();
        private final SplittableRandom random;
        private final long seed;
        private final String combo;
        private int step;
        private String op = "start";
        private int keySpace;
        /** Whole-map removals (by iterator, removeIf) take one key in this many: few while the map grows. */
        private int removalModulus;
        /** The arguments each side's user functions received, in order. */
        private final List<Object> groveCalls = new ArrayList<>();
        private final List<Object> modelCalls = new ArrayList<>();

        Run(Domain<K> kd, Domain<V> vd, GroveHashMap<K, V> map, long seed, long stream, String layout) {
            this.kd = kd;
            this.vd = vd;
            this.map = map;
            this.seed = seed;
            this.random = new SplittableRandom(seed + stream);
            this.combo = kd.name() + "->" + vd.name() + layout;
        }

        private Supplier<String> at(Object detail) {
            return () -> "seed=" + seed + " (rerun with -Dgrove.seed=" + seed + ") map=" + combo + " step=" + step
                    + " op=" + op + " " + detail;
        }

        void run() {
            try {
                runSteps();
            } catch (AssertionFailedError e) {
                throw e;
            } catch (Throwable t) {
                // An exception from the map rather than a wrong answer: still say where, and with which seed.
                throw new AssertionFailedError(at("threw " + t).get(), t);
            }
        }

        private void runSteps() {
            int largest = 0;
            for (step = 0; step < STEPS; step++) {
                int phase = step * 3 / STEPS;
                keySpace = phase == 1 ? 3_000 : 48;
                removalModulus = phase == 1 ? 64 : 3;
                step(phase == 1);
                largest = Math.max(largest, model.size());
                if (step % FULL_CHECK_EVERY == FULL_CHECK_EVERY - 1) {
                    fullCheck();
                }
            }
            // The map started at expectedSize(1) (16 segments of 16 slots): this many entries made them grow.
            assertTrue(largest > 1_000, at("the run never grew the map: at most " + largest + " entries"));
            fullCheck();
            op = "clear";
            map.clear();
            model.clear();
            fullCheck();
        }

        private K key() {
            return kd.key(random.nextInt(keySpace));
        }

        /** A value present in the model half of the time (when there is one), otherwise a random one. */
        private V someValue() {
            if (random.nextBoolean() && !model.isEmpty()) {
                V present = model.get(kd.key(random.nextInt(keySpace)));
                if (present != null) {
                    return present;
                }
            }
            return vd.value(random);
        }

        private void step(boolean growing) {
            // Weights: cheap single-key operations often, whole-map operations rarely. Inserting dominates while
            // the map is growing.
            int dice = random.nextInt(1000);
            K k = key();
            if (dice < (growing ? 300 : 120)) {
                op = "put";
                V v = vd.value(random);
                assertEquals(model.put(k, v), map.put(k, v), at(k));
            } else if (dice < 350) {
                op = "get";
                assertEquals(model.get(k), map.get(k), at(k));
            } else if (dice < 380) {
                op = "containsKey";
                assertEquals(model.containsKey(k), map.containsKey(k), at(k));
            } else if (dice < 390) {
                op = "containsValue";
                V v = someValue();
                assertEquals(model.containsValue(v), map.containsValue(v), at(v));
            } else if (dice < 430) {
                op = "putIfAbsent";
                V v = vd.value(random);
                assertEquals(model.putIfAbsent(k, v), map.putIfAbsent(k, v), at(k));
            } else if (dice < 480) {
                op = "remove(k)";
                assertEquals(model.remove(k), map.remove(k), at(k));
            } else if (dice < 510) {
                op = "remove(k,v)";
                V v = random.nextBoolean() && model.containsKey(k) ? model.get(k) : someValue();
                assertEquals(model.remove(k, v), map.remove(k, v), at(k + "," + v));
            } else if (dice < 530) {
                op = "replace(k,v)";
                V v = vd.value(random);
                assertEquals(model.replace(k, v), map.replace(k, v), at(k));
            } else if (dice < 550) {
                op = "replace(k,o,n)";
                V o = random.nextBoolean() && model.containsKey(k) ? model.get(k) : someValue();
                V n = vd.value(random);
                assertEquals(model.replace(k, o, n), map.replace(k, o, n), at(k + "," + o));
            } else if (dice < 575) {
                op = "compute";
                int mode = random.nextInt(4);
                int salt = random.nextInt(100);
                V fresh = vd.value(random);
                assertEquals(model.compute(k, (kk, v) -> computed(modelCalls, kk, v, mode, salt, fresh)),
                        map.compute(k, (kk, v) -> computed(groveCalls, kk, v, mode, salt, fresh)), at(k));
                checkCalls();
            } else if (dice < 600) {
                op = "computeIfAbsent";
                boolean toNull = random.nextInt(4) == 0;
                V fresh = vd.value(random);
                assertEquals(model.computeIfAbsent(k, kk -> absent(modelCalls, kk, toNull, fresh)),
                        map.computeIfAbsent(k, kk -> absent(groveCalls, kk, toNull, fresh)), at(k));
                checkCalls();
            } else if (dice < 625) {
                op = "computeIfPresent";
                int mode = random.nextInt(4);
                int salt = random.nextInt(100);
                assertEquals(model.computeIfPresent(k, (kk, v) -> computed(modelCalls, kk, v, mode, salt, null)),
                        map.computeIfPresent(k, (kk, v) -> computed(groveCalls, kk, v, mode, salt, null)), at(k));
                checkCalls();
            } else if (dice < 650) {
                op = "merge";
                boolean toNull = random.nextInt(4) == 0;
                V given = vd.value(random);
                assertEquals(model.merge(k, given, (a, b) -> merged(modelCalls, a, b, toNull)),
                        map.merge(k, given, (a, b) -> merged(groveCalls, a, b, toNull)), at(k));
                checkCalls();
            } else if (dice < 670) {
                op = "getOrDefault";
                V def = vd.value(random);
                assertEquals(model.getOrDefault(k, def), map.getOrDefault(k, def), at(k));
            } else if (dice < 680) {
                op = "putAll";
                Map<K, V> batch = new HashMap<>();
                for (int i = random.nextInt(6); i > 0; i--) {
                    batch.put(key(), vd.value(random));
                }
                model.putAll(batch);
                map.putAll(batch);
            } else if (dice < 683) {
                op = "replaceAll";
                int salt = random.nextInt(100);
                model.replaceAll((kk, v) -> vd.derive(v, salt ^ (kk.hashCode() & 15)));
                map.replaceAll((kk, v) -> vd.derive(v, salt ^ (kk.hashCode() & 15)));
                checkContents();
            } else if (dice < 686) {
                op = "forEach";
                Map<K, V> seen = new HashMap<>();
                map.forEach((kk, v) -> assertNull(seen.put(kk, v), at("key twice: " + kk)));
                assertEquals(model, seen, at(""));
            } else if (dice < 700) {
                op = "size/isEmpty";
                assertEquals(model.size(), map.size(), at(""));
                assertEquals(model.isEmpty(), map.isEmpty(), at(""));
            } else if (dice < 701 && random.nextInt(4) == 0 && !growing) {
                op = "clear";
                model.clear();
                map.clear();
                assertTrue(map.isEmpty(), at(""));
            } else if (dice < 720) {
                keySetOps(k);
            } else if (dice < 735) {
                valuesOps();
            } else if (dice < 755) {
                entrySetOps(k);
            } else if (dice < 759) {
                iteratorRemove();
            } else if (dice < 762) {
                entrySetValue();
            } else if (dice < 765) {
                removeIf();
            } else if (dice < 768) {
                op = "equals/hashCode/toString";
                checkEqualsHashCodeToString();
            } else if (dice < 820) {
                zcGet(k);
            } else if (dice < 850) {
                op = "zc.put";
                V v = vd.value(random);
                map.zc().put(k, v);
                model.put(k, v);
            } else if (dice < 870) {
                op = "zc.putIfAbsent";
                V v = vd.value(random);
                assertEquals(model.putIfAbsent(k, v) == null, map.zc().putIfAbsent(k, v), at(k));
            } else if (dice < 900) {
                op = "zc.remove";
                assertEquals(model.remove(k) != null, map.zc().remove(k), at(k));
            } else if (dice < 935) {
                zcComputeInPlace(k);
            } else if (dice < 970) {
                zcComputeResizing(k);
            } else {
                zcPutIfAbsentComputeIfPresent(k);
            }
        }

        // ---- user functions: deterministic, recording their arguments ----------------------------------------

        private V computed(List<Object> calls, K k, V v, int mode, int salt, V fresh) {
            calls.add(k);
            calls.add(v);
            if (mode == 0) {
                return null;
            }
            return v == null ? fresh : vd.derive(v, salt);
        }

        private V absent(List<Object> calls, K k, boolean toNull, V fresh) {
            calls.add(k);
            return toNull ? null : fresh;
        }

        private V merged(List<Object> calls, V a, V b, boolean toNull) {
            calls.add(a);
            calls.add(b);
            return toNull ? null : vd.combine(a, b);
        }

        private void checkCalls() {
            assertEquals(modelCalls, groveCalls, at("arguments of the user function (model, grove)"));
            modelCalls.clear();
            groveCalls.clear();
        }

        // ---- views ------------------------------------------------------------------------------------------------

        private void keySetOps(K k) {
            switch (random.nextInt(3)) {
                case 0 -> {
                    op = "keySet.contains";
                    assertEquals(model.keySet().contains(k), map.keySet().contains(k), at(k));
                }
                case 1 -> {
                    op = "keySet.remove";
                    assertEquals(model.keySet().remove(k), map.keySet().remove(k), at(k));
                }
                default -> {
                    op = "keySet.size/isEmpty";
                    assertEquals(model.size(), map.keySet().size(), at(""));
                    assertEquals(model.isEmpty(), map.keySet().isEmpty(), at(""));
                }
            }
        }

        private void valuesOps() {
            V v = someValue();
            switch (random.nextInt(3)) {
                case 0 -> {
                    op = "values.contains";
                    assertEquals(model.values().contains(v), map.values().contains(v), at(v));
                }
                case 1 -> {
                    // Removes one entry with that value; which one depends on iteration order, so find it.
                    op = "values.remove";
                    boolean removed = map.values().remove(v);
                    assertEquals(model.containsValue(v), removed, at(v));
                    if (removed) {
                        List<K> gone = new ArrayList<>();
                        model.forEach((kk, vv) -> {
                            if (vv.equals(v) && !map.containsKey(kk)) {
                                gone.add(kk);
                            }
                        });
                        assertEquals(1, gone.size(), at("keys with value " + v + " no longer in the map: " + gone));
                        model.remove(gone.get(0));
                    }
                }
                default -> {
                    op = "values.size";
                    assertEquals(model.size(), map.values().size(), at(""));
                }
            }
        }

        private void entrySetOps(K k) {
            V v = random.nextBoolean() && model.containsKey(k) ? model.get(k) : someValue();
            Map.Entry<K, V> entry = new SimpleEntry<>(k, v);
            if (random.nextBoolean()) {
                op = "entrySet.contains";
                assertEquals(model.entrySet().contains(entry), map.entrySet().contains(entry), at(entry));
            } else {
                op = "entrySet.remove";
                assertEquals(model.entrySet().remove(entry), map.entrySet().remove(entry), at(entry));
            }
        }

        /** Iterates one of the three views, removing through the iterator what a random predicate selects. */
        private void iteratorRemove() {
            int salt = random.nextInt(5);
            int modulus = removalModulus;
            Predicate<K> chosen = kk -> Math.floorMod(kk.hashCode() + salt, modulus) == 0;
            int view = random.nextInt(3);
            op = "iterator.remove on " + (view == 0 ? "keySet" : view == 1 ? "values" : "entrySet");
            Map<K, V> seen = new HashMap<>();
            Iterator<?> it = switch (view) {
                case 0 -> map.keySet().iterator();
                case 1 -> map.values().iterator();
                default -> map.entrySet().iterator();
            };
            Iterator<Map.Entry<K, V>> entries = view == 2 ? null : map.entrySet().iterator();
            // For keySet and values, walk entrySet alongside: both iterate in the same order while unchanged.
            // So first collect what the entry iterator sees, then remove through the view's own iterator.
            if (view != 2) {
                List<Map.Entry<K, V>> order = new ArrayList<>();
                entries.forEachRemaining(e -> order.add(new SimpleEntry<>(e.getKey(), e.getValue())));
                int i = 0;
                while (it.hasNext()) {
                    Object element = it.next();
                    assertTrue(i < order.size(), at("the view returned more elements than the entry set"));
                    Map.Entry<K, V> e = order.get(i++);
                    assertEquals(view == 0 ? e.getKey() : e.getValue(), element, at("element " + i));
                    assertNull(seen.put(e.getKey(), e.getValue()), at("key twice: " + e.getKey()));
                    if (chosen.test(e.getKey())) {
                        it.remove();
                    }
                }
                assertEquals(order.size(), i, at("the view returned fewer elements than the entry set"));
            } else {
                while (it.hasNext()) {
                    @SuppressWarnings("unchecked")
                    Map.Entry<K, V> e = (Map.Entry<K, V>) it.next();
                    assertNull(seen.put(e.getKey(), e.getValue()), at("key twice: " + e.getKey()));
                    if (chosen.test(e.getKey())) {
                        it.remove();
                    }
                }
            }
            assertEquals(model, seen, at("what the iteration saw"));
            model.keySet().removeIf(chosen);
            checkContents();
        }

        private void entrySetValue() {
            op = "entry.setValue";
            int salt = random.nextInt(100);
            for (Map.Entry<K, V> e : map.entrySet()) {
                if (Math.floorMod(e.getKey().hashCode() + salt, 4) == 0) {
                    V old = e.getValue();
                    V fresh = vd.derive(old, salt);
                    assertEquals(model.get(e.getKey()), e.setValue(fresh), at(e.getKey()));
                    assertEquals(fresh, e.getValue(), at(e.getKey()));
                    model.put(e.getKey(), fresh);
                }
            }
            checkContents();
        }

        private void removeIf() {
            int salt = random.nextInt(7);
            int modulus = removalModulus + 2;
            switch (random.nextInt(3)) {
                case 0 -> {
                    op = "keySet.removeIf";
                    Predicate<K> p = kk -> Math.floorMod(kk.hashCode() + salt, modulus) == 0;
                    assertEquals(model.keySet().removeIf(p), map.keySet().removeIf(p), at(""));
                }
                case 1 -> {
                    op = "values.removeIf";
                    Predicate<V> p = v -> Math.floorMod(v.hashCode() + salt, modulus) == 0;
                    assertEquals(model.values().removeIf(p), map.values().removeIf(p), at(""));
                }
                default -> {
                    op = "entrySet.removeIf";
                    Predicate<Map.Entry<K, V>> p = e -> Math.floorMod(e.getKey().hashCode() ^ e.getValue().hashCode()
                            + salt, modulus) == 0;
                    assertEquals(model.entrySet().removeIf(p), map.entrySet().removeIf(p), at(""));
                }
            }
            checkContents();
        }

        // ---- zero-copy -----------------------------------------------------------------------------------------

        private void zcGet(K k) {
            op = "zc.get";
            Handle handle = map.zc().get(k);
            V expected = model.get(k);
            if (expected == null) {
                assertNull(handle, at(k));
                return;
            }
            assertNotNull(handle, at(k));
            assertTrue(handle.isValid(), at(k));
            assertEquals(vd.serializer().size(expected), handle.size(), at(k));
            assertEquals(expected, vd.serializer().read(handle), at(k));
            assertEquals(expected, handle.read(vd.serializer()::read), at(k));
        }

        /** In place, same size: a handle taken before stays valid and sees the new value. */
        private void zcComputeInPlace(K k) {
            op = "zc.computeIfPresent in place";
            int salt = random.nextInt(1, 26);
            Handle before = map.zc().get(k);
            int[] calls = {0};
            boolean present = map.zc().computeIfPresent(k, view -> {
                calls[0]++;
                V old = vd.serializer().read(view);
                V fresh = vd.sameSize(old, salt);
                assertEquals(vd.serializer().size(fresh), view.size(), at("same-size update"));
                vd.serializer().write(fresh, view);
            });
            V old = model.get(k);
            assertEquals(old != null, present, at(k));
            assertEquals(present ? 1 : 0, calls[0], at("times the computer ran"));
            if (present) {
                V fresh = vd.sameSize(old, salt);
                model.put(k, fresh);
                assertTrue(before.isValid(), at("a handle survives an in-place update of the same size"));
                assertEquals(fresh, vd.serializer().read(before), at(k));
                assertEquals(fresh, map.get(k), at(k));
            }
        }

        /** In place with resizing (twice for fixed-size values): a handle taken before sees the entry gone. */
        private void zcComputeResizing(K k) {
            op = "zc.computeIfPresent resizing";
            int salt = random.nextInt(100);
            int detour = random.nextInt(3); // 0: resize straight to the new size; 1, 2: resize somewhere else first
            Handle before = map.zc().get(k);
            int[] calls = {0};
            Consumer<ResizableView> computer = view -> {
                calls[0]++;
                V old = vd.serializer().read(view);
                V fresh = vd.derive(old, salt);
                int size = vd.serializer().size(fresh);
                ResizableView target = view;
                if (detour > 0) {
                    target = target.resize(detour == 1 ? size + 13 : Math.max(0, size - 3));
                }
                target = target.resize(size);
                assertEquals(size, target.size(), at("size after resize"));
                vd.serializer().write(fresh, target);
            };
            boolean present = map.zc().computeIfPresent(k, computer);
            V old = model.get(k);
            assertEquals(old != null, present, at(k));
            assertEquals(present ? 1 : 0, calls[0], at("times the computer ran"));
            if (present) {
                V fresh = vd.derive(old, salt);
                model.put(k, fresh);
                Handle after = map.zc().get(k);
                assertEquals(fresh, vd.serializer().read(after), at(k));
                assertEquals(fresh, map.get(k), at(k));
                if (detour > 0 || vd.serializer().size(fresh) != vd.serializer().size(old)) {
                    // The value moved: the old handle must refuse to read.
                    assertFalse(before.isValid(), at("handle after a moving update"));
                    if (before.size() > 0) { // an empty value has no byte 0: that read fails its bounds check
                        assertThrows(ConcurrentModificationException.class, () -> before.getByte(0), at(k));
                    }
                    assertThrows(ConcurrentModificationException.class, () -> before.read(vd.serializer()::read),
                            at(k));
                }
            }
        }

        private void zcPutIfAbsentComputeIfPresent(K k) {
            op = "zc.putIfAbsentComputeIfPresent";
            int salt = random.nextInt(1, 26);
            V v = vd.value(random);
            int[] calls = {0};
            boolean inserted = map.zc().putIfAbsentComputeIfPresent(k, v, view -> {
                calls[0]++;
                vd.serializer().write(vd.sameSize(vd.serializer().read(view), salt), view);
            });
            V old = model.get(k);
            assertEquals(old == null, inserted, at(k));
            assertEquals(inserted ? 0 : 1, calls[0], at("times the computer ran"));
            model.put(k, inserted ? v : vd.sameSize(old, salt));
            assertEquals(model.get(k), map.get(k), at(k));
        }

        // ---- whole-map checks --------------------------------------------------------------------------------

        /** Contents through the entry iterator, compared with the model. */
        private void checkContents() {
            Map<K, V> seen = new HashMap<>();
            int n = 0;
            for (Map.Entry<K, V> e : map.entrySet()) {
                n++;
                assertNull(seen.put(e.getKey(), e.getValue()), at("key twice in the iteration: " + e.getKey()));
            }
            assertEquals(model, seen, at("contents"));
            assertEquals(model.size(), n, at("entries iterated"));
            assertEquals(model.size(), map.size(), at("size"));
        }

        private void checkEqualsHashCodeToString() {
            assertTrue(map.equals(model), at("map.equals(model)"));
            assertTrue(model.equals(map), at("model.equals(map)"));
            assertEquals(model.hashCode(), map.hashCode(), at("hashCode"));
            // The order is the map's own; the text must list exactly its entries in that order.
            Map<K, V> inOrder = new LinkedHashMap<>();
            for (Map.Entry<K, V> e : map.entrySet()) {
                inOrder.put(e.getKey(), e.getValue());
            }
            assertEquals(inOrder.toString(), map.toString(), at("toString"));
            assertEquals(model, inOrder, at("contents"));
            if (!model.isEmpty()) {
                Map<K, V> other = new HashMap<>(model);
                K any = other.keySet().iterator().next();
                other.put(any, vd.derive(other.get(any), 1));
                assertFalse(map.equals(other), at("equals a map with one value changed"));
            }
        }

        private void fullCheck() {
            op = "full check";
            checkContents();
            assertEquals(model.isEmpty(), map.isEmpty(), at("isEmpty"));
            assertEquals(model.keySet(), new HashSet<>(map.keySet()), at("keySet"));
            Map<V, Integer> valueCounts = new HashMap<>();
            map.values().forEach(v -> valueCounts.merge(v, 1, Integer::sum));
            Map<V, Integer> expectedCounts = new HashMap<>();
            model.values().forEach(v -> expectedCounts.merge(v, 1, Integer::sum));
            assertEquals(expectedCounts, valueCounts, at("values"));
            for (int i = 0; i < 3_000; i++) {
                K k = kd.key(i);
                V expected = model.get(k);
                assertEquals(expected, map.get(k), at(k));
                assertEquals(expected != null, map.containsKey(k), at(k));
                Handle handle = map.zc().get(k);
                assertEquals(expected != null, handle != null, at(k));
                if (handle != null) {
                    assertEquals(expected, vd.serializer().read(handle), at(k));
                }
            }
            checkEqualsHashCodeToString();
        }
    }
}
