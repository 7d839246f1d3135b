package io.grove.sorted;

import static io.grove.sorted.SortedDifferentialFixtures.INTS;
import static io.grove.sorted.SortedDifferentialFixtures.STRINGS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.MemoryPool;
import io.grove.ZeroCopySortedMap;
import io.grove.sorted.SortedDifferentialFixtures.Domain;
import io.grove.sorted.SortedDifferentialFixtures.ViewStep;
import io.grove.view.Handle;
import io.grove.view.ResizableView;
import java.time.Duration;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.opentest4j.AssertionFailedError;

/**
 * Differential random test (CONTRIBUTING.md, testing layer 3): long seeded sequences of every
 * {@code ConcurrentNavigableMap} method, on the map and on views of it (head, tail and sub maps with every bound
 * variant, descending maps, and views of views up to three deep), their key sets, value collections, entry sets
 * and iterators, and the zero-copy API over the map and over its range and descending views, applied to a
 * {@link GroveSortedMap} and to a {@link ConcurrentSkipListMap} model built with the same views. Every result is
 * compared (including which exception is thrown: an out-of-range insertion into a view throws
 * {@link IllegalArgumentException} on both), as are the arguments every user function receives and how often it
 * runs, the order of every scan, and the full contents periodically.
 *
 * <p>On a key outside a view's range the map must answer exactly as {@code ConcurrentSkipListMap}'s sub-maps:
 * {@code compute} and {@code computeIfAbsent} call their function (as on an absent key) and throw
 * {@link IllegalArgumentException} only if it returns a value, {@code merge} throws without calling its function,
 * {@code computeIfPresent} returns {@code null} without calling it; the zero-copy operations that insert nothing
 * ({@code get}, {@code remove}, {@code computeIfPresent}) answer "absent" ({@link ZeroCopySortedMap}), the
 * inserting ones ({@code put}, {@code putIfAbsent}, {@code putIfAbsentComputeIfPresent}) throw
 * {@link IllegalArgumentException} and change nothing.
 *
 * <p>The seed comes from the system property {@code grove.seed} if set ({@code -Dgrove.seed=...} on the Maven
 * command line), otherwise it is random; every assertion message carries it, with the step, the operation and the
 * view it ran on. Key spaces are small (200 keys) so that keys collide; each run uses a chunk size of 4, 16 or the
 * default, so that small chunks split and merge all the time. Each map draws on a pool of its own that the test
 * creates, so that after the map is closed the pool must hold no live slice. The key and value domains and the
 * view steps are in {@link SortedDifferentialFixtures}.
 */
class GroveSortedMapDifferentialTest {
    static final long SEED = seed();
    private static final int STEPS = 30_000;
    static final int KEY_SPACE = 200;
    private static final int FULL_CHECK_EVERY = 1_000;
    private static final int PHASE_STEPS = 2_500;
    private static final Duration TIME_LIMIT = Duration.ofSeconds(120);

    private static long seed() {
        String property = System.getProperty("grove.seed");
        long seed = property != null && !property.isBlank() ? Long.parseLong(property.trim())
                : new SplittableRandom().nextLong();
        System.out.println("GroveSortedMapDifferentialTest: -Dgrove.seed=" + seed);
        return seed;
    }

    @ParameterizedTest(name = "chunkSize={0}")
    @ValueSource(ints = {4, 16, GroveSortedMap.Builder.DEFAULT_CHUNK_SIZE})
    void intKeysStringValues(int chunkSize) {
        run(INTS, STRINGS, chunkSize, 1, false);
    }

    @ParameterizedTest(name = "chunkSize={0}")
    @ValueSource(ints = {4, 16, GroveSortedMap.Builder.DEFAULT_CHUNK_SIZE})
    void stringKeysIntValues(int chunkSize) {
        run(STRINGS, INTS, chunkSize, 2, false);
    }

    /** A map that lays out its pairs for scans: the scans of the checks move pairs all the time. */
    @ParameterizedTest(name = "chunkSize={0}")
    @ValueSource(ints = {4, 16})
    void intKeysStringValuesLaidOutForScans(int chunkSize) {
        run(INTS, STRINGS, chunkSize, 3, true);
    }

