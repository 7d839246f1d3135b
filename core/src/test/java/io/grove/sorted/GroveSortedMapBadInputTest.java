package io.grove.sorted;

import static io.grove.testing.BadInput.assertAThrowingComputerLeavesTheValue;
import static io.grove.testing.BadInput.assertAnInPlaceUpdateKeepsTheHandle;
import static io.grove.testing.BadInput.assertEachEndsTheHandle;
import static io.grove.testing.BadInput.assertIteratorMisuseIsRejected;
import static io.grove.testing.BadInput.assertLeakedViewsThrowIllegalState;
import static io.grove.testing.BadInput.assertMessage;
import static io.grove.testing.BadInput.assertNamesTheSerializer;
import static io.grove.testing.BadInput.assertTheLimitIsNamed;
import static io.grove.testing.BadInput.assertThrowingSerializerChangesNothing;
import static io.grove.testing.BadInput.badKeyCases;
import static io.grove.testing.BadInput.badValueCases;
import static io.grove.testing.BadInput.entryEndings;
import static io.grove.testing.BadInput.expectEachIllegalStateAfterClose;
import static io.grove.testing.BadInput.expectEachToPropagate;
import static io.grove.testing.BadInput.fill;
import static io.grove.testing.BadInput.nullCases;
import static io.grove.testing.BadInput.throwingFunctionCases;
import static io.grove.testing.BadInput.tooLargeCases;
import static io.grove.testing.BadInput.usesAfterClose;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.grove.GroveOutOfMemoryException;
import io.grove.GroveSortedMap;
import io.grove.MemoryPool;
import io.grove.SerializerException;
import io.grove.ZeroCopySortedMap;
import io.grove.serial.Serializer;
import io.grove.serial.Serializers;
import io.grove.testing.BadInput;
import io.grove.testing.BadInput.LyingSerializer;
import io.grove.view.Handle;
import io.grove.view.WriteView;
import java.time.Duration;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Bad input to {@link GroveSortedMap} (CONTRIBUTING.md, "Bad input"): each gets a clear exception and changes nothing,
 * and the map stays usable afterwards. "Changes nothing" is checked on the contents (in order) and on the number
 * of live slices in the pool: a failed insertion of an absent key may leave at most that key's slice behind until
 * its chunk is compacted (as a removed entry's key), and the maps' shared pool must hold no slice once they are
 * closed, so that a slice allocated by a failed operation and lost shows up.
 * Also: range violations of views, the comparator (default byte order, and a user's comparator against a
 * {@link ConcurrentSkipListMap} with the same comparator), and misuse of iterators, handles and scoped views.
 */
class GroveSortedMapBadInputTest {
    private static final Duration TIME_LIMIT = Duration.ofSeconds(30);

    private final List<AutoCloseable> toClose = new ArrayList<>();
    /** The pool of {@link #filledMap()}: after its maps are closed, it must hold no slice (nothing leaked). */
    private MemoryPool sharedPool;

    @AfterEach
    void closeAll() throws Exception {
        Collections.reverse(toClose); // maps before the pools they draw on
        for (AutoCloseable c : toClose) {
            if (c == sharedPool) {
                long live = sharedPool.footprint().liveSlices();
                assertEquals(0, live, "slices left in the shared pool after its maps were closed (a leak)");
            }
            c.close();
        }
    }

    private <T extends AutoCloseable> T closeLater(T closeable) {
        toClose.add(closeable);
        return closeable;
    }

    /**
     * A map of 20 entries "k0".."k19" → "v0".."v19", plus "a" → "1", in chunks of 4 (several chunks), on a pool
     * checked for leaks after the test.
     */
    private GroveSortedMap<String, String> filledMap() {
        if (sharedPool == null) {
            sharedPool = closeLater(MemoryPool.builder().blockSize(1 << 16).build());
        }
        return fill(closeLater(GroveSortedMap.builder(Serializers.strings(), Serializers.strings()).chunkSize(4)
                .pool(sharedPool).build()));
    }

    /** What "unchanged" compares: the contents in order and the pool's live slices. */
    private record State(List<Map.Entry<String, String>> contents, long liveSlices) {}

    private static List<Map.Entry<String, String>> contents(Map<String, String> map) {
        List<Map.Entry<String, String>> out = new ArrayList<>();
        for (Map.Entry<String, String> e : map.entrySet()) {
            out.add(new SimpleImmutableEntry<>(e.getKey(), e.getValue()));
        }
        return out;
    }

    private static State state(GroveSortedMap<String, String> map) {
        return new State(contents(map), map.footprint().liveSlices());
    }

    private static void assertUnchanged(State before, GroveSortedMap<String, String> map, String what) {
        List<Map.Entry<String, String>> now = contents(map);
        if (!before.contents().equals(now)) {
            fail(what + ": contents changed from " + abbreviate(before.contents()) + " to " + abbreviate(now));
        }
        assertEquals(before.contents().size(), map.size(), what + ": size changed");
        // A failed insertion of an absent key may leave that key's slice in its chunk, marked removed, until the
        // chunk is compacted, like the key of a removed entry (the map frees removed keys at compaction); one
        // slice, no more. That it is not lost is checked when the map's pool is closed (0 live slices).
        long live = map.footprint().liveSlices();
        assertTrue(live == before.liveSlices() || live == before.liveSlices() + 1,
                () -> what + ": live slices changed from " + before.liveSlices() + " to " + live + " (a leak?)");
    }

    /** The entries, each key and value cut to 40 characters: some tests store values of 64 KiB. */
    private static String abbreviate(List<Map.Entry<String, String>> entries) {
        StringBuilder s = new StringBuilder("[");
        for (Map.Entry<String, String> e : entries) {
            s.append(s.length() > 1 ? ", " : "").append(cut(e.getKey())).append('=').append(cut(e.getValue()));
        }
        return s.append(']').toString();
    }

    private static String cut(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...(" + s.length() + " chars)";
    }

    /** Runs each case, expecting {@code type}, with the map unchanged after each; reports every case that failed. */
    private static void expectEach(Class<? extends Throwable> type, GroveSortedMap<String, String> map,
            Map<String, Executable> cases) {
        BadInput.expectEach(type, map, cases, () -> snapshot(map));
    }

    /** A check that {@code map} is as it is now. */
    private static Consumer<String> snapshot(GroveSortedMap<String, String> map) {
        State before = state(map);
        return what -> assertUnchanged(before, map, what);
    }

    // ---- null ------------------------------------------------------------------------------------------------------

    @Test
    void nullKeysValuesBoundsAndFunctionsAreRejectedAndChangeNothing() {
        GroveSortedMap<String, String> map = filledMap();
        ConcurrentNavigableMap<String, String> sub = map.subMap("a", true, "k5", true);
        Map<String, Executable> cases = nullCases(map, map.zc());
        cases.put("floorKey(null)", () -> map.floorKey(null));
        cases.put("ceilingKey(null)", () -> map.ceilingKey(null));
        cases.put("higherKey(null)", () -> map.higherKey(null));
        cases.put("lowerKey(null)", () -> map.lowerKey(null));
        cases.put("floorEntry(null)", () -> map.floorEntry(null));
        cases.put("ceilingEntry(null)", () -> map.ceilingEntry(null));
        cases.put("higherEntry(null)", () -> map.higherEntry(null));
        cases.put("lowerEntry(null)", () -> map.lowerEntry(null));
        cases.put("headMap(null)", () -> map.headMap(null));
        cases.put("headMap(null, true)", () -> map.headMap(null, true));
        cases.put("tailMap(null)", () -> map.tailMap(null));
        cases.put("tailMap(null, true)", () -> map.tailMap(null, true));
        cases.put("subMap(null, k)", () -> map.subMap(null, "k"));
        cases.put("subMap(k, null)", () -> map.subMap("a", null));
        cases.put("subMap(null, true, k, true)", () -> map.subMap(null, true, "k", true));
        cases.put("subMap(k, true, null, true)", () -> map.subMap("a", true, null, true));
        cases.put("keySet().floor(null)", () -> map.keySet().floor(null));
        cases.put("keySet().headSet(null)", () -> map.keySet().headSet(null));
        cases.put("values().contains(null)", () -> map.values().contains(null));
        cases.put("subMap.put(in range, null)", () -> sub.put("b", null));
        cases.put("subMap.put(null, v)", () -> sub.put(null, "v"));
        cases.put("subMap.get(null)", () -> sub.get(null));
        cases.put("subMap.remove(null)", () -> sub.remove(null));
        cases.put("subMap.headMap(null)", () -> sub.headMap(null));
        cases.put("descendingMap().floorKey(null)", () -> map.descendingMap().floorKey(null));
        cases.put("zc().subMap(null, true, k, true)", () -> map.zc().subMap(null, true, "k", true));
        cases.put("zc().subMap(k, true, null, true)", () -> map.zc().subMap("a", true, null, true));
        cases.put("zc().headMap(null, true)", () -> map.zc().headMap(null, true));
        cases.put("zc().tailMap(null, true)", () -> map.zc().tailMap(null, true));
        expectEach(NullPointerException.class, map, cases);
    }

    @Test
    void nullQueriesAnswerAsConcurrentSkipListMapDoes() {
        // Where the contract lets a null query answer quietly (or not), the model decides.
        GroveSortedMap<String, String> map = filledMap();
        ConcurrentSkipListMap<String, String> model = fill(new ConcurrentSkipListMap<>());
        State before = state(map);
        Map<String, Function<Map<String, String>, Object>> queries = new LinkedHashMap<>();
        queries.put("remove(present, null)", m -> m.remove("a", null));
        queries.put("getOrDefault(absent, null)", m -> m.getOrDefault("absent", null));
        queries.put("entrySet().contains(a=null)", m -> m.entrySet().contains(new SimpleImmutableEntry<>("a", null)));
        queries.put("entrySet().remove(a=null)", m -> m.entrySet().remove(new SimpleImmutableEntry<>("a", null)));
        queries.put("entrySet().contains(null=1)", m -> m.entrySet().contains(new SimpleImmutableEntry<>(null, "1")));
        queries.put("equals(null)", m -> m.equals(null));
        queries.put("keySet().equals(null)", m -> m.keySet().equals(null));
        List<String> failures = new ArrayList<>();
        for (Map.Entry<String, Function<Map<String, String>, Object>> q : queries.entrySet()) {
            Object expected;
            try {
                expected = q.getValue().apply(model);
            } catch (RuntimeException e) {
                expected = e.getClass();
            }
            Object actual;
            try {
                actual = q.getValue().apply(map);
            } catch (RuntimeException e) {
                actual = e.getClass();
            }
            if (expected instanceof Class<?> type && actual instanceof Class<?> thrown
                    && type.isAssignableFrom(thrown)) {
                continue;
            }
            if (q.getKey().equals("entrySet().contains(null=1)") && Boolean.FALSE.equals(actual)) {
                // Set.contains may throw NullPointerException or answer false for a query no set contains;
                // ConcurrentSkipListMap throws, ConcurrentHashMap and GroveHashMap answer false. Both are right.
                continue;
            }
            if (!java.util.Objects.equals(expected, actual)) {
                failures.add(q.getKey() + ": " + actual + ", ConcurrentSkipListMap: " + expected);
            }
        }
        assertUnchanged(before, map, "null queries");
        if (!failures.isEmpty()) {
            fail(String.join("\n", failures));
        }
    }

    // ---- serializers that break their contract -----------------------------------------------------------------

    @Test
    void keySerializerWritingPastItsSizeIsNamedAndChangesNothing() {
        GroveSortedMap<String, String> map = fill(closeLater(
                GroveSortedMap.builder(new LyingSerializer(), Serializers.strings()).chunkSize(4).build()));
        for (String bad : List.of("lie-key", "neg-key")) {
            Map<String, Executable> cases = badKeyCases(map, map.zc(), bad);
            cases.put("floorKey", () -> map.floorKey(bad));
            cases.put("ceilingEntry", () -> map.ceilingEntry(bad));
            expectEach(SerializerException.class, map, cases);
            assertNamesTheSerializer(() -> map.put(bad, "v"));
        }
        // A write that fails in its own way: that exception propagates, nothing is inserted.
        assertThrowingSerializerChangesNothing(() -> map.put("boom-key", "v"),
                () -> snapshot(map), "put with a throwing key serializer");
        map.put("honest", "fine");
        assertEquals("fine", map.get("honest"));
        assertEquals("honest", map.higherKey("a"));
    }

    @Test
    void valueSerializerWritingPastItsSizeIsNamedAndChangesNothing() {
        GroveSortedMap<String, String> map = fill(closeLater(
                GroveSortedMap.builder(Serializers.strings(), new LyingSerializer()).chunkSize(4).build()));
        for (String bad : List.of("lie-value", "neg-value")) {
            Map<String, Executable> cases = badValueCases(map, map.zc(), bad);
            cases.put("subMap.put(in range)", () -> map.subMap("a", true, "z", true).put("new", bad));
            cases.put("zc().putIfAbsentComputeIfPresent(absent)",
                    () -> map.zc().putIfAbsentComputeIfPresent("new", bad, v -> { }));
            expectEach(SerializerException.class, map, cases);
            assertNamesTheSerializer(() -> map.put("a", bad));
        }
        assertThrowingSerializerChangesNothing(() -> map.put("a", "boom-value"),
                () -> snapshot(map), "put with a throwing value serializer");
        assertEquals("1", map.get("a"));
    }

    // ---- too large ---------------------------------------------------------------------------------------------

    @Test
    void keyOrValueLargerThanTheLargestSliceIsRejectedWithTheLimit() {
        MemoryPool pool = closeLater(MemoryPool.builder().blockSize(1 << 16).build());
        GroveSortedMap<String, String> map = fill(closeLater(
                GroveSortedMap.builder(Serializers.strings(), Serializers.strings()).chunkSize(4).pool(pool).build()));
        int max = pool.maxSliceSize();
        String big = "x".repeat(max + 1);
        Map<String, Executable> cases = tooLargeCases(map, map.zc(), big, max);
        cases.put("zc().computeIfPresent resizing to a negative size", () -> map.zc().computeIfPresent("a",
                v -> v.resize(-1)));
        cases.put("computeIfAbsent(key too large)", () -> map.computeIfAbsent(big, k -> "v"));
        expectEach(IllegalArgumentException.class, map, cases);
        assertTheLimitIsNamed(map, big, max);

        // The largest value is the largest slice less the 8-byte value header (GroveSortedMap's javadoc), and the
        // message says so; a key may take the whole slice. A key too large to store is absent for the queries
        // that look it up; the ones that order keys around it refuse it, naming the limit (GroveSortedMap's
        // javadoc).
        int largestValue = max - 8;
        IllegalArgumentException v = assertThrows(IllegalArgumentException.class,
                () -> map.put("edge", "y".repeat(largestValue + 1)));
        assertTrue(v.getMessage().contains(String.valueOf(largestValue)), () -> "the limit is not in: " + v);
        String largest = "y".repeat(largestValue);
        assertNull(map.put("edge", largest));
        assertEquals(largest, map.get("edge"));
        assertEquals(largestValue, map.zc().get("edge").size());
        assertEquals(largest, map.remove("edge"));
        String largestKey = "z".repeat(max);
        assertNull(map.put(largestKey, "v"));
        assertEquals(largestKey, map.lastKey());
        assertEquals("v", map.remove(largestKey));
        State before = state(map);
        assertNull(map.get(big));
        assertFalse(map.containsKey(big));
        assertNull(map.remove(big));
        for (Executable ordering : List.<Executable>of(() -> map.floorKey(big), () -> map.ceilingKey(big),
                () -> map.tailMap(big))) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, ordering);
            assertTrue(e.getMessage().contains(String.valueOf(max)), () -> "the limit is not in: " + e);
        }
        assertUnchanged(before, map, "queries with a key too large to store");
        assertEquals("1", map.get("a"));
    }

    // ---- memory limit ------------------------------------------------------------------------------------------

    @Test
    void memoryLimitOfTheMapsOwnPoolLeavesItConsistentAndUsable() {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            GroveSortedMap<Long, String> map = closeLater(GroveSortedMap.builder(Serializers.longs(),
                    Serializers.strings()).chunkSize(16).memoryLimit(MemoryPool.Builder.DEFAULT_BLOCK_SIZE).build());
            exhaustThenRecover(map, MemoryPool.Builder.DEFAULT_BLOCK_SIZE);
        });
    }

    @Test
    void memoryLimitOfASharedPoolLeavesItsMapsConsistentAndUsable() {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            MemoryPool pool = closeLater(MemoryPool.builder().blockSize(1 << 16).memoryLimit(1 << 19).build());
            GroveSortedMap<Long, String> first = closeLater(GroveSortedMap.builder(Serializers.longs(),
                    Serializers.strings()).chunkSize(4).pool(pool).build());
            GroveSortedMap<Long, String> second = closeLater(GroveSortedMap.builder(Serializers.longs(),
                    Serializers.strings()).chunkSize(4).pool(pool).build());
            exhaustThenRecover(first, 1 << 19);
            // The first map holds the whole pool: the second cannot insert much, and is consistent after trying.
            TreeMap<Long, String> model = new TreeMap<>();
            try {
                for (long k = 0; k < 1_000; k++) {
                    second.put(k, "v".repeat(2000));
                    model.put(k, "v".repeat(2000));
                }
                fail("a 512 KiB pool held a thousand 2 KB values");
            } catch (GroveOutOfMemoryException expected) {
                // fine
            }
            assertEquals(model, new TreeMap<>(second));
            assertEquals(model.size(), second.size());
            // Freeing the first map's entries makes room for the second.
            first.clear();
            second.put(5_000_000L, "v".repeat(2000));
            assertEquals("v".repeat(2000), second.get(5_000_000L));
            assertEquals(5_000_000L, second.lastKey());
        });
    }

    /**
     * Fills {@code map} until the memory limit, checks it, frees half, fills again, clears, refills. Twice as many
     * 1 KB values as {@code limit} bytes hold mean the limit was not enforced.
     */
    private static void exhaustThenRecover(GroveSortedMap<Long, String> map, long limit) {
        long most = limit / 1000 * 2;
        TreeMap<Long, String> model = new TreeMap<>();
        String value = "v".repeat(1000);
        GroveOutOfMemoryException oom = null;
        long k = 0;
        for (; k < most; k++) {
            try {
                // Keys in a scrambled order, so that inserts land in many chunks.
                map.put(scramble(k), value + k);
            } catch (GroveOutOfMemoryException e) {
                oom = e;
                break;
            }
            model.put(scramble(k), value + k);
        }
        assertNotNull(oom, "never reached the memory limit of " + limit + " bytes with " + k + " 1 KB values");
        assertTrue(model.size() > 50, "the limit was reached after only " + model.size() + " entries");
        long failedKey = scramble(k);
        // Consistent: exactly the successful inserts are there, in order; the failed one is not.
        assertFalse(map.containsKey(failedKey));
        assertEquals(List.copyOf(model.keySet()), List.copyOf(map.keySet()));
        assertEquals(model, new TreeMap<>(map));
        assertEquals(model.size(), map.size());
        // Further inserts keep failing cleanly, and so does growing a value in place.
        long liveSlices = map.footprint().liveSlices();
        assertThrows(GroveOutOfMemoryException.class, () -> map.put(failedKey, value));
        long someKey = model.firstKey();
        assertThrows(GroveOutOfMemoryException.class, () -> map.zc().computeIfPresent(someKey,
                v -> v.resize(v.size() + 60_000)));
        assertEquals(model.get(someKey), map.get(someKey), "a failed resize changed the value");
        assertEquals(model, new TreeMap<>(map));
        assertEquals(liveSlices, map.footprint().liveSlices(), "failed operations leaked slices");
        // Removing entries makes room again.
        List<Long> keys = List.copyOf(model.keySet());
        for (int i = 0; i < keys.size(); i += 2) {
            assertEquals(model.remove(keys.get(i)), map.remove(keys.get(i)));
        }
        for (long n = -10; n < 0; n++) {
            map.put(n, value + n);
            model.put(n, value + n);
        }
        assertEquals(model, new TreeMap<>(map));
        assertEquals(-10L, map.firstKey());
        // After clear, the same amount fits again (nothing leaked on the way).
        int before = keys.size();
        map.clear();
        int again = 0;
        try {
            for (long n = 0; n < most; n++) {
                map.put(scramble(n), value + n);
                again++;
            }
        } catch (GroveOutOfMemoryException expected) {
            // fine
        }
        assertTrue(again >= before * 9 / 10, "after clear only " + again + " of " + before + " fit again");
    }

    private static long scramble(long k) {
        return (k * 0x9E3779B97F4A7C15L) >>> 20;
    }

    // ---- after close ---------------------------------------------------------------------------------------

    @Test
    void everyUseAfterCloseThrowsIllegalState() throws Exception {
        GroveSortedMap<String, String> map = fill(GroveSortedMap.builder(Serializers.strings(),
                Serializers.strings()).chunkSize(4).build());
        var keys = map.keySet();
        var descending = map.descendingMap();
        var sub = map.subMap("a", true, "k5", true);
        var head = map.headMap("k5");
        var descendingKeys = map.descendingKeySet();
        var zc = map.zc();
        var zcSub = map.zc().subMap("a", true, "k5", true);
        var zcDescending = map.zc().descendingMap();
        Iterator<Map.Entry<String, String>> subIterator = sub.entrySet().iterator();
        Map<String, Executable> cases = usesAfterClose(map, zc, map);
        cases.put("firstKey", map::firstKey);
        cases.put("lastKey", map::lastKey);
        cases.put("firstEntry", map::firstEntry);
        cases.put("lastEntry", map::lastEntry);
        cases.put("pollFirstEntry", map::pollFirstEntry);
        cases.put("pollLastEntry", map::pollLastEntry);
        cases.put("floorKey", () -> map.floorKey("b"));
        cases.put("ceilingEntry", () -> map.ceilingEntry("b"));
        cases.put("higherKey", () -> map.higherKey("b"));
        cases.put("lowerEntry", () -> map.lowerEntry("b"));
        cases.put("keySet().first", keys::first);
        cases.put("keySet().pollFirst", keys::pollFirst);
        cases.put("descendingMap().get", () -> descending.get("a"));
        cases.put("descendingMap().firstKey", descending::firstKey);
        cases.put("descendingMap().put", () -> descending.put("a", "2"));
        cases.put("descendingMap().entrySet().iterator", () -> descending.entrySet().iterator());
        cases.put("descendingKeySet().iterator", descendingKeys::iterator);
        cases.put("subMap.get", () -> sub.get("a"));
        cases.put("subMap.put", () -> sub.put("b", "2"));
        cases.put("subMap.remove", () -> sub.remove("a"));
        cases.put("subMap.size", sub::size);
        cases.put("subMap.firstKey", sub::firstKey);
        cases.put("subMap.pollLastEntry", sub::pollLastEntry);
        cases.put("subMap.keySet().iterator", () -> sub.keySet().iterator());
        cases.put("headMap.lastEntry", head::lastEntry);
        cases.put("headMap.clear", head::clear);
        cases.put("sub map iterator made before close: hasNext", subIterator::hasNext);
        cases.put("zc made before close: keySet().iterator", () -> zc.keySet().iterator());
        cases.put("zc made before close: values().iterator", () -> zc.values().iterator());
        cases.put("zc made before close: entrySet().iterator", () -> zc.entrySet().iterator());
        cases.put("zc made before close: keyStream().count", () -> zc.keyStream().count());
        cases.put("zc made before close: valueStream().count", () -> zc.valueStream().count());
        cases.put("zc made before close: entryStream().count", () -> zc.entryStream().count());
        cases.put("zc sub map made before close: get", () -> zcSub.get("a"));
        cases.put("zc sub map made before close: keyStream().count", () -> zcSub.keyStream().count());
        cases.put("zc descending map made before close: put", () -> zcDescending.put("a", "2"));
        cases.put("zc descending map made before close: valueStream().count",
                () -> zcDescending.valueStream().count());
        expectEachIllegalStateAfterClose(cases);
    }

    @Test
    void aMapOnASharedPoolIsClosedAloneAndByThePool() {
        MemoryPool pool = closeLater(MemoryPool.builder().blockSize(1 << 16).build());
        GroveSortedMap<String, String> closed = fill(GroveSortedMap.builder(Serializers.strings(),
                Serializers.strings()).chunkSize(4).pool(pool).build());
        long liveOfOne = pool.footprint().liveSlices();
        GroveSortedMap<String, String> open = fill(GroveSortedMap.builder(Serializers.strings(),
                Serializers.strings()).chunkSize(4).pool(pool).build());
        closed.close();
        assertEquals(liveOfOne, pool.footprint().liveSlices(), "closing a map on a shared pool frees its slices");
        assertFalse(pool.isClosed(), "a map does not close a pool it was given");
        assertThrows(IllegalStateException.class, () -> closed.get("a"));
        assertThrows(IllegalStateException.class, () -> closed.put("a", "2"));
        assertEquals("1", open.get("a"));
        open.put("b", "2");
        open.close();
        assertEquals(0, pool.footprint().liveSlices(), "slices left after both maps were closed");
        GroveSortedMap<String, String> third = fill(GroveSortedMap.builder(Serializers.strings(),
                Serializers.strings()).pool(pool).build());
        pool.close();
        assertThrows(IllegalStateException.class, () -> third.get("a"));
        assertThrows(IllegalStateException.class, () -> third.put("a", "3"));
        assertThrows(IllegalStateException.class, () -> third.zc().get("a"));
        assertThrows(IllegalStateException.class, third::size);
        assertThrows(IllegalStateException.class, third::firstKey);
        assertDoesNotThrow(third::close, "close() of a map whose shared pool is already closed");
    }

    // ---- handles and scoped views ------------------------------------------------------------------------------

    @Test
    void aZeroCopyComputerThatThrowsLeavesTheValueAsItWasAndReleasesTheLock() {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            GroveSortedMap<String, String> map = filledMap();
            assertAThrowingComputerLeavesTheValue(map, map.zc());
        });
    }

    @Test
    void aHandleWhoseEntryWasRemovedOrReplacedThrowsConcurrentModification() {
        GroveSortedMap<String, String> map = filledMap();
        Map<String, Consumer<String>> endings = entryEndings(map, map.zc());
        endings.put("pollFirstEntry of a sub map", k -> map.tailMap(k, true).pollFirstEntry());
        endings.put("descending iterator.remove", k -> map.descendingKeySet().removeIf(k::equals));
        endings.put("sub map remove", k -> map.subMap(k, true, k, true).remove(k));
        assertEachEndsTheHandle(map, map.zc(), endings);
        // The memory of a removed value is reused by later entries (and chunks are rebalanced): the stale handle
        // still refuses to read.
        map.put("reused", "value-reused");
        Handle stale = map.zc().get("reused");
        map.remove("reused");
        for (int i = 0; i < 5_000; i++) {
            map.put("filler" + i, "value-reused");
            if (i % 3 != 0) {
                map.remove("filler" + i);
            }
        }
        assertThrows(ConcurrentModificationException.class, () -> Serializers.strings().read(stale));
        assertAnInPlaceUpdateKeepsTheHandle(map, map.zc());
        // Key handles of a scan: a removed key keeps its own bytes until its chunk is compacted (GroveSortedMap's
        // javadoc), then the handle fails.
        Handle keyHandle = map.zc().tailMap("inplace", true).keySet().iterator().next();
        assertEquals("inplace", Serializers.strings().read(keyHandle));
        map.remove("inplace");
        try {
            assertEquals("inplace", Serializers.strings().read(keyHandle), "a removed key's handle read other bytes");
        } catch (ConcurrentModificationException compactedAlready) {
            // allowed: the chunk was compacted
        }
        for (int i = 0; i < 5_000; i++) { // removals near the key compact its chunk
            map.put("inplace" + i, "v");
            map.remove("inplace" + i);
        }
        assertThrows(ConcurrentModificationException.class, () -> Serializers.strings().read(keyHandle));
    }

    @Test
    void aViewUsedOutsideItsCallbackThrowsIllegalState() {
        GroveSortedMap<String, String> map = filledMap();
        assertLeakedViewsThrowIllegalState(map, map.zc());
        AtomicReference<io.grove.view.ResizableView> leakedResizable = new AtomicReference<>();
        assertFalse(map.zc().putIfAbsentComputeIfPresent("a", "2", leakedResizable::set));
        assertThrows(IllegalStateException.class, () -> leakedResizable.get().resize(8));
        assertThrows(IllegalStateException.class, () -> leakedResizable.get().putByte(0, (byte) 'z'));
        AtomicReference<WriteView> leakedFromSubMap = new AtomicReference<>();
        assertTrue(map.zc().subMap("a", true, "b", false).computeIfPresent("a", leakedFromSubMap::set));
        assertThrows(IllegalStateException.class, () -> leakedFromSubMap.get().putByte(0, (byte) 'z'));
        assertEquals("1", map.get("a"));
    }

    // ---- user functions that throw -------------------------------------------------------------------------

    @Test
    void aFunctionThatThrowsPropagatesAndChangesNothing() {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            GroveSortedMap<String, String> map = filledMap();
            RuntimeException boom = new RuntimeException("boom");
            Map<String, Executable> cases = throwingFunctionCases(map, map.zc(), boom);
            cases.put("sub map compute", () -> map.headMap("b").compute("a", (k, v) -> { throw boom; }));
            expectEachToPropagate(boom, map, cases, () -> snapshot(map)); // the key's lock is released too
        });
    }

    // ---- builders ------------------------------------------------------------------------------------------

    @Test
    @SuppressWarnings("try") // the pool is closed inside its try on purpose: a closed pool must be refused
    void builderArgumentsAreValidatedWithTheValueInTheMessage() {
        Serializer<String> s = Serializers.strings();
        assertMessage(NullPointerException.class, "keySerializer", () -> GroveSortedMap.builder(null, s));
        assertMessage(NullPointerException.class, "valueSerializer", () -> GroveSortedMap.builder(s, null));
        assertMessage(NullPointerException.class, "comparator", () -> GroveSortedMap.builder(s, s).comparator(null));
        assertMessage(NullPointerException.class, "pool", () -> GroveSortedMap.builder(s, s).pool(null));
        assertMessage(IllegalArgumentException.class, "3", () -> GroveSortedMap.builder(s, s).chunkSize(3));
        assertMessage(IllegalArgumentException.class, "0", () -> GroveSortedMap.builder(s, s).chunkSize(0));
        assertMessage(IllegalArgumentException.class, "-4", () -> GroveSortedMap.builder(s, s).chunkSize(-4));
        assertMessage(IllegalArgumentException.class, String.valueOf((1 << 20) + 1),
                () -> GroveSortedMap.builder(s, s).chunkSize((1 << 20) + 1));
        assertMessage(IllegalArgumentException.class, String.valueOf(Integer.MIN_VALUE),
                () -> GroveSortedMap.builder(s, s).chunkSize(Integer.MIN_VALUE));
        assertMessage(IllegalArgumentException.class, "0", () -> GroveSortedMap.builder(s, s).memoryLimit(0));
        assertMessage(IllegalArgumentException.class, "-7", () -> GroveSortedMap.builder(s, s).memoryLimit(-7));
        // A memory limit below one block is refused at build(), naming both figures.
        IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
                () -> GroveSortedMap.builder(s, s).memoryLimit(1000).build());
        assertTrue(small.getMessage().contains("1000"), small::getMessage);
        assertTrue(small.getMessage().contains(String.valueOf(MemoryPool.Builder.DEFAULT_BLOCK_SIZE)),
                small::getMessage);
        // A shared pool and a memory limit of the map's own do not go together; a closed pool is refused.
        try (MemoryPool pool = MemoryPool.builder().build()) {
            IllegalArgumentException both = assertThrows(IllegalArgumentException.class,
                    () -> GroveSortedMap.builder(s, s).pool(pool).memoryLimit(1 << 24).build());
            assertTrue(both.getMessage().contains(String.valueOf(1 << 24)), both::getMessage);
            assertTrue(both.getMessage().contains(String.valueOf(pool.memoryLimit())), both::getMessage);
            pool.close();
            assertMessage(IllegalStateException.class, "closed",
                    () -> GroveSortedMap.builder(s, s).pool(pool).build());
        }
        // Edge values that are allowed, and work.
        for (int chunkSize : new int[] {GroveSortedMap.Builder.MIN_CHUNK_SIZE, GroveSortedMap.Builder.MAX_CHUNK_SIZE}) {
            try (GroveSortedMap<String, String> map = GroveSortedMap.builder(s, s).chunkSize(chunkSize).build()) {
                fill(map);
                assertEquals(21, map.size());
                assertEquals("a", map.firstKey());
                assertEquals("k9", map.lastKey());
            }
        }
    }

    // ---- ranges ----------------------------------------------------------------------------------------------

    @Test
    void reversedBoundsAreRejected() {
        GroveSortedMap<String, String> map = filledMap();
        State before = state(map);
        Map<String, Executable> cases = new LinkedHashMap<>();
        cases.put("subMap(k5, k1)", () -> map.subMap("k5", "k1"));
        cases.put("subMap(k5, true, k1, true)", () -> map.subMap("k5", true, "k1", true));
        cases.put("descendingMap().subMap(k1, k5)", () -> map.descendingMap().subMap("k1", "k5"));
        cases.put("keySet().subSet(k5, k1)", () -> map.keySet().subSet("k5", "k1"));
        cases.put("headMap(k3).tailMap(k5)", () -> map.headMap("k3").tailMap("k5"));
        cases.put("tailMap(k5).headMap(k1)", () -> map.tailMap("k5").headMap("k1"));
        cases.put("subMap(a, k5).subMap(k1, k7)", () -> map.subMap("a", "k5").subMap("k1", "k7"));
        cases.put("zc().subMap(k5, true, k1, true)", () -> map.zc().subMap("k5", true, "k1", true));
        cases.put("zc().descendingMap().subMap(k1, true, k5, true)",
                () -> map.zc().descendingMap().subMap("k1", true, "k5", true));
        cases.put("zc().headMap(k3, true).tailMap(k5, true)", () -> map.zc().headMap("k3", true).tailMap("k5", true));
        expectEach(IllegalArgumentException.class, map, cases);
        assertUnchanged(before, map, "reversed bounds");
        // Equal bounds are allowed: an empty or one-key range.
        assertEquals(List.of(), new ArrayList<>(map.subMap("k1", "k1").keySet()));
        assertEquals(List.of("k1"), new ArrayList<>(map.subMap("k1", true, "k1", true).keySet()));
    }

    @Test
    void keysOutsideAViewsRangeAreRejectedOnInsertAndIgnoredOnQueries() {
        GroveSortedMap<String, String> map = filledMap();
        ConcurrentNavigableMap<String, String> sub = map.subMap("k1", true, "k5", false);
        ConcurrentNavigableMap<String, String> desc = map.tailMap("k3", true).descendingMap();
        ZeroCopySortedMap<String, String> zcSub = map.zc().subMap("k1", true, "k5", false);
        Map<String, Executable> cases = new LinkedHashMap<>();
        cases.put("subMap.put(below)", () -> sub.put("a", "x"));
        cases.put("subMap.put(upper bound, exclusive)", () -> sub.put("k5", "x"));
        cases.put("subMap.put(above, absent)", () -> sub.put("z", "x"));
        cases.put("subMap.putIfAbsent(above)", () -> sub.putIfAbsent("z", "x"));
        cases.put("subMap.replace(below)", () -> sub.replace("a", "x"));
        cases.put("subMap.replace(below, o, n)", () -> sub.replace("a", "1", "x"));
        cases.put("subMap.putAll({z=x})", () -> sub.putAll(Map.of("z", "x")));
        cases.put("subMap.headMap(above)", () -> sub.headMap("z"));
        cases.put("subMap.tailMap(below)", () -> sub.tailMap("a"));
        cases.put("descending tail.put(below)", () -> desc.put("a", "x"));
        cases.put("descending tail.headMap(below)", () -> desc.headMap("a"));
        cases.put("keySet of subMap: subSet(below, k2)", () -> sub.keySet().subSet("a", "k2"));
        cases.put("zc subMap.put(below)", () -> zcSub.put("a", "x"));
        cases.put("zc subMap.put(upper bound, exclusive)", () -> zcSub.put("k5", "x"));
        cases.put("zc subMap.putIfAbsent(above)", () -> zcSub.putIfAbsent("z", "x"));
        cases.put("zc subMap.putIfAbsentComputeIfPresent(below, present)",
                () -> zcSub.putIfAbsentComputeIfPresent("a", "x", v -> v.putByte(0, (byte) '9')));
        cases.put("zc subMap.putIfAbsentComputeIfPresent(above, absent)",
                () -> zcSub.putIfAbsentComputeIfPresent("z", "x", v -> { }));
        expectEach(IllegalArgumentException.class, map, cases);
        // Queries outside the range answer "absent" and change nothing, as ConcurrentSkipListMap's sub maps do.
        State before = state(map);
        assertNull(sub.get("a"));
        assertFalse(sub.containsKey("a"));
        assertNull(sub.remove("a"));
        assertFalse(sub.remove("a", "1"));
        assertFalse(sub.keySet().contains("a"));
        assertFalse(sub.keySet().remove("a"));
        assertFalse(sub.entrySet().contains(new SimpleImmutableEntry<>("a", "1")));
        assertFalse(sub.containsValue("1"));
        assertNull(desc.get("a"));
        assertEquals("k3", desc.lastKey());
        assertEquals("k9", desc.firstKey());
        assertNull(zcSub.get("a"));
        assertFalse(zcSub.remove("z"));
        assertFalse(zcSub.computeIfPresent("k5", v -> {
            throw new AssertionError("the computer ran for a key outside the range");
        }));
        assertUnchanged(before, map, "queries outside the range");
        // Inside the range, the views write through.
        assertNull(sub.put("k2a", "x"));
        assertEquals("x", map.get("k2a"));
        assertEquals(List.of("k1", "k10", "k11", "k12", "k13", "k14", "k15", "k16", "k17", "k18", "k19", "k2",
                "k2a", "k3", "k4"), new ArrayList<>(sub.keySet()));
    }

    // ---- comparator ------------------------------------------------------------------------------------------

    @Test
    void theDefaultComparatorOrdersLikeTheSerializedBytes() {
        try (GroveSortedMap<Integer, String> ints = GroveSortedMap.builder(Serializers.ints(),
                Serializers.strings()).chunkSize(4).build()) {
            Comparator<? super Integer> c = ints.comparator();
            assertNotNull(c, "comparator() of a map ordered by serialized bytes");
            assertTrue(c.compare(-1, 1) < 0, "ints: -1 before 1 (sign bit flipped)");
            assertTrue(c.compare(Integer.MIN_VALUE, Integer.MAX_VALUE) < 0);
            assertTrue(c.compare(256, 255) > 0);
            assertEquals(0, c.compare(7, 7));
            for (int i : new int[] {5, -3, 0, Integer.MIN_VALUE, 300, -300, Integer.MAX_VALUE, 1}) {
                ints.put(i, "v" + i);
            }
            assertEquals(List.of(Integer.MIN_VALUE, -300, -3, 0, 1, 5, 300, Integer.MAX_VALUE),
                    new ArrayList<>(ints.keySet()));
            assertTrue(ints.descendingMap().comparator().compare(-1, 1) > 0, "a descending map's comparator");
        }
        try (GroveSortedMap<byte[], String> bytes = GroveSortedMap.builder(Serializers.bytes(),
                Serializers.strings()).chunkSize(4).build()) {
            Comparator<? super byte[]> c = bytes.comparator();
            assertTrue(c.compare(new byte[] {(byte) 0x80}, new byte[] {0x7F}) > 0, "bytes compare unsigned");
            assertTrue(c.compare(new byte[] {1}, new byte[] {1, 0}) < 0, "a prefix first");
            bytes.put(new byte[] {(byte) 0xFF}, "ff");
            bytes.put(new byte[] {1, 0}, "0100");
            bytes.put(new byte[] {1}, "01");
            bytes.put(new byte[] {}, "empty");
            assertEquals(List.of("empty", "01", "0100", "ff"), new ArrayList<>(bytes.values()));
        }
        try (GroveSortedMap<String, String> strings = GroveSortedMap.builder(Serializers.strings(),
                Serializers.strings()).chunkSize(4).build()) {
            // Code point order, not String.compareTo: U+FFFD before U+1F600.
            String replacement = "\uFFFD";
            String emoji = "😀";
            assertTrue(replacement.compareTo(emoji) > 0, "String.compareTo puts the emoji first");
            assertTrue(strings.comparator().compare(replacement, emoji) < 0, "UTF-8 byte order puts it last");
            strings.put(emoji, "emoji");
            strings.put(replacement, "replacement");
            assertEquals(List.of(replacement, emoji), new ArrayList<>(strings.keySet()));
            assertEquals(emoji, strings.higherKey(replacement));
        }
    }

    @Test
    void aUsersComparatorOrdersTheMapAsConcurrentSkipListMapWithTheSameComparator() {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            long seed = GroveSortedMapDifferentialTest.SEED;
            Comparator<Integer> reverse = Comparator.reverseOrder();
            try (GroveSortedMap<Integer, Integer> map = GroveSortedMap.builder(Serializers.ints(),
                    Serializers.ints()).comparator(reverse).chunkSize(4).build()) {
                ConcurrentSkipListMap<Integer, Integer> model = new ConcurrentSkipListMap<>(reverse);
                Comparator<? super Integer> c = map.comparator();
                assertNotNull(c);
                assertTrue(c.compare(1, 2) > 0, "the user's comparator: 2 before 1");
                SplittableRandom random = new SplittableRandom(seed);
                for (int step = 0; step < 5_000; step++) {
                    String at = "seed=" + seed + " (rerun with -Dgrove.seed=" + seed + ") step=" + step;
                    int k = random.nextInt(-50, 50);
                    int v = random.nextInt(1000);
                    int a = random.nextInt(-55, 55);
                    int b = random.nextInt(-55, 55);
                    int lo = Math.max(a, b);
                    int hi = Math.min(a, b); // in the reversed order, lo comes first
                    switch (random.nextInt(12)) {
                        case 0, 1, 2 -> assertEquals(model.put(k, v), map.put(k, v), at + " put " + k);
                        case 3, 4 -> assertEquals(model.remove(k), map.remove(k), at + " remove " + k);
                        case 5 -> assertEquals(model.get(k), map.get(k), at + " get " + k);
                        case 6 -> assertEquals(model.floorKey(k), map.floorKey(k), at + " floorKey " + k);
                        case 7 -> assertEquals(model.higherEntry(k), map.higherEntry(k), at + " higherEntry " + k);
                        case 8 -> assertEquals(List.copyOf(model.subMap(lo, true, hi, false).entrySet()),
                                List.copyOf(map.subMap(lo, true, hi, false).entrySet()),
                                at + " subMap(" + lo + ", " + hi + ")");
                        case 9 -> assertEquals(List.copyOf(model.descendingMap().headMap(k).keySet()),
                                List.copyOf(map.descendingMap().headMap(k).keySet()), at + " descending head " + k);
                        case 10 -> {
                            assertEquals(model.pollFirstEntry(), map.pollFirstEntry(), at + " pollFirstEntry");
                            assertEquals(model.isEmpty() ? null : model.lastKey(),
                                    map.isEmpty() ? null : map.lastKey(), at + " lastKey");
                        }
                        default -> {
                            assertEquals(model.putIfAbsent(k, v) == null, map.zc().putIfAbsent(k, v),
                                    at + " zc.putIfAbsent " + k);
                            assertEquals(List.copyOf(model.keySet()), map.zc().keyStream()
                                    .map(Serializers.ints()::read).toList(), at + " zc().keyStream()");
                        }
                    }
                    if (step % 500 == 0) {
                        assertEquals(List.copyOf(model.entrySet()), List.copyOf(map.entrySet()), at + " contents");
                        assertEquals(model.toString(), map.toString(), at + " toString");
                    }
                }
                assertEquals(List.copyOf(model.entrySet()), List.copyOf(map.entrySet()), "contents at the end");
                assertThrows(IllegalArgumentException.class, () -> map.subMap(1, 2), "1 comes after 2 here");
            }
        });
    }

    // ---- iterators ---------------------------------------------------------------------------------------------

    @Test
    void iteratorMisuseIsRejected() {
        GroveSortedMap<String, String> map = filledMap();
        assertEquals("a", assertIteratorMisuseIsRejected(map).getKey());
        Iterator<String> descending = map.descendingKeySet().iterator();
        assertEquals("k9", descending.next());
        descending.remove();
        assertEquals("k8", descending.next());
        assertFalse(map.containsKey("k9"));
        assertThrows(NoSuchElementException.class, () -> map.subMap("x", "y").keySet().iterator().next());
        assertThrows(NoSuchElementException.class, () -> map.subMap("x", "y").firstKey());
        assertNull(map.subMap("x", "y").firstEntry());
        Iterator<Handle> zcIt = map.zc().keySet().iterator();
        assertThrows(IllegalStateException.class, zcIt::remove);
    }
}
