package io.grove.sorted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.grove.GroveSortedMap;
import io.grove.ZeroCopySortedMap;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Every single-key operation of range views on keys inside and outside their bounds, against
 * {@link ConcurrentSkipListMap}'s sub-maps built the same way: the same result or the same exception, the same
 * calls of the user function with the same arguments, and the same entries afterwards. Out of range, CSLM's
 * sub-maps answer reads and removals as for an absent key, call the function of {@code compute} and
 * {@code computeIfAbsent} (with no present value) and throw {@link IllegalArgumentException} only if it returns a
 * value to insert, throw for {@code merge} without calling its function, and return {@code null} from
 * {@code computeIfPresent} without calling it. The zero-copy views follow the same rule: {@code get},
 * {@code remove} and {@code computeIfPresent} answer "absent", the inserting operations throw.
 */
class RangeViewBoundsDifferentialTest {
    private static final int KEYS = 20;

    /** A view, made the same way from the map, the model and the zero-copy map. */
    private record View(String name, Function<ConcurrentNavigableMap<Integer, Integer>,
            ConcurrentNavigableMap<Integer, Integer>> of, Function<ZeroCopySortedMap<Integer, Integer>,
            ZeroCopySortedMap<Integer, Integer>> zc) {}

    private static final List<View> VIEWS = List.of(
            new View("subMap[5,10)", m -> m.subMap(5, true, 10, false), z -> z.subMap(5, true, 10, false)),
            new View("headMap(<5)", m -> m.headMap(5, false), z -> z.headMap(5, false)),
            new View("tailMap(>=10)", m -> m.tailMap(10, true), z -> z.tailMap(10, true)),
            new View("descending subMap(10,5]", m -> m.descendingMap().subMap(10, false, 5, true),
                    z -> z.descendingMap().subMap(10, false, 5, true)),
            new View("subMap[3,15] descending headMap(>8)",
                    m -> m.subMap(3, true, 15, true).descendingMap().headMap(8, false),
                    z -> z.subMap(3, true, 15, true).descendingMap().headMap(8, false)),
            new View("tailMap(>2) headMap(<=12) descending", m -> m.tailMap(2, false).headMap(12, true).descendingMap(),
                    z -> z.tailMap(2, false).headMap(12, true).descendingMap()));

    private final List<String> modelCalls = new ArrayList<>();
    private final List<String> groveCalls = new ArrayList<>();

    @Test
    void singleKeyOperationsOfRangeViewsMatchConcurrentSkipListMap() {
        try (GroveSortedMap<Integer, Integer> map = GroveSortedMap.builder(Serializers.ints(), Serializers.ints())
                .chunkSize(4).build()) {
            ConcurrentSkipListMap<Integer, Integer> model = new ConcurrentSkipListMap<>();
            for (View view : VIEWS) {
                for (int k = -1; k <= KEYS; k++) {
                    for (int operation = 0; operation < OPERATIONS; operation++) {
                        fill(map, model);
                        String what = view.name() + ", key " + k + ", " + NAMES[operation];
                        same(what, operate(view.of().apply(model), k, operation, modelCalls),
                                operate(view.of().apply(map), k, operation, groveCalls));
                        assertEquals(modelCalls, groveCalls, what + ": calls of the function");
                        assertEquals(model, map, what + ": entries afterwards");
                        modelCalls.clear();
                        groveCalls.clear();
                    }
                }
            }
        }
    }

    @Test
    void zeroCopyOperationsOfRangeViewsMatchConcurrentSkipListMap() {
        try (GroveSortedMap<Integer, Integer> map = GroveSortedMap.builder(Serializers.ints(), Serializers.ints())
                .chunkSize(4).build()) {
            ConcurrentSkipListMap<Integer, Integer> model = new ConcurrentSkipListMap<>();
            for (View view : VIEWS) {
                for (int k = -1; k <= KEYS; k++) {
                    int key = k;
                    String what = view.name() + ", key " + k;
                    fill(map, model);
                    ConcurrentNavigableMap<Integer, Integer> m = view.of().apply(model);
                    ZeroCopySortedMap<Integer, Integer> z = view.zc().apply(map.zc());
                    boolean in = inRange(m, k);

                    Handle handle = z.get(k);
                    if (m.get(k) != null) {
                        assertEquals(m.get(k), handle.getInt(0) ^ Integer.MIN_VALUE, what + ": zc get"); // sign flipped
                    } else {
                        assertNull(handle, what + (in ? ": zc get of an absent key" : ": zc get out of range"));
                    }
                    int[] called = {0};
                    boolean present = m.containsKey(k);
                    assertEquals(present, z.computeIfPresent(k, v -> {
                        called[0]++;
                        v.putInt(0, v.getInt(0) + 1000); // adds 1000 to the value under its sign-flipped encoding
                    }), what + ": zc computeIfPresent");
                    assertEquals(present ? 1 : 0, called[0], what + ": zc computeIfPresent calls");
                    m.computeIfPresent(k, (kk, v) -> v + 1000);
                    assertEquals(model, map, what + ": after zc computeIfPresent");
                    assertEquals(m.remove(k) != null, z.remove(k), what + ": zc remove");
                    assertEquals(model, map, what + ": after zc remove");

                    if (in) {
                        z.put(k, -k);
                        m.put(k, -k);
                    } else {
                        assertThrows(IllegalArgumentException.class, () -> m.put(key, 1), what);
                        assertThrows(IllegalArgumentException.class, () -> z.put(key, 1), what + ": zc put");
                        assertThrows(IllegalArgumentException.class, () -> z.putIfAbsent(key, 1),
                                what + ": zc putIfAbsent");
                        assertThrows(IllegalArgumentException.class,
                                () -> z.putIfAbsentComputeIfPresent(key, 1, v -> v.putInt(0, 7)),
                                what + ": zc putIfAbsentComputeIfPresent");
                    }
                    assertEquals(model, map, what + ": after the inserting zc operations");
                }
            }
        }
    }