    private static <K, V> void run(Domain<K> keys, Domain<V> values, int chunkSize, long stream, boolean layOut) {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            try (MemoryPool pool = MemoryPool.builder().blockSize(1 << 20).build()) {
                GroveSortedMap.Builder<K, V> builder = GroveSortedMap.builder(keys.serializer(), values.serializer())
                        .chunkSize(chunkSize).pool(pool);
                GroveSortedMap<K, V> map = (layOut ? builder.layOutForScans() : builder).build();
                Run<K, V> run = new Run<>(keys, values, map, chunkSize, SEED, stream);
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

    /** What an operation or a user function produced: a value or an exception. */
    private record Outcome(Object value, RuntimeException thrown) {}

    // ---- one run ------------------------------------------------------------------------------------------------

    private static final class Run<K, V> {
        private final Domain<K> kd;
        private final Domain<V> vd;
        private final GroveSortedMap<K, V> map;
        private final ConcurrentSkipListMap<K, V> model = new ConcurrentSkipListMap<>();
        private final SplittableRandom random;
        private final long seed;
        private final String combo;
        private int step;
        private String op = "start";
        private String viewName = "map";
        /** The arguments each side's user functions received, in order. */
        private final List<Object> groveCalls = new ArrayList<>();
        private final List<Object> modelCalls = new ArrayList<>();

        Run(Domain<K> kd, Domain<V> vd, GroveSortedMap<K, V> map, int chunkSize, long seed, long stream) {
            this.kd = kd;
            this.vd = vd;
            this.map = map;
            this.seed = seed;
            this.random = new SplittableRandom(seed + stream * 1_000_003L + chunkSize);
            this.combo = kd.name() + "->" + vd.name() + " chunkSize=" + chunkSize;
        }

        Supplier<String> at(Object detail) {
            return () -> "seed=" + seed + " (rerun with -Dgrove.seed=" + seed + ") map=" + combo + " step=" + step
                    + " op=" + op + " view=" + viewName + " " + detail;
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
                viewName = "map";
                step();
                largest = Math.max(largest, model.size());
                if (step % FULL_CHECK_EVERY == FULL_CHECK_EVERY - 1) {
                    viewName = "map";
                    fullCheck();
                }
            }
            viewName = "map";
            // Enough entries for dozens of chunks of 4 (the growth phases reach 100 to 150 of the 200 keys).
            assertTrue(largest > KEY_SPACE / 3, at("the run never filled the map: at most " + largest
                    + " entries"));
            fullCheck();
            op = "clear";
            long liveBefore = map.footprint().liveSlices();
            int sizeBefore = model.size();
            map.clear();
            model.clear();
            fullCheck();
            // Every value of a removed entry is freed at once (a value is never kept for a removed entry); keys
            // may stay until their chunk is rebalanced, so only the values are counted.
            long liveAfter = map.footprint().liveSlices();
            assertTrue(liveAfter <= liveBefore - sizeBefore, at("after clear() of " + sizeBefore + " entries, "
                    + liveBefore + " -> " + liveAfter + " live slices: values of removed entries not freed"));
            // Usable after clear.
            K k = kd.key(7);
            V v = vd.value(random);
            assertNull(map.put(k, v), at(k));
            assertEquals(v, map.get(k), at(k));
            assertEquals(List.of(k), new ArrayList<>(map.keySet()), at("keys after clear and one put"));
            assertEquals(v, map.remove(k), at(k));
            assertTrue(map.isEmpty(), at("empty"));
        }

        private K key() {
            return kd.key(random.nextInt(KEY_SPACE));
        }

        /** A key or a bound slightly beyond the key space (navigation and range queries). */
        private K boundKey() {
            return kd.bound(random.nextInt(-3, KEY_SPACE + 3));
        }

        /** A value present in the model half of the time (when there is one), otherwise a random one. */
        private V someValue() {
            if (random.nextBoolean() && !model.isEmpty()) {
                V present = model.get(kd.key(random.nextInt(KEY_SPACE)));
                if (present != null) {
                    return present;
                }
            }
            return vd.value(random);
        }

        // ---- choosing a view -----------------------------------------------------------------------------------

        /** The model's view, the map's view and the steps that made them (empty for the maps themselves). */
        private record Pair<K, V>(ConcurrentNavigableMap<K, V> grove, ConcurrentNavigableMap<K, V> model,
                List<ViewStep<K>> steps) {}

        private static <K> Comparator<? super K> order(ConcurrentNavigableMap<K, ?> view) {
            @SuppressWarnings("unchecked")
            Comparator<? super K> natural = (Comparator<? super K>) Comparator.naturalOrder();
            return view.comparator() != null ? view.comparator() : natural;
        }

        /**
         * The map itself 40% of the time, otherwise a view one to three steps deep. A step the model refuses
         * (IllegalArgumentException: reversed bounds, or a bound outside the parent view's range) must be refused
         * by the map too, and is dropped.
         */
        private Pair<K, V> chooseView() {
            ConcurrentNavigableMap<K, V> g = map;
            ConcurrentNavigableMap<K, V> m = model;
            List<ViewStep<K>> steps = new ArrayList<>();
            int dice = random.nextInt(10);
            int depth = dice < 4 ? 0 : dice < 7 ? 1 : dice < 9 ? 2 : 3;
            StringBuilder name = new StringBuilder("map");
            for (int d = 0; d < depth; d++) {
                ViewStep<K> s = randomStep(m);
                ConcurrentNavigableMap<K, V> mv;
                try {
                    mv = s.apply(m);
                } catch (IllegalArgumentException refused) {
                    op = "view " + name + s;
                    viewName = name.toString();
                    ConcurrentNavigableMap<K, V> parent = g;
                    assertThrows(IllegalArgumentException.class, () -> s.apply(parent),
                            at("the model refused the view: " + refused.getMessage()));
                    continue;
                }
                ConcurrentNavigableMap<K, V> gv;
                try {
                    gv = s.apply(g);
                } catch (RuntimeException e) {
                    op = "view " + name + s;
                    viewName = name.toString();
                    throw new AssertionFailedError(at("the map refused a view the model accepts: " + e).get(), e);
                }
                g = gv;
                m = mv;
                steps.add(s);
                name.append(s);
            }
            viewName = name.toString();
            return new Pair<>(g, m, steps);
        }

        private ViewStep<K> randomStep(ConcurrentNavigableMap<K, V> m) {
            int kind = random.nextInt(7);
            K a = boundKey();
            K b = boundKey();
            // In the view's own order (reversed for descending views), from <= to, except sometimes on purpose.
            if (order(m).compare(a, b) > 0 && random.nextInt(20) != 0) {
                K t = a;
                a = b;
                b = t;
            }
            return new ViewStep<>(kind, a, random.nextBoolean(), b, random.nextBoolean());
        }

        private ZeroCopySortedMap<K, V> zcView(List<ViewStep<K>> steps) {
            ZeroCopySortedMap<K, V> z = map.zc();
            for (ViewStep<K> s : steps) {
                z = s.apply(z);
            }
            return z;
        }

        /** Whether {@code k} lies in the model view's range: a one-key sub map of it exists exactly then. */
        private static <K> boolean inRange(ConcurrentNavigableMap<K, ?> m, K k) {
            try {
                m.subMap(k, true, k, true);
                return true;
            } catch (IllegalArgumentException outside) {
                return false;
            }
        }

        // ---- comparing outcomes -------------------------------------------------------------------------------

        private static Outcome outcome(Supplier<?> operation) {
            try {
                return new Outcome(operation.get(), null);
            } catch (AssertionFailedError e) {
                throw e;
            } catch (RuntimeException e) {
                return new Outcome(null, e);
            }
        }

        /** Runs the operation on the model, then on the map; same value, or same exception type. */
        private void same(String name, Object detail, Supplier<?> onModel, Supplier<?> onGrove) {
            op = name;
            compare(outcome(onModel), outcome(onGrove), detail);
        }

        private void compare(Outcome expected, Outcome actual, Object detail) {
            if (expected.thrown() != null) {
                if (actual.thrown() == null) {
                    throw new AssertionFailedError(at(detail + ": expected " + expected.thrown() + ", but returned "
                            + actual.value()).get());
                }
                if (!expected.thrown().getClass().isInstance(actual.thrown())) {
                    throw new AssertionFailedError(at(detail + ": expected " + expected.thrown() + ", but threw "
                            + actual.thrown()).get(), actual.thrown());
                }
                return;
            }
            if (actual.thrown() != null) {
                throw new AssertionFailedError(at(detail + ": expected " + expected.value() + ", but threw "
                        + actual.thrown()).get(), actual.thrown());
            }
            assertEquals(expected.value(), actual.value(), at(detail));
            if (expected.value() instanceof Map.Entry<?, ?> e) {
                checkEntry(e, (Map.Entry<?, ?>) actual.value(), detail);
            }
        }

        /** equals both ways, hashCode and toString of an entry the map returned, against the model's entry. */
        private void checkEntry(Map.Entry<?, ?> expected, Map.Entry<?, ?> actual, Object detail) {
            assertTrue(actual.equals(expected), at(detail + ": entry.equals " + expected));
            assertTrue(expected.equals(actual), at(detail + ": equals the entry " + actual));
            assertEquals(expected.hashCode(), actual.hashCode(), at(detail + ": entry.hashCode"));
            assertEquals(expected.toString(), actual.toString(), at(detail + ": entry.toString"));
            assertFalse(actual.equals(new SimpleImmutableEntry<>(expected.getKey(), "\u0000other")),
                    at(detail + ": entry equals one with another value"));
        }

        /** As {@link #same}, and the user function was called with the same arguments as the model's. */
        private void sameWithCalls(String name, Object detail, Supplier<?> onModel, Supplier<?> onGrove) {
            same(name, detail, onModel, onGrove);
            checkCalls();
        }

        private void checkCalls() {
            assertEquals(modelCalls, groveCalls, at("arguments of the user function (model, grove)"));
            modelCalls.clear();
            groveCalls.clear();
        }

        // ---- one step ------------------------------------------------------------------------------------------

        private void step() {
            // Phases of growth and shrinkage in turn, so that chunks split and merge again and again: an extra
            // put (or remove) on the map itself in one step of three.
            if (random.nextInt(3) == 0) {
                K k = key();
                if (step / PHASE_STEPS % 2 == 0) {
                    V v = vd.value(random);
                    same("put (growth phase)", k, () -> model.put(k, v), () -> map.put(k, v));
                } else {
                    same("remove (shrinking phase)", k, () -> model.remove(k), () -> map.remove(k));
                }
                return;
            }
            int dice = random.nextInt(1000);
            if (dice >= 820) {
                zeroCopyStep(dice);
                return;
            }
            Pair<K, V> p = chooseView();
            ConcurrentNavigableMap<K, V> g = p.grove();
            ConcurrentNavigableMap<K, V> m = p.model();
            K k = key();
            if (dice < 110) {
                V v = vd.value(random);
                same("put", k, () -> m.put(k, v), () -> g.put(k, v));
            } else if (dice < 160) {
                same("get", k, () -> m.get(k), () -> g.get(k));
            } else if (dice < 180) {
                same("containsKey", k, () -> m.containsKey(k), () -> g.containsKey(k));
            } else if (dice < 190) {
                V def = vd.value(random);
                same("getOrDefault", k, () -> m.getOrDefault(k, def), () -> g.getOrDefault(k, def));
            } else if (dice < 230) {
                V v = vd.value(random);
                same("putIfAbsent", k, () -> m.putIfAbsent(k, v), () -> g.putIfAbsent(k, v));
            } else if (dice < 270) {
                same("remove(k)", k, () -> m.remove(k), () -> g.remove(k));
            } else if (dice < 290) {
                V v = random.nextBoolean() && model.containsKey(k) ? model.get(k) : someValue();
                same("remove(k, v)", k + ", " + v, () -> m.remove(k, v), () -> g.remove(k, v));
            } else if (dice < 305) {
                V v = vd.value(random);
                same("replace(k, v)", k, () -> m.replace(k, v), () -> g.replace(k, v));
            } else if (dice < 320) {
                V o = random.nextBoolean() && model.containsKey(k) ? model.get(k) : someValue();
                V n = vd.value(random);
                same("replace(k, o, n)", k + ", " + o, () -> m.replace(k, o, n), () -> g.replace(k, o, n));
            } else if (dice < 340) {
                int mode = random.nextInt(4);
                int salt = random.nextInt(100);
                V fresh = vd.value(random);
                sameWithCalls("compute", k,
                        () -> m.compute(k, (kk, v) -> computed(modelCalls, kk, v, mode, salt, fresh)),
                        () -> g.compute(k, (kk, v) -> computed(groveCalls, kk, v, mode, salt, fresh)));
            } else if (dice < 360) {
                boolean toNull = random.nextInt(4) == 0;
                V fresh = vd.value(random);
                sameWithCalls("computeIfAbsent", k,
                        () -> m.computeIfAbsent(k, kk -> absent(modelCalls, kk, toNull, fresh)),
                        () -> g.computeIfAbsent(k, kk -> absent(groveCalls, kk, toNull, fresh)));
            } else if (dice < 380) {
                int mode = random.nextInt(4);
                int salt = random.nextInt(100);
                sameWithCalls("computeIfPresent", k,
                        () -> m.computeIfPresent(k, (kk, v) -> computed(modelCalls, kk, v, mode, salt, null)),
                        () -> g.computeIfPresent(k, (kk, v) -> computed(groveCalls, kk, v, mode, salt, null)));
            } else if (dice < 400) {
                boolean toNull = random.nextInt(4) == 0;
                V given = vd.value(random);
                sameWithCalls("merge", k,
                        () -> m.merge(k, given, (a, b) -> merged(modelCalls, a, b, toNull)),
                        () -> g.merge(k, given, (a, b) -> merged(groveCalls, a, b, toNull)));
            } else if (dice < 410) {
                V v = someValue();
                same("containsValue", v, () -> m.containsValue(v), () -> g.containsValue(v));
            } else if (dice < 425) {
                same("size", "", m::size, g::size);
                same("isEmpty", "", m::isEmpty, g::isEmpty);
            } else if (dice < 445) {
                endsOps(g, m);
            } else if (dice < 455) {
                if (random.nextBoolean()) {
                    same("pollFirstEntry", "", m::pollFirstEntry, g::pollFirstEntry);
                } else {
                    same("pollLastEntry", "", m::pollLastEntry, g::pollLastEntry);
                }
            } else if (dice < 495) {
                navigationOps(g, m);
            } else if (dice < 525) {
                keySetOps(g, m);
            } else if (dice < 560) {
                contentsInOrder(g, m);
            } else if (dice < 575) {
                entrySetOps(g, m, k);
            } else if (dice < 585) {
                valuesOps(g, m);
            } else if (dice < 595) {
                iteratorRemove(g, m);
            } else if (dice < 600) {
                entrySetValue(g, m);
            } else if (dice < 605) {
                removeIf(g, m);
            } else if (dice < 620) {
                equalsHashCodeToString(g, m);
            } else if (dice < 627) {
                comparatorOps(g, m);
            } else if (dice < 629 && random.nextInt(3) == 0) {
                same("clear", "", () -> {
                    m.clear();
                    return null;
                }, () -> {
                    g.clear();
                    return null;
                });
                checkContents();
            } else if (dice < 645) {
                putAll(g, m);
            } else if (dice < 650) {
                op = "replaceAll";
                int salt = random.nextInt(100);
                m.replaceAll((kk, v) -> vd.derive(v, salt ^ (kk.hashCode() & 15)));
                g.replaceAll((kk, v) -> vd.derive(v, salt ^ (kk.hashCode() & 15)));
                checkContents();
            } else if (dice < 660) {
                op = "forEach";
                List<Map.Entry<K, V>> seen = new ArrayList<>();
                g.forEach((kk, v) -> seen.add(new SimpleImmutableEntry<>(kk, v)));
                assertEquals(entries(m), seen, at("forEach order and contents"));
            } else if (dice < 680) {
                sequencedOps(g, m);
            } else {
                // A view of the view, checked whole against the model's.
                op = "nested view contents";
                contentsInOrder(g, m);
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

        // ---- navigation ---------------------------------------------------------------------------------------

        private void endsOps(ConcurrentNavigableMap<K, V> g, ConcurrentNavigableMap<K, V> m) {
            same("firstKey", "", m::firstKey, g::firstKey);
            same("lastKey", "", m::lastKey, g::lastKey);
            same("firstEntry", "", m::firstEntry, g::firstEntry);
            same("lastEntry", "", m::lastEntry, g::lastEntry);
        }

        private void navigationOps(ConcurrentNavigableMap<K, V> g, ConcurrentNavigableMap<K, V> m) {
            K k = random.nextBoolean() ? key() : boundKey();
            switch (random.nextInt(8)) {
                case 0 -> same("floorEntry", k, () -> m.floorEntry(k), () -> g.floorEntry(k));
                case 1 -> same("ceilingEntry", k, () -> m.ceilingEntry(k), () -> g.ceilingEntry(k));
                case 2 -> same("higherEntry", k, () -> m.higherEntry(k), () -> g.higherEntry(k));
                case 3 -> same("lowerEntry", k, () -> m.lowerEntry(k), () -> g.lowerEntry(k));
                case 4 -> same("floorKey", k, () -> m.floorKey(k), () -> g.floorKey(k));
                case 5 -> same("ceilingKey", k, () -> m.ceilingKey(k), () -> g.ceilingKey(k));
                case 6 -> same("higherKey", k, () -> m.higherKey(k), () -> g.higherKey(k));
                default -> same("lowerKey", k, () -> m.lowerKey(k), () -> g.lowerKey(k));
            }
        }

        private void keySetOps(ConcurrentNavigableMap<K, V> g, ConcurrentNavigableMap<K, V> m) {
            int which = random.nextInt(3);
            String setName = which == 0 ? "keySet()" : which == 1 ? "navigableKeySet()" : "descendingKeySet()";
            NavigableSet<K> gs = which == 0 ? g.keySet() : which == 1 ? g.navigableKeySet() : g.descendingKeySet();
            NavigableSet<K> ms = which == 0 ? m.keySet() : which == 1 ? m.navigableKeySet() : m.descendingKeySet();
            K k = random.nextBoolean() ? key() : boundKey();
            K k2 = boundKey();
            boolean i1 = random.nextBoolean();
            boolean i2 = random.nextBoolean();
            switch (random.nextInt(16)) {
                case 0 -> same(setName + ".first", "", ms::first, gs::first);
                case 1 -> same(setName + ".last", "", ms::last, gs::last);
                case 2 -> same(setName + ".floor", k, () -> ms.floor(k), () -> gs.floor(k));
                case 3 -> same(setName + ".ceiling", k, () -> ms.ceiling(k), () -> gs.ceiling(k));
                case 4 -> same(setName + ".higher", k, () -> ms.higher(k), () -> gs.higher(k));
                case 5 -> same(setName + ".lower", k, () -> ms.lower(k), () -> gs.lower(k));
                case 6 -> same(setName + ".pollFirst", "", ms::pollFirst, gs::pollFirst);
                case 7 -> same(setName + ".pollLast", "", ms::pollLast, gs::pollLast);
                case 8 -> same(setName + ".contains", k, () -> ms.contains(k), () -> gs.contains(k));
                case 9 -> same(setName + ".remove", k, () -> ms.remove(k), () -> gs.remove(k));
                case 10 -> same(setName + ".size", "", ms::size, gs::size);
                case 11 -> same(setName + ".headSet", k + ", " + i1, () -> new ArrayList<>(ms.headSet(k, i1)),
                        () -> new ArrayList<>(gs.headSet(k, i1)));
                case 12 -> same(setName + ".tailSet", k + ", " + i1, () -> new ArrayList<>(ms.tailSet(k, i1)),
                        () -> new ArrayList<>(gs.tailSet(k, i1)));
                case 13 -> same(setName + ".subSet", k + ", " + i1 + ", " + k2 + ", " + i2,
                        () -> new ArrayList<>(ms.subSet(k, i1, k2, i2)),
                        () -> new ArrayList<>(gs.subSet(k, i1, k2, i2)));
                case 14 -> same(setName + ".descendingSet", "", () -> new ArrayList<>(ms.descendingSet()),
                        () -> new ArrayList<>(gs.descendingSet()));
                default -> {
                    same(setName + ".descendingIterator", "", () -> list(ms.descendingIterator()),
                            () -> list(gs.descendingIterator()));
                    same(setName + " equals/hashCode/toString", "", () -> List.of(ms.hashCode(), ms.toString()),
                            () -> List.of(gs.hashCode(), gs.toString()));
                    assertTrue(gs.equals(ms), at(setName + ".equals(model's)"));
                    assertTrue(ms.equals(gs), at("model's " + setName + ".equals(map's)"));
                }
            }
        }

        private static <T> List<T> list(Iterator<T> it) {
            List<T> out = new ArrayList<>();
            it.forEachRemaining(out::add);
            return out;
        }

        private static <K, V> List<Map.Entry<K, V>> entries(Map<K, V> m) {
            return copies(m.entrySet());
        }

        /** Snapshot copies of entries, in iteration order. */
        private static <K, V> List<Map.Entry<K, V>> copies(Collection<Map.Entry<K, V>> entries) {
            List<Map.Entry<K, V>> out = new ArrayList<>();
            for (Map.Entry<K, V> e : entries) {
                out.add(new SimpleImmutableEntry<>(e.getKey(), e.getValue()));
            }
            return out;
        }

        /** Every way to scan the view, in order, against the model's. */
        private void contentsInOrder(ConcurrentNavigableMap<K, V> g, ConcurrentNavigableMap<K, V> m) {
            op = "contents in order";
            List<Map.Entry<K, V>> expected = entries(m);
            assertEquals(expected, entries(g), at("entrySet"));
            assertEquals(new ArrayList<>(m.keySet()), new ArrayList<>(g.keySet()), at("keySet"));
            assertEquals(new ArrayList<>(m.values()), new ArrayList<>(g.values()), at("values"));
            assertEquals(new ArrayList<>(m.descendingKeySet()), new ArrayList<>(g.descendingKeySet()),
                    at("descendingKeySet"));
            assertEquals(entries(m.descendingMap()), entries(g.descendingMap()), at("descendingMap"));
            assertEquals(new ArrayList<>(m.values()), g.values().stream().toList(), at("values().stream()"));
            assertEquals(m.keySet().stream().toList(), g.keySet().stream().toList(), at("keySet().stream()"));
            assertEquals(expected.size(), g.size(), at("size"));
            assertEquals(expected.size(), g.entrySet().size(), at("entrySet().size()"));
            assertEquals(List.of(m.keySet().toArray()), List.of(g.keySet().toArray()), at("keySet().toArray()"));
            // Iterator protocol: hasNext is idempotent, next after the end throws.
            Iterator<K> it = g.keySet().iterator();
            for (int i = 0; i < expected.size(); i++) {
                assertTrue(it.hasNext(), at("hasNext at " + i));
                assertTrue(it.hasNext(), at("hasNext twice at " + i));
                assertEquals(expected.get(i).getKey(), it.next(), at("next at " + i));
            }
            assertFalse(it.hasNext(), at("hasNext at the end"));
            assertThrows(java.util.NoSuchElementException.class, it::next, at("next at the end"));
        }

        @SuppressWarnings("DoNotCall") // checks that both maps throw from putFirst and putLast, as SortedMap says
        private void sequencedOps(ConcurrentNavigableMap<K, V> g, ConcurrentNavigableMap<K, V> m) {
            K k = key();
            V v = vd.value(random);
            switch (random.nextInt(5)) {
                case 0 -> same("reversed()", "", () -> entries(m.reversed()), () -> entries(g.reversed()));
                case 1 -> same("sequencedKeySet().reversed()", "",
                        () -> new ArrayList<>(m.sequencedKeySet().reversed()),
                        () -> new ArrayList<>(g.sequencedKeySet().reversed()));
                case 2 -> same("sequencedValues()", "", () -> new ArrayList<>(m.sequencedValues()),
                        () -> new ArrayList<>(g.sequencedValues()));
                case 3 -> same("sequencedEntrySet().reversed()", "",
                        () -> copies(m.sequencedEntrySet().reversed()),
                        () -> copies(g.sequencedEntrySet().reversed()));
                default -> {
                    // SortedMap: putFirst and putLast always throw UnsupportedOperationException.
                    same("putFirst", k, () -> m.putFirst(k, v), () -> g.putFirst(k, v));
                    same("putLast", k, () -> m.putLast(k, v), () -> g.putLast(k, v));
                }
            }
        }

        // ---- collection views -------------------------------------------------------------------------------

        private void entrySetOps(ConcurrentNavigableMap<K, V> g, ConcurrentNavigableMap<K, V> m, K k) {
            V v = random.nextBoolean() && model.containsKey(k) ? model.get(k) : someValue();
            Map.Entry<K, V> entry = new SimpleImmutableEntry<>(k, v);
            if (random.nextBoolean()) {
                same("entrySet.contains", entry, () -> m.entrySet().contains(entry),
                        () -> g.entrySet().contains(entry));
            } else {
                same("entrySet.remove", entry, () -> m.entrySet().remove(entry), () -> g.entrySet().remove(entry));
            }
        }

        private void valuesOps(ConcurrentNavigableMap<K, V> g, ConcurrentNavigableMap<K, V> m) {
            V v = someValue();
            switch (random.nextInt(3)) {
                case 0 -> same("values.contains", v, () -> m.values().contains(v), () -> g.values().contains(v));
                // The first entry with that value in the view's order: the same one on both sides.
                case 1 -> same("values.remove", v, () -> m.values().remove(v), () -> g.values().remove(v));
                default -> same("values.size", "", () -> m.values().size(), () -> g.values().size());
            }
            checkContents();
        }

        /** Iterates one of the views of {@code g}, removing through the iterator what a random predicate selects. */
        private void iteratorRemove(ConcurrentNavigableMap<K, V> g, ConcurrentNavigableMap<K, V> m) {
            int salt = random.nextInt(5);
            Predicate<K> chosen = kk -> Math.floorMod(kk.hashCode() + salt, 3) == 0;
            int view = random.nextInt(4);
            op = "iterator.remove on " + switch (view) {
                case 0 -> "keySet";
                case 1 -> "values";
                case 2 -> "entrySet";
                default -> "descendingKeySet";
            };
            List<Map.Entry<K, V>> order = view == 3 ? entries(m.descendingMap()) : entries(m);
            Iterator<?> it = switch (view) {
                case 0 -> g.keySet().iterator();
                case 1 -> g.values().iterator();
                case 2 -> g.entrySet().iterator();
                default -> g.descendingKeySet().iterator();
            };
            assertThrows(IllegalStateException.class, it::remove, at("remove before next"));
            int i = 0;
            while (it.hasNext()) {
                Object element = it.next();
                assertTrue(i < order.size(), at("the iterator returned more elements than the model has"));
                Map.Entry<K, V> e = order.get(i++);
                Object expected = switch (view) {
                    case 1 -> e.getValue();
                    case 2 -> e;
                    default -> e.getKey();
                };
                assertEquals(expected, element, at("element " + i + " (expected the entry " + e + ")"));
                if (chosen.test(e.getKey())) {
                    it.remove();
                    if (random.nextInt(4) == 0) {
                        assertThrows(IllegalStateException.class, it::remove, at("remove twice"));
                    }
                    assertEquals(e.getValue(), m.remove(e.getKey()), at("model"));
                }
            }
            assertEquals(order.size(), i, at("the iterator returned fewer elements than the model has"));
            checkContents();
        }

        /** setValue on the entries of the entry set writes through, as {@code put}. */
        private void entrySetValue(ConcurrentNavigableMap<K, V> g, ConcurrentNavigableMap<K, V> m) {
            op = "entry.setValue";
            int salt = random.nextInt(100);
            for (Map.Entry<K, V> e : g.entrySet()) {
                if (Math.floorMod(e.getKey().hashCode() + salt, 4) == 0) {
                    V old = e.getValue();
                    V fresh = vd.derive(old, salt);
                    assertEquals(m.get(e.getKey()), e.setValue(fresh), at(e.getKey()));
                    assertEquals(fresh, e.getValue(), at(e.getKey()));
                    m.put(e.getKey(), fresh);
                }
            }
            checkContents();
        }

        private void removeIf(ConcurrentNavigableMap<K, V> g, ConcurrentNavigableMap<K, V> m) {
            int salt = random.nextInt(7);
            int modulus = random.nextInt(3, 6);
            switch (random.nextInt(3)) {
                case 0 -> {
                    Predicate<K> p = kk -> Math.floorMod(kk.hashCode() + salt, modulus) == 0;
                    same("keySet.removeIf", "", () -> m.keySet().removeIf(p), () -> g.keySet().removeIf(p));
                }
                case 1 -> {
                    Predicate<V> p = v -> Math.floorMod(v.hashCode() + salt, modulus) == 0;
                    same("values.removeIf", "", () -> m.values().removeIf(p), () -> g.values().removeIf(p));
                }
                default -> {
                    Predicate<Map.Entry<K, V>> p = e -> Math.floorMod(e.getKey().hashCode() ^ e.getValue().hashCode()
                            + salt, modulus) == 0;
                    same("entrySet.removeIf", "", () -> m.entrySet().removeIf(p), () -> g.entrySet().removeIf(p));
                }
            }
            checkContents();
        }

        private void equalsHashCodeToString(ConcurrentNavigableMap<K, V> g, ConcurrentNavigableMap<K, V> m) {
            op = "equals/hashCode/toString";
            assertTrue(g.equals(m), at("view.equals(model's)"));
            assertTrue(m.equals(g), at("model's view.equals(view)"));
            assertTrue(g.equals(new TreeMap<>(m)), at("view.equals(a TreeMap of the model's)"));
            assertEquals(m.hashCode(), g.hashCode(), at("hashCode"));
            assertEquals(m.toString(), g.toString(), at("toString"));
            assertEquals(m.entrySet().hashCode(), g.entrySet().hashCode(), at("entrySet().hashCode"));
            assertEquals(m.keySet(), g.keySet(), at("keySet equals"));
            if (!m.isEmpty()) {
                Map<K, V> other = new TreeMap<>(m);
                K any = m.firstKey();
                other.put(any, vd.derive(other.get(any), 1));
                assertFalse(g.equals(other), at("equals a map with one value changed"));
                Map<K, V> fewer = new TreeMap<>(m);
                fewer.remove(any);
                assertFalse(g.equals(fewer), at("equals a map with one entry less"));
            }
        }

        /** The view's comparator orders keys as the model view's does (reversed for descending views). */
        private void comparatorOps(ConcurrentNavigableMap<K, V> g, ConcurrentNavigableMap<K, V> m) {
            op = "comparator";
            Comparator<? super K> gc = g.comparator();
            assertNotNull(gc, at("comparator() of a map ordered by serialized bytes"));
            Comparator<? super K> mc = order(m);
            for (int i = 0; i < 8; i++) {
                K a = boundKey();
                K b = boundKey();
                assertEquals(Integer.signum(mc.compare(a, b)), Integer.signum(gc.compare(a, b)),
                        at("comparator().compare(" + a + ", " + b + ")"));
            }
            int index = random.nextInt(KEY_SPACE);
            assertEquals(0, gc.compare(kd.key(index), kd.key(index)), at("compare of two equal keys"));
        }

        private void putAll(ConcurrentNavigableMap<K, V> g, ConcurrentNavigableMap<K, V> m) {
            op = "putAll";
            Map<K, V> batch = new TreeMap<>();
            for (int i = random.nextInt(6); i > 0; i--) {
                K k = key();
                if (inRange(m, k)) { // an out-of-range key would leave the model half-updated
                    batch.put(k, vd.value(random));
                }
            }
            m.putAll(batch);
            g.putAll(batch);
            checkContents();
        }

        // ---- zero-copy -----------------------------------------------------------------------------------------

        private void zeroCopyStep(int dice) {
            Pair<K, V> p = chooseView();
            ConcurrentNavigableMap<K, V> m = p.model();
            ZeroCopySortedMap<K, V> z;
            try {
                z = zcView(p.steps());
            } catch (RuntimeException e) {
                throw new AssertionFailedError(at("zc() refused a view the model accepts: " + e).get(), e);
            }
            viewName = "zc " + viewName;
            K k = key();
            boolean in = inRange(m, k);
            if (dice < 850) {
                zcGet(z, m, k, in);
            } else if (dice < 870) {
                op = "zc.put";
                V v = vd.value(random);
                if (in) {
                    z.put(k, v);
                    m.put(k, v);
                    assertEquals(v, map.get(k), at(k));
                } else {
                    zcRefused(() -> z.put(k, v), k);
                }
            } else if (dice < 885) {
                op = "zc.putIfAbsent";
                V v = vd.value(random);
                if (in) {
                    assertEquals(m.putIfAbsent(k, v) == null, z.putIfAbsent(k, v), at(k));
                    assertEquals(m.get(k), map.get(k), at(k));
                } else {
                    zcRefused(() -> z.putIfAbsent(k, v), k);
                }
            } else if (dice < 905) {
                op = "zc.remove";
                if (in) {
                    assertEquals(m.remove(k) != null, z.remove(k), at(k));
                } else {
                    zcAbsent(() -> z.remove(k), false, k);
                }
            } else if (dice < 925) {
                zcComputeInPlace(z, m, k, in);
            } else if (dice < 945) {
                zcComputeResizing(z, m, k, in);
            } else if (dice < 960) {
                zcPutIfAbsentComputeIfPresent(z, m, k, in);
            } else if (dice < 990) {
                zcScan(z, m);
            } else {
                zcIteratorRemove(z, m);
            }
        }

        /** An inserting zero-copy operation on a key outside the view: IllegalArgumentException, nothing changed. */
        private void zcRefused(Runnable operation, K k) {
            V before = model.get(k);
            try {
                operation.run();
                throw new AssertionFailedError(at(k + " is outside the view: IllegalArgumentException expected")
                        .get());
            } catch (IllegalArgumentException expected) {
                // fine
            }
            assertEquals(before, map.get(k), at("a refused out-of-range operation changed " + k));
        }

        /** A non-inserting zero-copy operation on a key outside the view: "absent", nothing changed. */
        private void zcAbsent(Supplier<Object> operation, Object absent, K k) {
            V before = model.get(k);
            assertEquals(absent, operation.get(), at(k + " is outside the view"));
            assertEquals(before, map.get(k), at("an out-of-range operation changed " + k));
        }

        private void zcGet(ZeroCopySortedMap<K, V> z, ConcurrentNavigableMap<K, V> m, K k, boolean in) {
            op = "zc.get";
            if (!in) {
                zcAbsent(() -> z.get(k), null, k);
                return;
            }
            Handle handle = z.get(k);
            V expected = m.get(k);
            if (expected == null) {
                assertNull(handle, at(k));
                return;
            }
            assertNotNull(handle, at(k));
            assertTrue(handle.isValid(), at(k));
            assertEquals(vd.serializer().size(expected), handle.size(), at(k));
            assertEquals(expected, vd.serializer().read(handle), at(k));
            assertEquals(expected, handle.read(vd.serializer()::read), at(k));
            assertEquals(expected, vd.readDirectly(handle), at(k));
        }

        /** In place, same size: a handle taken before stays valid and sees the new value. */
        private void zcComputeInPlace(ZeroCopySortedMap<K, V> z, ConcurrentNavigableMap<K, V> m, K k, boolean in) {
            op = "zc.computeIfPresent in place";
            int salt = random.nextInt(1, 26);
            int[] calls = {0};
            Consumer<ResizableView> computer = view -> {
                calls[0]++;
                V old = vd.serializer().read(view);
                V fresh = vd.sameSize(old, salt);
                assertEquals(vd.serializer().size(fresh), view.size(), at("same-size update"));
                vd.serializer().write(fresh, view);
            };
            if (!in) {
                zcAbsent(() -> z.computeIfPresent(k, computer), false, k);
                assertEquals(0, calls[0], at("the computer ran for a key outside the view"));
                return;
            }
            Handle before = map.zc().get(k);
            boolean present = z.computeIfPresent(k, computer);
            V old = m.get(k);
            assertEquals(old != null, present, at(k));
            assertEquals(present ? 1 : 0, calls[0], at("times the computer ran"));
            if (present) {
                V fresh = vd.sameSize(old, salt);
                m.put(k, fresh);
                assertTrue(before.isValid(), at("a handle survives an in-place update of the same size"));
                assertEquals(fresh, vd.serializer().read(before), at(k));
                assertEquals(fresh, map.get(k), at(k));
            }
        }

        /**
         * In place with resizing (twice for fixed-size values, growing then shrinking or the other way): the new
         * value is what the map holds; a handle taken before either sees the entry gone or (if the value did not
         * move) reads the new value, never the old bytes.
         */
        private void zcComputeResizing(ZeroCopySortedMap<K, V> z, ConcurrentNavigableMap<K, V> m, K k,
                boolean in) {
            op = "zc.computeIfPresent resizing";
            int salt = random.nextInt(100);
            int detour = random.nextInt(3); // 0: resize straight to the new size; 1: grow first; 2: shrink first
            int[] calls = {0};
            Consumer<ResizableView> computer = view -> {
                calls[0]++;
                V old = vd.serializer().read(view);
                V fresh = vd.derive(old, salt);
                int size = vd.serializer().size(fresh);
                ResizableView target = view;
                if (detour > 0) {
                    int oldSize = view.size();
                    byte[] keep = view.toByteArray();
                    target = target.resize(detour == 1 ? size + 13 : Math.max(0, size - 3));
                    int kept = Math.min(oldSize, target.size());
                    for (int i = 0; i < kept; i++) {
                        assertEquals(keep[i], target.getByte(i), at("byte " + i + " kept by resize"));
                    }
                    for (int i = kept; i < target.size(); i++) {
                        assertEquals(0, target.getByte(i), at("byte " + i + " beyond the old size is zero"));
                    }
                }
                target = target.resize(size);
                assertEquals(size, target.size(), at("size after resize"));
                vd.serializer().write(fresh, target);
            };
            if (!in) {
                zcAbsent(() -> z.computeIfPresent(k, computer), false, k);
                assertEquals(0, calls[0], at("the computer ran for a key outside the view"));
                return;
            }
            Handle before = map.zc().get(k);
            boolean present = z.computeIfPresent(k, computer);
            V old = m.get(k);
            assertEquals(old != null, present, at(k));
            assertEquals(present ? 1 : 0, calls[0], at("times the computer ran"));
            if (present) {
                V fresh = vd.derive(old, salt);
                m.put(k, fresh);
                Handle after = map.zc().get(k);
                assertEquals(fresh, vd.serializer().read(after), at(k));
                assertEquals(fresh, map.get(k), at(k));
                V seen;
                try {
                    seen = before.read(vd.serializer()::read);
                } catch (ConcurrentModificationException moved) {
                    assertFalse(before.isValid(), at("a handle that throws CME says it is valid"));
                    seen = null;
                }
                if (seen != null) {
                    assertEquals(fresh, seen, at("a handle that survived a resize reads the new value"));
                }
            }
        }

        private void zcPutIfAbsentComputeIfPresent(ZeroCopySortedMap<K, V> z, ConcurrentNavigableMap<K, V> m, K k,
                boolean in) {
            op = "zc.putIfAbsentComputeIfPresent";
            int salt = random.nextInt(1, 26);
            V v = vd.value(random);
            int[] calls = {0};
            Consumer<ResizableView> computer = view -> {
                calls[0]++;
                vd.serializer().write(vd.sameSize(vd.serializer().read(view), salt), view);
            };
            if (!in) {
                zcRefused(() -> z.putIfAbsentComputeIfPresent(k, v, computer), k);
                assertEquals(0, calls[0], at("the computer ran for a key outside the view"));
                return;
            }
            boolean inserted = z.putIfAbsentComputeIfPresent(k, v, computer);
            V old = m.get(k);
            assertEquals(old == null, inserted, at(k));
            assertEquals(inserted ? 0 : 1, calls[0], at("times the computer ran"));
            m.put(k, inserted ? v : vd.sameSize(old, salt));
            assertEquals(m.get(k), map.get(k), at(k));
        }

        /** One of the six ordered scans of the zero-copy view, against the model view's order. */
        private void zcScan(ZeroCopySortedMap<K, V> z, ConcurrentNavigableMap<K, V> m) {
            Function<Handle, K> key = h -> kd.serializer().read(h);
            Function<Handle, V> value = h -> vd.serializer().read(h);
            List<K> keys = new ArrayList<>(m.keySet());
            List<V> values = new ArrayList<>(m.values());
            List<Map.Entry<K, V>> entries = entries(m);
            switch (random.nextInt(7)) {
                case 0 -> {
                    op = "zc.keySet";
                    assertEquals(keys, z.keySet().stream().map(key).toList(), at(""));
                    // Each element is its own handle: all of them still read their keys after the scan.
                    List<Handle> kept = new ArrayList<>(z.keySet());
                    assertEquals(keys, kept.stream().map(key).toList(), at("handles kept after the scan"));
                    assertEquals(keys, kept.stream().map(kd::readDirectly).toList(), at("read directly"));
                }
                case 1 -> {
                    op = "zc.values";
                    List<Handle> kept = new ArrayList<>(z.values());
                    assertEquals(values, kept.stream().map(value).toList(), at(""));
                    assertEquals(values, kept.stream().map(vd::readDirectly).toList(), at("read directly"));
                }
                case 2 -> {
                    op = "zc.entrySet";
                    List<Map.Entry<K, V>> seen = new ArrayList<>();
                    for (Map.Entry<Handle, Handle> e : z.entrySet()) {
                        seen.add(new SimpleImmutableEntry<>(key.apply(e.getKey()), value.apply(e.getValue())));
                    }
                    assertEquals(entries, seen, at(""));
                }
                case 3 -> {
                    op = "zc.keyStream";
                    assertEquals(keys, z.keyStream().map(key).toList(), at(""));
                }
                case 4 -> {
                    op = "zc.valueStream";
                    assertEquals(values, z.valueStream().map(value).toList(), at(""));
                }
                case 5 -> {
                    op = "zc.entryStream";
                    assertEquals(entries, z.entryStream()
                            .map(e -> new SimpleImmutableEntry<>(key.apply(e.getKey()), value.apply(e.getValue())))
                            .toList(), at(""));
                }
                default -> {
                    op = "zc scans: size, limit, skip";
                    assertEquals(keys.size(), z.keySet().size(), at("zc.keySet().size()"));
                    assertEquals(keys.size(), z.values().size(), at("zc.values().size()"));
                    assertEquals(keys.size(), z.entrySet().size(), at("zc.entrySet().size()"));
                    int n = random.nextInt(5);
                    assertEquals(keys.stream().limit(n).toList(), z.keyStream().limit(n).map(key).toList(),
                            at("keyStream().limit(" + n + ")"));
                    assertEquals(values.stream().skip(n).toList(), z.valueStream().skip(n).map(value).toList(),
                            at("valueStream().skip(" + n + ")"));
                    assertEquals(keys.size(), z.entryStream().count(), at("entryStream().count()"));
                }
            }
        }

        /** Removes through the iterator of a zero-copy scan. */
        private void zcIteratorRemove(ZeroCopySortedMap<K, V> z, ConcurrentNavigableMap<K, V> m) {
            int salt = random.nextInt(5);
            Predicate<K> chosen = kk -> Math.floorMod(kk.hashCode() + salt, 3) == 0;
            int view = random.nextInt(3);
            op = "zc iterator.remove on " + (view == 0 ? "keySet" : view == 1 ? "values" : "entrySet");
            List<Map.Entry<K, V>> order = entries(m);
            Iterator<?> it = view == 0 ? z.keySet().iterator() : view == 1 ? z.values().iterator()
                    : z.entrySet().iterator();
            int i = 0;
            while (it.hasNext()) {
                Object element = it.next();
                assertTrue(i < order.size(), at("more elements than the model has"));
                Map.Entry<K, V> e = order.get(i++);
                if (view == 0) {
                    assertEquals(e.getKey(), kd.serializer().read((Handle) element), at("element " + i));
                } else if (view == 1) {
                    assertEquals(e.getValue(), vd.serializer().read((Handle) element), at("element " + i));
                } else {
                    @SuppressWarnings("unchecked")
                    Map.Entry<Handle, Handle> he = (Map.Entry<Handle, Handle>) element;
                    assertEquals(e.getKey(), kd.serializer().read(he.getKey()), at("element " + i));
                    assertEquals(e.getValue(), vd.serializer().read(he.getValue()), at("element " + i));
                }
                if (chosen.test(e.getKey())) {
                    it.remove();
                    assertEquals(e.getValue(), m.remove(e.getKey()), at("model"));
                }
            }
            assertEquals(order.size(), i, at("fewer elements than the model has"));
            checkContents();
        }

        // ---- whole-map checks --------------------------------------------------------------------------------

        /** Contents through the entry iterator, in order, compared with the model. */
        private void checkContents() {
            String was = op;
            op = was + " (contents after)";
            assertEquals(entries(model), entries(map), at("contents"));
            assertEquals(model.size(), map.size(), at("size"));
            op = was;
        }

        private void fullCheck() {
            op = "full check";
            checkContents();
            assertEquals(model.isEmpty(), map.isEmpty(), at("isEmpty"));
            assertEquals(new ArrayList<>(model.keySet()), new ArrayList<>(map.keySet()), at("keySet"));
            assertEquals(new ArrayList<>(model.values()), new ArrayList<>(map.values()), at("values"));
            assertEquals(entries(model.descendingMap()), entries(map.descendingMap()), at("descendingMap"));
            for (int i = 0; i < KEY_SPACE; i++) {
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
            if (!model.isEmpty()) {
                assertEquals(model.firstKey(), map.firstKey(), at("firstKey"));
                assertEquals(model.lastKey(), map.lastKey(), at("lastKey"));
            } else {
                assertThrows(java.util.NoSuchElementException.class, map::firstKey, at("firstKey of empty"));
                assertNull(map.firstEntry(), at("firstEntry of empty"));
            }
            assertEquals(model.toString(), map.toString(), at("toString"));
            assertTrue(map.equals(model), at("map.equals(model)"));
            assertTrue(model.equals(map), at("model.equals(map)"));
            assertEquals(model.hashCode(), map.hashCode(), at("hashCode"));
            assertEquals(new ArrayList<>(model.values()), map.zc().valueStream().map(vd.serializer()::read)
                    .toList(), at("zc().valueStream()"));
            assertEquals(new ArrayList<>(model.descendingKeySet()), map.zc().descendingMap().keyStream()
                    .map(kd.serializer()::read).toList(), at("zc().descendingMap().keyStream()"));
            assertTrue(map.heapFootprint() > 0, at("heapFootprint() of a map with its chunks: "
                    + map.heapFootprint()));
        }
    }

}
