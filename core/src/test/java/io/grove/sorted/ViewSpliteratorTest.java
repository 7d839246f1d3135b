package io.grove.sorted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.ZeroCopySortedMap;
import io.grove.serial.Serializers;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Spliterator;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The spliterators of every view, against {@link ConcurrentSkipListMap}'s (built with the map's comparator, the
 * views made alike). CSLM's whole-map key set, entry set and values report CONCURRENT, NONNULL and ORDERED (keys
 * and entries also DISTINCT and SORTED by the map's comparator) with no fixed size; its descending and range
 * views report fewer (keys: ORDERED, DISTINCT, SORTED; entries: DISTINCT; values: nothing), though the same hold
 * for them. Grove reports the full set for every view: what CSLM reports for the whole map, exactly; for every
 * view at least what CSLM reports for it; never SIZED (a size taken before a concurrent scan is not its size);
 * and SORTED with the comparator the elements come out in. The zero-copy collections are CONCURRENT, NONNULL and
 * ORDERED (keys and entries DISTINCT, handles having no order of their own), and the streams that reuse one
 * handle are neither DISTINCT (one object) nor split.
 */
class ViewSpliteratorTest {
    private static final int KEYS = 50;
    private static final int EXPECTED_KEYS = Spliterator.CONCURRENT | Spliterator.DISTINCT | Spliterator.NONNULL
            | Spliterator.ORDERED | Spliterator.SORTED;
    private static final int EXPECTED_VALUES = Spliterator.CONCURRENT | Spliterator.NONNULL | Spliterator.ORDERED;

    /** A view made the same way from either map, with a name. */
    private record View(String name,
            Function<ConcurrentNavigableMap<Long, Long>, ConcurrentNavigableMap<Long, Long>> of) {}

    private static final List<View> VIEWS = List.of(
            new View("map", m -> m),
            new View("descendingMap", ConcurrentNavigableMap::descendingMap),
            new View("subMap[10,40)", m -> m.subMap(10L, true, 40L, false)),
            new View("headMap(<=20)", m -> m.headMap(20L, true)),
            new View("tailMap(>5) descending", m -> m.tailMap(5L, false).descendingMap()),
            new View("descending subMap(40,10]", m -> m.descendingMap().subMap(40L, false, 10L, true)));

