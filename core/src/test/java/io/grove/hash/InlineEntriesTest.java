package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.MemoryFootprint;
import io.grove.serial.Serializer;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import io.grove.view.ReadView;
import io.grove.view.ResizableView;
import java.util.ArrayList;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Maps built with {@link GroveHashMap.Builder#inlineEntries}: an entry whose key and value fit lies in a cell of its
 * segment's array, and moves: a removal shifts the later cells of its run back, a segment's growth copies every cell
 * into a new array, a put of a larger value moves the entry out of its cell and a put of a smaller one back in, and
 * a zero-copy handle (or scan) first moves it out, to a slice of its own. Entries that do not fit lie in slices
 * throughout. Whatever moves, handles behave as on a map without cells: a handle reads its own entry while the entry
 * lives and fails with {@link ConcurrentModificationException} once it is removed or replaced; in-place updates that
 * resize a value across the cell's limit keep the contents right; removing every entry gives back all the memory the
 * entries took; every iteration returns each entry once.
 *
 * <p>Keys are longs (8 bytes); values are ASCII strings, whose length is their size in bytes, so that a value fits
 * its cell exactly when it has at most {@value #CELL_VALUE_BYTES} characters. The maps have a pool of 64 MiB, small
 * enough for 16 segments, so that a few thousand entries make them grow (as in {@link GroveHashMapGuavaSuiteTest}).
 */
class InlineEntriesTest {
    private static final int CELL_VALUE_BYTES = 32;
    /** Value sizes on both sides of the cell's limit: empty, fitting (up to exactly the limit), not fitting. */
    private static final int[] SIZES = {0, 8, 31, 32, 33, 48, 200};
    private static final Serializer<String> STRINGS = Serializers.strings();
    private static final Serializer<Long> LONGS = Serializers.longs();

    private static GroveHashMap<Long, String> newMap(long expectedSize) {
        return GroveHashMap.builder(LONGS, STRINGS).expectedSize(expectedSize).memoryLimit(64L << 20)
                .inlineEntries(Long.BYTES, CELL_VALUE_BYTES).build();
    }

    /** A value of exactly {@code size} ASCII bytes that names its key and version, as far as its size allows. */
    private static String value(long key, int version, int size) {
        String name = key + "/" + version + ":";
        StringBuilder s = new StringBuilder(size);
        s.append(name, 0, Math.min(size, name.length()));
        while (s.length() < size) {
            s.append((char) ('a' + Math.floorMod(key * 7 + version * 3L + s.length(), 26)));
        }
        return s.toString();
    }

    private static int sizeOf(long key) {
        return SIZES[(int) Math.floorMod(key, SIZES.length)];
    }

    /** Puts {@code key} with a value of version {@code version} and the size {@link #sizeOf} gives it. */
    private static void put(GroveHashMap<Long, String> map, Map<Long, String> model, long key, int version) {
        String v = value(key, version, sizeOf(key));
        assertEquals(model.put(key, v), map.put(key, v), () -> "put " + key);
    }

    private static void assertContents(Map<Long, String> model, GroveHashMap<Long, String> map, String when) {
        assertEquals(model.size(), map.size(), when + ": size");
        assertEquals(model, new HashMap<>(map), when + ": contents");
        for (Map.Entry<Long, String> e : model.entrySet()) {
            assertEquals(e.getValue(), map.get(e.getKey()), when + ": get(" + e.getKey() + ")");
        }
    }

    // ---- handles while other entries move -----------------------------------------------------------------

    /**
     * Handles on entries of every size (in cells until the handle was taken, and apart from the start), taken by
     * {@code zc().get} and by a zero-copy scan, keep reading their own key and value while every other key of the
     * map is removed (shifting the cells of their runs), then while thousands of keys are inserted (the segments
     * grow several times, copying every cell) and removed again.
     */
    @Test
    void handlesKeepReadingTheirOwnEntryWhileOtherEntriesMoveAndSegmentsGrow() {
        try (GroveHashMap<Long, String> map = newMap(16)) {
            Map<Long, String> model = new HashMap<>();
            for (long k = 0; k < 300; k++) {
                put(map, model, k, 0);
            }
            Map<Long, Handle> handles = new LinkedHashMap<>();
            for (long k = 0; k < 300; k += 10) {
                handles.put(k, map.zc().get(k));
            }
            Map<Long, Map.Entry<Handle, Handle>> scanned = new HashMap<>();
            for (Map.Entry<Handle, Handle> e : map.zc().entrySet()) {
                long k = LONGS.read(e.getKey());
                if (k % 10 == 5) {
                    scanned.put(k, e);
                }
            }
            assertEquals(30, scanned.size());
            assertHandlesRead(handles, scanned, model, "when taken");

            List<Long> others = new ArrayList<>();
            for (long k = 0; k < 300; k++) {
                if (k % 10 != 0 && k % 10 != 5) {
                    others.add(k);
                }
            }
            Collections.shuffle(others, new Random(1));
            int removed = 0;
            for (long k : others) {
                assertEquals(model.remove(k), map.remove(k));
                if (++removed % 20 == 0) {
                    assertHandlesRead(handles, scanned, model, "after " + removed + " removals of other keys");
                }
            }
            MemoryFootprint beforeGrowth = map.footprint();

            for (long k = 1_000; k < 5_000; k++) {
                put(map, model, k, 0);
                if (k % 3 == 0) {
                    assertEquals(model.remove(k - 300), map.remove(k - 300));
                }
                if (k % 250 == 0) {
                    assertHandlesRead(handles, scanned, model, "after inserting keys up to " + k);
                }
            }
            for (long k = 1_000; k < 5_000; k++) {
                assertEquals(model.remove(k), map.remove(k));
            }
            assertHandlesRead(handles, scanned, model, "after removing the inserted keys");
            assertContents(model, map, "at the end");
            MemoryFootprint after = map.footprint();
            // The same entries as before the inserts: only the segments' arrays changed, each for a larger one.
            assertTrue(after.liveBytes() > beforeGrowth.liveBytes(),
                    () -> "the segments did not grow: " + beforeGrowth + " -> " + after);
            assertEquals(beforeGrowth.liveSlices(), after.liveSlices(),
                    () -> "slices: " + beforeGrowth + " -> " + after);
        }
    }

    private static void assertHandlesRead(Map<Long, Handle> handles, Map<Long, Map.Entry<Handle, Handle>> scanned,
            Map<Long, String> model, String when) {
        handles.forEach((k, h) -> {
            assertTrue(h.isValid(), () -> when + ": handle on " + k + " invalid");
            assertEquals(model.get(k).length(), h.size(), () -> when + ": size through the handle on " + k);
            assertEquals(model.get(k), STRINGS.read(h), () -> when + ": value through the handle on " + k);
            assertEquals(model.get(k), h.read(STRINGS::read), () -> when + ": handle.read on " + k);
        });
        scanned.forEach((k, e) -> {
            assertTrue(e.getKey().isValid() && e.getValue().isValid(), () -> when + ": scanned handles on " + k);
            assertEquals(k, LONGS.read(e.getKey()), () -> when + ": key through the scanned key handle");
            assertEquals(model.get(k), STRINGS.read(e.getValue()), () -> when + ": scanned value handle on " + k);
        });
    }

    // ---- handles whose entry ends ------------------------------------------------------------------------------

    /**
     * For entries of sizes on both sides of the cell's limit, a value handle ({@code zc().get}) and a key handle
     * (from {@code zc().keySet()}) fail with {@link ConcurrentModificationException} after each way of ending or
     * replacing the entry: a removal, a put of an equal value, of a new value of the same size and of each other
     * size (into a cell, out of one), the conditional and computing replacements, a resizing in-place update, and a
     * removal followed by a put of the very same value (which may take the same cell). Handles on the neighbouring
     * entries stay valid throughout.
     */
    @Test
    void handlesFailOnceTheirEntryIsRemovedOrReplaced() {
        try (GroveHashMap<Long, String> map = newMap(16)) {
            Map<Long, String> model = new HashMap<>();
            for (long k = 0; k < 40; k++) {
                put(map, model, k, 0);
            }
            Map<Long, Handle> neighbours = new LinkedHashMap<>();
            for (long k = 0; k < 40; k += 3) {
                neighbours.put(k, map.zc().get(k));
            }
            long next = 1_000;
            for (int from : new int[] {0, 8, 32, 33, 200}) {
                for (Map.Entry<String, Function<Long, String>> ending : endings(map, from).entrySet()) {
                    long k = next++;
                    String when = "value of " + from + " bytes, then " + ending.getKey();
                    String old = value(k, 0, from);
                    map.put(k, old);
                    Handle handle = map.zc().get(k);
                    Handle key = map.zc().keySet().stream().filter(h -> LONGS.read(h) == k).findFirst()
                            .orElseThrow();
                    assertEquals(old, STRINGS.read(handle), when);
                    String now = ending.getValue().apply(k);
                    assertEnded(handle, when + ": the value handle");
                    assertEnded(key, when + ": the key handle");
                    assertEquals(now, map.get(k), when);
                    if (now != null) {
                        assertEquals(now, STRINGS.read(map.zc().get(k)), when + ": a new handle");
                        model.put(k, now);
                    }
                    assertHandlesRead(neighbours, Map.of(), model, when);
                }
            }
            assertContents(model, map, "at the end");
        }
    }

    /** Ways to end the entry of a key whose value has {@code from} bytes; each returns the key's value after. */
    private static Map<String, Function<Long, String>> endings(GroveHashMap<Long, String> map, int from) {
        int across = from <= CELL_VALUE_BYTES ? 100 : 8; // a size on the other side of the cell's limit
        Map<String, Function<Long, String>> endings = new LinkedHashMap<>();
        endings.put("remove", k -> {
            assertNotNull(map.remove(k));
            return null;
        });
        endings.put("zc().remove", k -> {
            assertTrue(map.zc().remove(k));
            return null;
        });
        endings.put("remove(k, v)", k -> {
            assertTrue(map.remove(k, map.get(k)));
            return null;
        });
        endings.put("remove, then a put of the same value", k -> {
            String v = map.remove(k);
            assertNull(map.put(k, v));
            return v;
        });
        endings.put("put of an equal value", k -> {
            String v = map.get(k);
            assertEquals(v, map.put(k, v));
            return v;
        });
        for (int to : new int[] {0, 8, 32, 33, 200}) {
            endings.put("put of a new value of " + to + " bytes", k -> {
                String v = value(k, 1, to);
                assertNotNull(map.put(k, v));
                return v;
            });
        }
        endings.put("replace(k, v) across the limit", k -> {
            String v = value(k, 2, across);
            assertNotNull(map.replace(k, v));
            return v;
        });
        endings.put("replace(k, old, v) of the same size", k -> {
            String v = value(k, 3, from);
            assertTrue(map.replace(k, map.get(k), v));
            return v;
        });
        endings.put("compute across the limit", k -> map.compute(k, (kk, old) -> value(kk, 4, across)));
        endings.put("merge of the same size", k -> map.merge(k, "x", (old, given) -> value(k, 5, from)));
        endings.put("zc().put across the limit", k -> {
            String v = value(k, 6, across);
            map.zc().put(k, v);
            return v;
        });
        endings.put("zc().computeIfPresent resizing past the limit and back", k -> {
            String v = value(k, 7, from);
            assertTrue(map.zc().computeIfPresent(k, view -> STRINGS.write(v, view.resize(100).resize(from))));
            return v;
        });
        return endings;
    }

    private static void assertEnded(Handle handle, String what) {
        assertFalse(handle.isValid(), what + " is still valid");
        assertThrows(ConcurrentModificationException.class, handle::toByteArray, what);
        assertThrows(ConcurrentModificationException.class, () -> handle.read(ReadView::size), what);
        if (handle.size() > 0) { // an empty value has no byte 0: that read fails its bounds check
            assertThrows(ConcurrentModificationException.class, () -> handle.getByte(0), what);
        }
    }

    // ---- in-place updates across the cell's limit --------------------------------------------------------------

    /**
     * Zero-copy in-place updates that grow values past the cell's limit, shrink them back into it (in one update or
     * in two), set them to exactly the limit or one byte more, rewrite them at their size, or insert them
     * ({@code putIfAbsentComputeIfPresent} on a removed key), on 2,000 keys while segments grow and removals shift
     * cells: the map holds exactly what a model says after every round, and each computer sees the value the model
     * holds. A computer that throws after resizing leaves the value as it was.
     */
    @Test
    void inPlaceUpdatesResizingAcrossTheCellLimitKeepTheContents() {
        try (GroveHashMap<Long, String> map = newMap(16)) {
            Map<Long, String> model = new HashMap<>();
            List<Long> keys = new ArrayList<>();
            for (long k = 0; k < 2_000; k++) {
                put(map, model, k, 0);
                keys.add(k);
            }
            SplittableRandom random = new SplittableRandom(7);
            Random shuffler = new Random(7);
            for (int round = 1; round <= 3; round++) {
                Collections.shuffle(keys, shuffler);
                for (long k : keys) {
                    update(map, model, k, round, random.nextInt(7));
                }
                assertContents(model, map, "after round " + round);
                for (long k : keys) { // removals shift cells; the next round inserts some of them again
                    if (random.nextInt(5) == 0) {
                        assertEquals(model.remove(k), map.remove(k));
                    }
                }
            }
            RuntimeException boom = new RuntimeException("boom");
            Map<String, Consumer<ResizableView>> throwing = new LinkedHashMap<>();
            throwing.put("grows past the cell, writes, throws", v -> {
                v.resize(100).putByte(99, (byte) 'x').putByte(0, (byte) 'y');
                throw boom;
            });
            throwing.put("shrinks to 1, throws", v -> {
                v.resize(1);
                throw boom;
            });
            throwing.put("writes in place, throws", v -> {
                if (v.size() > 0) {
                    v.putByte(0, (byte) '#');
                }
                throw boom;
            });
            throwing.put("grows past the cell and back, throws", v -> {
                int size = v.size();
                v.resize(100).resize(size == 0 ? 1 : size - 1);
                throw boom;
            });
            for (long k = 0; k < 40; k++) {
                if (!model.containsKey(k)) {
                    continue;
                }
                for (Map.Entry<String, Consumer<ResizableView>> c : throwing.entrySet()) {
                    long key = k;
                    RuntimeException thrown = assertThrows(RuntimeException.class,
                            () -> map.zc().computeIfPresent(key, c.getValue()), c.getKey());
                    assertSame(boom, thrown, c.getKey());
                    assertEquals(model.get(k), map.get(k), () -> c.getKey() + ": value of " + key);
                }
            }
            assertContents(model, map, "after the throwing computers");
        }
    }

    /** One in-place update of {@code k}, of kind {@code kind} (0..6), in the map and the model. */
    private static void update(GroveHashMap<Long, String> map, Map<Long, String> model, long k, int round,
            int kind) {
        String old = model.get(k);
        String what = "update " + kind + " of key " + k + " in round " + round;
        if (old == null || kind == 6) { // absent (removed in an earlier round), or removed now: inserted again
            if (old != null) {
                assertEquals(old, map.remove(k), what);
            }
            String fresh = value(k, round, SIZES[round % SIZES.length]);
            assertTrue(map.zc().putIfAbsentComputeIfPresent(k, fresh, v -> {
                throw new AssertionError(what + ": the computer ran on an absent key");
            }), what);
            model.put(k, fresh);
            return;
        }
        String fresh = switch (kind) {
            case 0 -> value(k, round, 100); // past the cell
            case 1, 2 -> value(k, round, kind == 1 ? 8 : 24); // past the cell and back, in one update
            case 3 -> value(k, round, CELL_VALUE_BYTES + (round % 2)); // exactly the limit, or one byte more
            case 4 -> value(k, round, old.length()); // same size, no resize
            default -> value(k, round, 60 - old.length() % 50); // putIfAbsentComputeIfPresent, present: resized
        };
        int[] calls = {0};
        Consumer<ResizableView> computer = view -> {
            calls[0]++;
            assertEquals(old, STRINGS.read(view), what + ": what the computer sees");
            ResizableView target = view;
            if (kind == 1 || kind == 2) {
                target = target.resize(150);
                target.putByte(149, (byte) '!');
                target = target.resize(fresh.length());
            } else if (fresh.length() != view.size()) {
                target = target.resize(fresh.length());
            }
            STRINGS.write(fresh, target);
        };
        if (kind == 5) {
            assertFalse(map.zc().putIfAbsentComputeIfPresent(k, "absent?", computer), what);
        } else {
            assertTrue(map.zc().computeIfPresent(k, computer), what);
        }
        assertEquals(1, calls[0], what + ": calls of the computer");
        model.put(k, fresh);
        assertEquals(fresh, map.get(k), what);
    }

    // ---- footprint ------------------------------------------------------------------------------------------

    /**
     * After entries of every size come and go (put, moved out of their cells by handles and by larger values, back
     * in by smaller ones, resized in place, then removed by {@code remove}, {@code zc().remove}, an iterator and
     * {@code clear}), the map's footprint is exactly what it was empty: on a table sized for them, the empty map's;
     * on a table that grew meanwhile, the footprint after the same keys came and went once (its arrays doubled, in
     * number of slices the same as the empty map's).
     */
    @Test
    void footprintAfterRemovingEverythingIsWhatItWasEmpty() {
        try (GroveHashMap<Long, String> map = newMap(4_096)) {
            MemoryFootprint empty = map.footprint();
            for (int pass = 1; pass <= 2; pass++) {
                churn(map, 1_000, pass);
                assertSameFootprint(empty, map.footprint(), "table sized for the entries, pass " + pass);
            }
        }
        try (GroveHashMap<Long, String> map = newMap(16)) {
            MemoryFootprint empty = map.footprint();
            churn(map, 3_000, 1);
            MemoryFootprint grown = map.footprint();
            assertEquals(empty.liveSlices(), grown.liveSlices(), () -> "empty " + empty + ", grown " + grown);
            assertTrue(grown.liveBytes() > empty.liveBytes(), () -> "did not grow: " + empty + " -> " + grown);
            for (int pass = 2; pass <= 3; pass++) {
                churn(map, 3_000, pass);
                assertSameFootprint(grown, map.footprint(), "grown table, pass " + pass);
            }
        }
    }

    private static void assertSameFootprint(MemoryFootprint expected, MemoryFootprint actual, String when) {
        assertEquals(expected.liveSlices(), actual.liveSlices(), () -> when + ": " + expected + " -> " + actual);
        assertEquals(expected.liveBytes(), actual.liveBytes(), () -> when + ": " + expected + " -> " + actual);
    }

    /** Puts {@code n} keys, moves them around in every way, and removes them all; the map ends empty. */
    private static void churn(GroveHashMap<Long, String> map, int n, int pass) {
        Map<Long, String> model = new HashMap<>();
        for (long k = 0; k < n; k++) {
            put(map, model, k, pass);
        }
        Map<Long, Handle> handles = new HashMap<>();
        for (long k = 0; k < n; k += 3) {
            handles.put(k, map.zc().get(k)); // moved out of its cell
        }
        for (long k = 1; k < n; k += 2) { // across the limit both ways, and within
            String v = value(k, pass + 10, SIZES[(int) ((k + pass) % SIZES.length)]);
            map.put(k, v);
            model.put(k, v);
        }
        for (long k = 0; k < n; k += 5) {
            String v = value(k, pass + 20, model.get(k).length() <= CELL_VALUE_BYTES ? 150 : 16);
            assertTrue(map.zc().computeIfPresent(k, view -> STRINGS.write(v, view.resize(v.length()))));
            model.put(k, v);
        }
        map.zc().entryStream().forEach(e -> assertEquals(model.get(LONGS.read(e.getKey())),
                STRINGS.read(e.getValue())));
        for (long k = 2; k < n; k += 7) { // puts back into cells after the scan moved everything out
            String v = value(k, pass + 30, 8);
            map.put(k, v);
            model.put(k, v);
        }
        assertContents(model, map, "churn pass " + pass);
        handles.forEach((k, h) -> { // valid while its entry was neither replaced nor resized
            boolean replaced = k % 2 == 1 || k % 5 == 0 || k % 7 == 2;
            assertEquals(!replaced, h.isValid(), () -> "handle on " + k + ", pass " + pass);
            if (!replaced) {
                assertEquals(model.get(k), STRINGS.read(h), () -> "handle on " + k + ", pass " + pass);
            }
        });
        for (long k = 0; k < n; k++) {
            switch ((int) (k % 4)) {
                case 0 -> assertEquals(model.remove(k), map.remove(k));
                case 1 -> assertTrue(map.zc().remove(k));
                default -> { } // below
            }
        }
        for (Iterator<Long> it = map.keySet().iterator(); it.hasNext(); ) {
            if (it.next() % 4 == 2) {
                it.remove();
            }
        }
        assertEquals((n + 1) / 4, map.size(), "keys left for clear (those of the form 4i + 3)");
        map.clear();
        assertTrue(map.isEmpty());
    }

    // ---- iteration -------------------------------------------------------------------------------------------

    /** The views and scans, each as the keys and values it returns, in its order. */
    private static Map<String, Function<GroveHashMap<Long, String>, List<Map.Entry<Long, String>>>> views() {
        Map<String, Function<GroveHashMap<Long, String>, List<Map.Entry<Long, String>>>> views =
                new LinkedHashMap<>();
        views.put("entrySet", m -> m.entrySet().stream().map(e -> Map.entry(e.getKey(), e.getValue())).toList());
        views.put("keySet", m -> m.keySet().stream().map(k -> Map.entry(k, m.get(k))).toList());
        views.put("forEach", m -> {
            List<Map.Entry<Long, String>> seen = new ArrayList<>();
            m.forEach((k, v) -> seen.add(Map.entry(k, v)));
            return seen;
        });
        views.put("zc().entrySet", m -> m.zc().entrySet().stream()
                .map(e -> Map.entry(LONGS.read(e.getKey()), STRINGS.read(e.getValue()))).toList());
        views.put("zc().keySet", m -> m.zc().keySet().stream().map(h -> LONGS.read(h))
                .map(k -> Map.entry(k, m.get(k))).toList());
        views.put("zc().entryStream", m -> m.zc().entryStream()
                .map(e -> Map.entry(LONGS.read(e.getKey()), STRINGS.read(e.getValue()))).toList());
        views.put("zc().keyStream", m -> m.zc().keyStream().map(h -> LONGS.read(h))
                .map(k -> Map.entry(k, m.get(k))).toList());
        return views;
    }

    /**
     * Every view and scan returns each entry exactly once with its value, on a map whose entries lie in cells, in
     * slices because they do not fit, and in slices because a handle moved them out. The entries are put again before
     * each view, since a zero-copy scan moves the entries it returns out of their cells.
     */
    @Test
    void everyViewReturnsEachEntryOnce() {
        try (GroveHashMap<Long, String> map = newMap(16)) {
            Map<Long, String> model = new HashMap<>();
            int version = 0;
            for (var view : views().entrySet()) {
                version++;
                for (long k = 0; k < 600; k++) {
                    put(map, model, k, version);
                }
                for (long k = 0; k < 600; k += 7) {
                    assertNotNull(map.zc().get(k));
                }
                List<Map.Entry<Long, String>> seen = view.getValue().apply(map);
                Map<Long, String> asMap = new HashMap<>();
                for (Map.Entry<Long, String> e : seen) {
                    assertNull(asMap.put(e.getKey(), e.getValue()), () -> view.getKey() + " returned twice: " + e);
                }
                assertEquals(model, asMap, view.getKey());
                Map<String, Integer> values = new HashMap<>();
                map.values().forEach(v -> values.merge(v, 1, Integer::sum));
                map.zc().valueStream().forEach(h -> values.merge(STRINGS.read(h), -1, Integer::sum));
                values.values().removeIf(count -> count == 0);
                assertEquals(Map.of(), values, "values() and zc().valueStream() differ");
                assertEquals(model.size(), map.values().size());
            }
        }
    }

    /**
     * Removing entries through the iterator, which shifts the later cells of a run back into the place just
     * visited, neither skips nor repeats an entry: each view's iterator returns every entry once and removes exactly
     * those it was asked to.
     */
    @Test
    void iteratorRemovalsNeitherSkipNorRepeatEntries() {
        try (GroveHashMap<Long, String> map = newMap(16)) {
            for (String name : List.of("entrySet", "keySet", "zc().keySet")) {
                Map<Long, String> model = new HashMap<>();
                for (long k = 0; k < 1_500; k++) {
                    put(map, model, k, name.length());
                }
                Iterator<?> it = switch (name) {
                    case "entrySet" -> map.entrySet().iterator();
                    case "keySet" -> map.keySet().iterator();
                    default -> map.zc().keySet().iterator();
                };
                Set<Long> seen = new HashSet<>();
                int i = 0;
                while (it.hasNext()) {
                    Object element = it.next();
                    long k = element instanceof Map.Entry<?, ?> e ? (Long) e.getKey()
                            : element instanceof Handle h ? LONGS.read(h) : (Long) element;
                    assertTrue(seen.add(k), () -> name + " returned " + k + " twice");
                    if (i++ % 3 != 0) { // two in three: most removals shift a run the iterator is in
                        it.remove();
                        model.remove(k);
                    }
                }
                assertEquals(1_500, seen.size(), name + ": entries returned");
                assertContents(model, map, name + " after its removals");
                map.clear();
            }
        }
    }

    /**
     * Iterations during which, after each entry returned, one other key is removed (shifting cells, possibly back
     * into places already visited) and, for the first 600, eight new keys inserted (the segments grow several times
     * meanwhile): each
     * entry present throughout is returned exactly once with its value, no key twice, and no key never inserted.
     */
    @Test
    void iterationsReturnEachStableEntryOnceWhileEntriesShiftAndSegmentsGrow() {
        Map<String, BiConsumer<GroveHashMap<Long, String>, BiConsumer<Long, String>>> walks = new LinkedHashMap<>();
        walks.put("entrySet", (m, each) -> {
            for (Map.Entry<Long, String> e : m.entrySet()) {
                each.accept(e.getKey(), e.getValue());
            }
        });
        walks.put("keySet", (m, each) -> {
            for (Long k : m.keySet()) {
                each.accept(k, null);
            }
        });
        walks.put("zc().entryStream", (m, each) -> {
            try (Stream<Map.Entry<Handle, Handle>> s = m.zc().entryStream()) {
                s.forEach(e -> each.accept(LONGS.read(e.getKey()), STRINGS.read(e.getValue())));
            }
        });
        walks.put("zc().keySet", (m, each) -> {
            for (Handle h : m.zc().keySet()) {
                each.accept(LONGS.read(h), null);
            }
        });
        for (var walk : walks.entrySet()) {
            try (GroveHashMap<Long, String> map = newMap(16)) {
                String name = walk.getKey();
                Map<Long, String> model = new HashMap<>();
                for (long k = 0; k < 600; k++) {
                    put(map, model, k, 0);
                }
                List<Long> doomed = new ArrayList<>();
                for (long k = 0; k < 600; k++) {
                    if (k % 3 != 0) {
                        doomed.add(k);
                    }
                }
                Collections.shuffle(doomed, new Random(name.hashCode()));
                Set<Long> seen = new HashSet<>();
                long[] next = {10_000};
                int[] returned = {0};
                walk.getValue().accept(map, (k, v) -> {
                    assertTrue(seen.add(k), () -> name + " returned " + k + " twice");
                    assertTrue((k >= 0 && k < 600) || (k >= 10_000 && k < next[0]),
                            () -> name + " returned " + k + ", never inserted");
                    if (v != null) { // no value is ever replaced
                        assertEquals(value(k, 0, sizeOf(k)), v, () -> name + ": value of " + k);
                    }
                    if (returned[0] < doomed.size()) {
                        long gone = doomed.get(returned[0]);
                        assertEquals(model.remove(gone), map.remove(gone));
                    }
                    if (returned[0]++ < 600) { // (the walk returns some of the new keys too)
                        for (int j = 0; j < 8; j++) {
                            put(map, model, next[0]++, 0);
                        }
                    }
                });
                for (long k = 0; k < 600; k += 3) {
                    assertTrue(seen.contains(k), name + " skipped " + k + ", present throughout");
                }
                assertContents(model, map, name + " after the walk");
                assertTrue(returned[0] >= 600 / 3, () -> name + " returned only " + returned[0] + " entries");
                // The segments grew: with the new keys removed, and the entries left put again (into their cells,
                // or apart), the map takes more memory than a new one holding the same entries.
                for (long k = 10_000; k < next[0]; k++) {
                    assertEquals(model.remove(k), map.remove(k));
                }
                try (GroveHashMap<Long, String> fresh = newMap(16)) {
                    for (Map.Entry<Long, String> e : model.entrySet()) {
                        map.put(e.getKey(), e.getValue());
                        fresh.put(e.getKey(), e.getValue());
                    }
                    MemoryFootprint grown = map.footprint();
                    MemoryFootprint same = fresh.footprint();
                    assertEquals(same.liveSlices(), grown.liveSlices(), () -> name + ": " + same + " vs " + grown);
                    assertTrue(grown.liveBytes() > same.liveBytes(),
                            () -> name + ": the segments did not grow: " + same + " vs " + grown);
                }
            }
        }
    }
}