    private static boolean inRange(ConcurrentNavigableMap<Integer, ?> m, int k) {
        try {
            m.subMap(k, true, k, true);
            return true;
        } catch (IllegalArgumentException outside) {
            return false;
        }
    }

    /** Both maps hold the keys {@code 0, 2, 4...} below {@value #KEYS}, each mapped to itself. */
    private static void fill(GroveSortedMap<Integer, Integer> map, ConcurrentSkipListMap<Integer, Integer> model) {
        map.clear();
        model.clear();
        for (int k = 0; k < KEYS; k += 2) {
            map.put(k, k);
            model.put(k, k);
        }
    }

    private static final String[] NAMES = {"get", "containsKey", "getOrDefault", "remove(k)", "remove(k, v)",
        "put", "putIfAbsent", "replace(k, v)", "replace(k, old, new)", "compute -> null", "compute -> value",
        "computeIfAbsent -> null", "computeIfAbsent -> value", "computeIfPresent -> null",
        "computeIfPresent -> value", "merge -> null", "merge -> value", "compute throws"};
    private static final int OPERATIONS = NAMES.length;

    /** Operation {@code operation} on key {@code k} of {@code m}; the user function records its calls. */
    private static Supplier<Object> operate(ConcurrentNavigableMap<Integer, Integer> m, int k, int operation,
            List<String> calls) {
        return () -> switch (operation) {
            case 0 -> m.get(k);
            case 1 -> m.containsKey(k);
            case 2 -> m.getOrDefault(k, -7);
            case 3 -> m.remove(k);
            case 4 -> m.remove(k, k);
            case 5 -> m.put(k, 100 + k);
            case 6 -> m.putIfAbsent(k, 100 + k);
            case 7 -> m.replace(k, 100 + k);
            case 8 -> m.replace(k, k, 100 + k);
            case 9 -> m.compute(k, (kk, v) -> record(calls, "compute(" + kk + ", " + v + ")", null));
            case 10 -> m.compute(k, (kk, v) -> record(calls, "compute(" + kk + ", " + v + ")", 200 + kk));
            case 11 -> m.computeIfAbsent(k, kk -> record(calls, "computeIfAbsent(" + kk + ")", null));
            case 12 -> m.computeIfAbsent(k, kk -> record(calls, "computeIfAbsent(" + kk + ")", 300 + kk));
            case 13 -> m.computeIfPresent(k, (kk, v) -> record(calls, "computeIfPresent(" + kk + ", " + v + ")",
                    null));
            case 14 -> m.computeIfPresent(k, (kk, v) -> record(calls, "computeIfPresent(" + kk + ", " + v + ")",
                    v + 400));
            case 15 -> m.merge(k, 5, (a, b) -> record(calls, "merge(" + a + ", " + b + ")", null));
            case 16 -> m.merge(k, 5, (a, b) -> record(calls, "merge(" + a + ", " + b + ")", a + b));
            default -> m.compute(k, (kk, v) -> {
                calls.add("compute(" + kk + ", " + v + ") throws");
                throw new UnsupportedOperationException("the function's own failure");
            });
        };
    }

    private static Integer record(List<String> calls, String call, Integer result) {
        calls.add(call);
        return result;
    }

    /** The same value, or an exception of the same class. */
    private static void same(String what, Supplier<Object> model, Supplier<Object> grove) {
        Object expected;
        try {
            expected = model.get();
        } catch (RuntimeException e) {
            RuntimeException thrown = assertThrows(RuntimeException.class, grove::get, what + ": expected " + e);
            assertEquals(e.getClass(), thrown.getClass(), what + ": " + thrown);
            return;
        }
        Object actual;
        try {
            actual = grove.get();
        } catch (RuntimeException e) {
            throw new AssertionError(what + ": expected " + expected + ", but threw " + e, e);
        }
        assertEquals(expected, actual, what);
    }
}
