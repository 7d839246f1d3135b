package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Spliterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Streams over the hash map's views while other threads put and remove: the views are weakly consistent, so their
 * spliterators must not promise a size (with SIZED, {@code toArray} threw {@code IllegalStateException: Accept
 * exceeded fixed size} in about half the calls during churn). They report what {@link ConcurrentHashMap}'s views
 * report.
 */
class ViewStreamsTest {
    private static final int KEYS = 2_000;
    private static final int STREAMS_PER_VIEW = 150;

    private static Map<String, Function<Map<Long, Long>, Collection<?>>> views() {
        Map<String, Function<Map<Long, Long>, Collection<?>>> views = new LinkedHashMap<>();
        views.put("keySet", Map::keySet);
        views.put("values", Map::values);
        views.put("entrySet", Map::entrySet);
        return views;
    }

    @Test
    void characteristicsAreThoseOfConcurrentHashMap() {
        ConcurrentHashMap<Long, Long> reference = new ConcurrentHashMap<>(Map.of(1L, 1L));
        try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs()).build()) {
            map.put(1L, 1L);
            views().forEach((name, view) -> assertEquals(
                    characteristics(view.apply(reference).spliterator()),
                    characteristics(view.apply(map).spliterator()), name));
            int set = Spliterator.CONCURRENT | Spliterator.DISTINCT | Spliterator.NONNULL;
            assertEquals(set, map.zc().keySet().spliterator().characteristics(), "zc().keySet()");
            assertEquals(set, map.zc().entrySet().spliterator().characteristics(), "zc().entrySet()");
            assertEquals(Spliterator.CONCURRENT | Spliterator.NONNULL,
                    map.zc().values().spliterator().characteristics(), "zc().values()");
            // one handle pointed at key after key: the elements are one object, so not DISTINCT, and never split
            assertEquals(Spliterator.CONCURRENT | Spliterator.NONNULL,
                    map.zc().keyStream().spliterator().characteristics(), "zc().keyStream()");
            assertEquals(null, map.zc().keyStream().spliterator().trySplit(), "zc().keyStream() split");
        }
    }

    /** The key a handle reads, or -1 if its entry was removed after the scan reached it (an odd, churned key). */
    private static long keyOrMinusOne(io.grove.view.Handle key) {
        try {
            return Serializers.longs().read(key);
        } catch (java.util.ConcurrentModificationException removedSince) {
            return -1;
        }
    }

    /** The characteristics that describe the elements, without SIZED/SUBSIZED, which CHM's views drop too. */
    private static String characteristics(Spliterator<?> s) {
        StringBuilder b = new StringBuilder();
        String[] names = {"DISTINCT", "SORTED", "ORDERED", "SIZED", "NONNULL", "IMMUTABLE", "CONCURRENT", "SUBSIZED"};
        int[] bits = {Spliterator.DISTINCT, Spliterator.SORTED, Spliterator.ORDERED, Spliterator.SIZED,
                Spliterator.NONNULL, Spliterator.IMMUTABLE, Spliterator.CONCURRENT, Spliterator.SUBSIZED};
        for (int i = 0; i < bits.length; i++) {
            if (s.hasCharacteristics(bits[i])) {
                b.append(names[i]).append(' ');
            }
        }
        return b.toString().trim();
    }

    @Test
    void streamsOverEveryViewWorkDuringChurn() throws Exception {
        try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs()).build()) {
            for (long k = 0; k < KEYS; k += 2) {
                map.put(k, k); // even keys stay for the whole test
            }
            AtomicBoolean churning = new AtomicBoolean(true);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread churn = Thread.ofPlatform().start(() -> {
                try {
                    for (long i = 0; churning.get(); i++) {
                        long k = (i * 2 + 1) % KEYS; // odd keys come and go
                        map.put(k, k);
                        map.remove(k);
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            });
            try {
                for (var view : views().entrySet()) {
                    for (int i = 0; i < STREAMS_PER_VIEW; i++) {
                        Collection<?> c = view.getValue().apply(map);
                        Object[] array = c.stream().toArray();
                        long parallel = c.parallelStream().count();
                        assertTrue(array.length >= KEYS / 2 && array.length <= KEYS,
                                view.getKey() + ": " + array.length);
                        assertTrue(parallel >= KEYS / 2 && parallel <= KEYS, view.getKey() + " parallel: " + parallel);
                    }
                }
                for (int i = 0; i < STREAMS_PER_VIEW; i++) {
                    // a parallel stream over the reused handle still reads each key as the scan reaches it
                    long evenKeys = map.zc().keyStream().parallel().mapToLong(ViewStreamsTest::keyOrMinusOne)
                            .filter(k -> k >= 0 && k % 2 == 0).distinct().count();
                    assertEquals(KEYS / 2, evenKeys, "even keys seen by a parallel zc().keyStream()");
                    assertTrue(map.zc().keySet().stream().toArray().length >= KEYS / 2);
                    assertTrue(map.zc().values().parallelStream().count() >= KEYS / 2);
                    assertTrue(map.zc().entrySet().stream().toList().size() >= KEYS / 2);
                    assertTrue(map.zc().keyStream().parallel().count() >= KEYS / 2);
                }
            } finally {
                churning.set(false);
                churn.join();
            }
            assertEquals(null, failure.get());
        }
    }
}