    @Test
    void viewsReportWhatConcurrentSkipListMapReportsAndNeverAFixedSize() {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).build()) {
            ConcurrentSkipListMap<Long, Long> model = new ConcurrentSkipListMap<>(map.comparator());
            for (long k = 0; k < KEYS; k++) {
                map.put(k, k);
                model.put(k, k);
            }
            for (View view : VIEWS) {
                ConcurrentNavigableMap<Long, Long> g = view.of().apply(map);
                ConcurrentNavigableMap<Long, Long> m = view.of().apply(model);
                boolean whole = view.name().equals("map");
                check(view.name() + ".keySet()", g.keySet(), m.keySet(), EXPECTED_KEYS, g.comparator(), whole);
                check(view.name() + ".navigableKeySet()", g.navigableKeySet(), m.navigableKeySet(), EXPECTED_KEYS,
                        g.comparator(), whole);
                check(view.name() + ".descendingKeySet()", g.descendingKeySet(), m.descendingKeySet(),
                        EXPECTED_KEYS, g.descendingMap().comparator(), false);
                check(view.name() + ".keySet().tailSet(20)", g.navigableKeySet().tailSet(20L, true),
                        m.navigableKeySet().tailSet(20L, true), EXPECTED_KEYS, g.comparator(), false);
                check(view.name() + ".values()", g.values(), m.values(), EXPECTED_VALUES, null, whole);
                check(view.name() + ".entrySet()", g.entrySet(), m.entrySet(), EXPECTED_KEYS,
                        Map.Entry.comparingByKey(g.comparator()), whole);
            }
        }
    }

    /**
     * The characteristics of {@code grove}'s spliterator are {@code expected}, include CSLM's ({@code model}; equal
     * if {@code same}), and, if SORTED, its comparator orders the elements as they come: like {@code order}.
     */
    private static <T> void check(String what, Collection<T> grove, Collection<T> model, int expected,
            Comparator<? super T> order, boolean same) {
        Spliterator<T> g = grove.spliterator();
        Spliterator<T> m = model.spliterator();
        assertEquals(names(expected), names(g.characteristics()), what);
        assertEquals(Long.MAX_VALUE, g.estimateSize(), what + ": estimated size (unknown)");
        int modelCharacteristics = m.characteristics() & ~(Spliterator.SIZED | Spliterator.SUBSIZED);
        if (same) {
            assertEquals(names(m.characteristics()), names(g.characteristics()), what + ", as CSLM's");
        } else {
            assertEquals(names(modelCharacteristics), names(g.characteristics() & modelCharacteristics),
                    what + ": at least CSLM's " + names(m.characteristics()));
        }
        List<T> elements = new ArrayList<>();
        g.forEachRemaining(elements::add);
        assertEquals(new ArrayList<>(model), elements, what + ": the elements, in order");
        if (g.hasCharacteristics(Spliterator.SORTED)) {
            Comparator<? super T> comparator = grove.spliterator().getComparator();
            for (int i = 1; i < elements.size(); i++) {
                assertTrue(comparator.compare(elements.get(i - 1), elements.get(i)) < 0, what + ": getComparator()"
                        + " orders " + elements.get(i - 1) + " before " + elements.get(i));
                assertEquals(Integer.signum(order.compare(elements.get(i - 1), elements.get(i))),
                        Integer.signum(comparator.compare(elements.get(i - 1), elements.get(i))),
                        what + ": getComparator() is the view's order");
            }
            if (m.hasCharacteristics(Spliterator.SORTED)) {
                @SuppressWarnings("unchecked")
                Comparator<? super T> cslm = m.getComparator() != null ? m.getComparator()
                        : (Comparator<? super T>) Comparator.naturalOrder();
                for (int i = 1; i < elements.size(); i++) {
                    assertEquals(Integer.signum(cslm.compare(elements.get(i - 1), elements.get(i))),
                            Integer.signum(comparator.compare(elements.get(i - 1), elements.get(i))),
                            what + ": the same order as CSLM's getComparator()");
                }
            }
        }
    }

    @Test
    void zeroCopyCollectionsAndStreamsReportAnUnknownSizeAndReusingStreamsDoNotSplit() {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).build()) {
            for (long k = 0; k < KEYS; k++) {
                map.put(k, k);
            }
            int distinct = EXPECTED_VALUES | Spliterator.DISTINCT;
            for (ZeroCopySortedMap<Long, Long> zc : List.of(map.zc(), map.zc().descendingMap(),
                    map.zc().subMap(10L, true, 40L, false))) {
                assertEquals(names(distinct), names(zc.keySet().spliterator().characteristics()), "zc keySet");
                assertEquals(names(EXPECTED_VALUES), names(zc.values().spliterator().characteristics()), "zc values");
                assertEquals(names(distinct), names(zc.entrySet().spliterator().characteristics()), "zc entrySet");
                for (Stream<?> reusing : List.of(zc.keyStream(), zc.valueStream(), zc.entryStream())) {
                    Spliterator<?> s = reusing.spliterator();
                    assertEquals(names(EXPECTED_VALUES), names(s.characteristics()), "a reusing zc stream");
                    assertNull(s.trySplit(), "a reusing zc stream splits");
                }
                long count = zc.keySet().stream().parallel().count();
                assertEquals(count, zc.keySet().parallelStream().toArray().length, "parallel zc keySet");
                assertEquals(count, zc.keyStream().parallel().count(), "parallel zc keyStream");
            }
        }
    }

    private static List<String> names(int characteristics) {
        List<String> names = new ArrayList<>();
        String[] all = {"ORDERED", "DISTINCT", "SORTED", "SIZED", "NONNULL", "IMMUTABLE", "CONCURRENT", "SUBSIZED"};
        int[] bits = {Spliterator.ORDERED, Spliterator.DISTINCT, Spliterator.SORTED, Spliterator.SIZED,
            Spliterator.NONNULL, Spliterator.IMMUTABLE, Spliterator.CONCURRENT, Spliterator.SUBSIZED};
        for (int i = 0; i < bits.length; i++) {
            if ((characteristics & bits[i]) != 0) {
                names.add(all[i]);
            }
        }
        return names;
    }
}
