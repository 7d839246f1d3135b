package io.grove.hash;

import static io.grove.testing.BadInput.assertMessage;
import static io.grove.testing.BadInput.assertNamesTheSerializer;
import static io.grove.testing.BadInput.assertThrowingSerializerChangesNothing;
import static io.grove.testing.BadInput.badKeyCases;
import static io.grove.testing.BadInput.badValueCases;
import static io.grove.testing.BadInput.fill;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.grove.GroveHashMap;
import io.grove.GroveOutOfMemoryException;
import io.grove.MemoryPool;
import io.grove.SerializerException;
import io.grove.serial.Serializer;
import io.grove.serial.Serializers;
import io.grove.testing.BadInput;
import io.grove.testing.BadInput.LyingSerializer;
import io.grove.view.Handle;
import io.grove.view.ReadView;
import io.grove.view.WriteView;
import java.time.Duration;
import java.util.AbstractMap.SimpleEntry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Bad input to {@link GroveHashMap} (DESIGN.md, "Bad input"): each gets a clear exception and changes nothing, and
 * the map stays usable afterwards. "Changes nothing" is checked on the contents and on the number of live slices
 * in the pool, so that a slice allocated by the failed operation and never freed shows up too.
 */
class GroveHashMapBadInputTest {
    private static final Duration TIME_LIMIT = Duration.ofSeconds(20);

    private final List<AutoCloseable> toClose = new ArrayList<>();

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

    /** A map of 20 entries "k0".."k19" → "v0".."v19", plus "a" → "1". */
    private GroveHashMap<String, String> filledMap() {
        return fill(closeLater(GroveHashMap.builder(Serializers.strings(), Serializers.strings()).expectedSize(1)
                .build()));
    }

    /** What "unchanged" compares: the contents and the pool's live slices. */
    private record State(Map<String, String> contents, long liveSlices) {}

    private static State state(GroveHashMap<String, String> map) {
        return new State(new HashMap<>(map), map.footprint().liveSlices());
    }

    private static void assertUnchanged(State before, GroveHashMap<String, String> map, String what) {
        assertEquals(before.contents(), new HashMap<>(map), what + ": contents changed");
        assertEquals(before.contents().size(), map.size(), what + ": size changed");
        assertEquals(before.liveSlices(), map.footprint().liveSlices(), what + ": live slices changed (a leak?)");
    }

    /** Runs each case, expecting {@code type}, with the map unchanged after each; reports every case that failed. */
    private static void expectEach(Class<? extends Throwable> type, GroveHashMap<String, String> map,
            Map<String, Executable> cases) {
        BadInput.expectEach(type, cases, () -> snapshot(map), () -> {
            map.clear(); // start the next case from the same contents
            fill(map);
        });
    }

    /** A check that {@code map} is as it is now. */
    private static Consumer<String> snapshot(GroveHashMap<String, String> map) {
        State before = state(map);
        return what -> assertUnchanged(before, map, what);
    }

    // ---- null ------------------------------------------------------------------------------------------------------

    @Test
    void nullKeysValuesAndFunctionsAreRejectedAndChangeNothing() {
        GroveHashMap<String, String> map = filledMap();
        BiFunction<String, String, String> f = (k, v) -> "x";
        Map<String, Executable> cases = new LinkedHashMap<>();
        cases.put("get(null)", () -> map.get(null));
        cases.put("getOrDefault(null, d)", () -> map.getOrDefault(null, "d"));
        cases.put("containsKey(null)", () -> map.containsKey(null));
        cases.put("containsValue(null)", () -> map.containsValue(null));
        cases.put("put(null, v)", () -> map.put(null, "v"));
        cases.put("put(present, null)", () -> map.put("a", null));
        cases.put("put(absent, null)", () -> map.put("new", null));
        cases.put("putIfAbsent(null, v)", () -> map.putIfAbsent(null, "v"));
        cases.put("putIfAbsent(present, null)", () -> map.putIfAbsent("a", null));
        cases.put("putIfAbsent(absent, null)", () -> map.putIfAbsent("new", null));
        cases.put("remove(null)", () -> map.remove(null));
        cases.put("remove(null, v)", () -> map.remove(null, "1"));
        cases.put("replace(null, v)", () -> map.replace(null, "v"));
        cases.put("replace(present, null)", () -> map.replace("a", null));
        cases.put("replace(null, o, n)", () -> map.replace(null, "1", "n"));
        cases.put("replace(present, null, n)", () -> map.replace("a", null, "n"));
        cases.put("replace(present, o, null)", () -> map.replace("a", "1", null));
        cases.put("compute(null, f)", () -> map.compute(null, f));
        cases.put("compute(present, null)", () -> map.compute("a", null));
        cases.put("computeIfAbsent(null, f)", () -> map.computeIfAbsent(null, k -> "x"));
        cases.put("computeIfAbsent(absent, null)", () -> map.computeIfAbsent("new", null));
        cases.put("computeIfPresent(null, f)", () -> map.computeIfPresent(null, f));
        cases.put("computeIfPresent(present, null)", () -> map.computeIfPresent("a", null));
        cases.put("merge(null, v, f)", () -> map.merge(null, "v", (a, b) -> a + b));
        cases.put("merge(present, null, f)", () -> map.merge("a", null, (a, b) -> a + b));
        cases.put("merge(absent, null, f)", () -> map.merge("new", null, (a, b) -> a + b));
        cases.put("merge(present, v, null)", () -> map.merge("a", "v", null));
        Map<String, String> nullKey = new HashMap<>();
        nullKey.put(null, "v");
        cases.put("putAll({null=v})", () -> map.putAll(nullKey));
        Map<String, String> nullValue = new HashMap<>();
        nullValue.put("new", null);
        cases.put("putAll({new=null})", () -> map.putAll(nullValue));
        cases.put("putAll(null)", () -> map.putAll(null));
        cases.put("forEach(null)", () -> map.forEach(null));
        cases.put("replaceAll(null)", () -> map.replaceAll(null));
        cases.put("replaceAll(f returning null)", () -> map.replaceAll((k, v) -> null));
        cases.put("keySet().contains(null)", () -> map.keySet().contains(null));
        cases.put("keySet().remove(null)", () -> map.keySet().remove(null));
        cases.put("entry.setValue(null)", () -> map.entrySet().iterator().next().setValue(null));
        cases.put("zc().get(null)", () -> map.zc().get(null));
        cases.put("zc().put(null, v)", () -> map.zc().put(null, "v"));
        cases.put("zc().put(present, null)", () -> map.zc().put("a", null));
        cases.put("zc().put(absent, null)", () -> map.zc().put("new", null));
        cases.put("zc().putIfAbsent(null, v)", () -> map.zc().putIfAbsent(null, "v"));
        cases.put("zc().putIfAbsent(present, null)", () -> map.zc().putIfAbsent("a", null));
        cases.put("zc().putIfAbsent(absent, null)", () -> map.zc().putIfAbsent("new", null));
        cases.put("zc().remove(null)", () -> map.zc().remove(null));
        cases.put("zc().computeIfPresent(null, c)", () -> map.zc().computeIfPresent(null, v -> { }));
        cases.put("zc().computeIfPresent(present, null)", () -> map.zc().computeIfPresent("a", null));
        cases.put("zc().computeIfPresent(absent, null)", () -> map.zc().computeIfPresent("new", null));
        cases.put("zc().putIfAbsentComputeIfPresent(null, v, c)",
                () -> map.zc().putIfAbsentComputeIfPresent(null, "v", v -> { }));
        cases.put("zc().putIfAbsentComputeIfPresent(present, null, c)",
                () -> map.zc().putIfAbsentComputeIfPresent("a", null, v -> { }));
        cases.put("zc().putIfAbsentComputeIfPresent(absent, null, c)",
                () -> map.zc().putIfAbsentComputeIfPresent("new", null, v -> { }));
        cases.put("zc().putIfAbsentComputeIfPresent(present, v, null)",
                () -> map.zc().putIfAbsentComputeIfPresent("a", "v", null));
        cases.put("zc().putIfAbsentComputeIfPresent(absent, v, null)",
                () -> map.zc().putIfAbsentComputeIfPresent("new", "v", null));
        expectEach(NullPointerException.class, map, cases);
    }

    @Test
    void nullQueriesThatTheContractAnswersQuietly() {
        // As ConcurrentHashMap: remove(key, null) removes nothing and says so; a null default is allowed; an entry
        // with a null part is in no entry set; equals(null) is false.
        GroveHashMap<String, String> map = filledMap();
        State before = state(map);
        assertFalse(map.remove("a", null));
        assertNull(map.getOrDefault("absent", null));
        assertFalse(map.entrySet().contains(new SimpleEntry<>("a", null)));
        assertFalse(map.entrySet().contains(new SimpleEntry<>(null, "1")));
        assertFalse(map.entrySet().remove(new SimpleEntry<>("a", null)));
        assertFalse(map.entrySet().remove(new SimpleEntry<>(null, "1")));
        assertFalse(map.equals(null));
        assertUnchanged(before, map, "null queries");
    }

    // ---- serializers that break their contract -----------------------------------------------------------------

    @Test
    void keySerializerWritingPastItsSizeIsNamedAndChangesNothing() {
        GroveHashMap<String, String> map = fill(closeLater(
                GroveHashMap.builder(new LyingSerializer(), Serializers.strings()).expectedSize(1).build()));
        for (String bad : List.of("lie-key", "neg-key")) {
            Map<String, Executable> cases = badKeyCases(map, map.zc(), bad);
            expectEach(SerializerException.class, map, cases);
            assertNamesTheSerializer(() -> map.put(bad, "v"));
        }
        // A write that fails in its own way: that exception propagates, nothing is inserted.
        assertThrowingSerializerChangesNothing(() -> map.put("boom-key", "v"),
                () -> snapshot(map), "put with a throwing key serializer");
        map.put("honest", "fine");
        assertEquals("fine", map.get("honest"));
    }

    @Test
    void valueSerializerWritingPastItsSizeIsNamedAndChangesNothing() {
        GroveHashMap<String, String> map = fill(closeLater(
                GroveHashMap.builder(Serializers.strings(), new LyingSerializer()).expectedSize(1).build()));
        for (String bad : List.of("lie-value", "neg-value")) {
            Map<String, Executable> cases = badValueCases(map, map.zc(), bad);
            expectEach(SerializerException.class, map, cases);
            assertNamesTheSerializer(() -> map.put("a", bad));
        }
        assertThrowingSerializerChangesNothing(() -> map.put("a", "boom-value"),
                () -> snapshot(map), "put with a throwing value serializer");
        assertEquals("1", map.get("a"));
    }

    // ---- too large ---------------------------------------------------------------------------------------------

    @Test
    void valueOrKeyLargerThanTheLargestSliceIsRejectedWithTheLimit() {
        MemoryPool pool = closeLater(MemoryPool.builder().blockSize(1 << 16).build());
        GroveHashMap<String, String> map = fill(closeLater(
                GroveHashMap.builder(Serializers.strings(), Serializers.strings()).pool(pool).build()));
        int max = pool.maxSliceSize();
        String big = "x".repeat(max + 1);
        Map<String, Executable> cases = new LinkedHashMap<>();
        cases.put("put(absent)", () -> map.put("new", big));
        cases.put("put(present)", () -> map.put("a", big));
        cases.put("putIfAbsent", () -> map.putIfAbsent("new", big));
        cases.put("replace", () -> map.replace("a", big));
        cases.put("replace(k, o, n)", () -> map.replace("a", "1", big));
        cases.put("compute(present)", () -> map.compute("a", (k, v) -> big));
        cases.put("compute(absent)", () -> map.compute("new", (k, v) -> big));
        cases.put("computeIfAbsent", () -> map.computeIfAbsent("new", k -> big));
        cases.put("computeIfPresent", () -> map.computeIfPresent("a", (k, v) -> big));
        cases.put("merge(present)", () -> map.merge("a", "y", (a, b) -> big));
        cases.put("merge(absent)", () -> map.merge("new", big, (a, b) -> b));
        cases.put("entry.setValue", () -> map.entrySet().iterator().next().setValue(big));
        cases.put("zc().put(absent)", () -> map.zc().put("new", big));
        cases.put("zc().put(present)", () -> map.zc().put("a", big));
        cases.put("zc().putIfAbsent", () -> map.zc().putIfAbsent("new", big));
        cases.put("zc().putIfAbsentComputeIfPresent", () -> map.zc().putIfAbsentComputeIfPresent("new", big,
                v -> { }));
        cases.put("zc().computeIfPresent resizing past the limit", () -> map.zc().computeIfPresent("a",
                v -> v.resize(max + 1)));
        cases.put("put(key too large, v)", () -> map.put(big, "v"));
        cases.put("put(key filling a whole slice, v)", () -> map.put("k".repeat(max), "v"));
        cases.put("putIfAbsent(key too large, v)", () -> map.putIfAbsent(big, "v"));
        cases.put("zc().put(key too large, v)", () -> map.zc().put(big, "v"));
        expectEach(IllegalArgumentException.class, map, cases);

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> map.put("a", big));
        assertTrue(e.getMessage().contains(String.valueOf(max)), () -> "the limit is not in the message: " + e);
        IllegalArgumentException k = assertThrows(IllegalArgumentException.class, () -> map.put(big, "v"));
        assertTrue(k.getMessage().contains(String.valueOf(max)), () -> "the limit is not in the message: " + k);

        // Exactly the largest slice fits; a large key is only looked up, never stored, by get.
        String largest = "y".repeat(max);
        assertNull(map.put("edge", largest));
        assertEquals(largest, map.get("edge"));
        assertEquals(max, map.zc().get("edge").size());
        assertNull(map.get(big));
        assertFalse(map.containsKey(big));
        assertEquals(largest, map.remove("edge"));
        assertEquals("1", map.get("a"));
    }

    // ---- memory limit ------------------------------------------------------------------------------------------

    @Test
    void memoryLimitOfTheMapsOwnPoolLeavesItConsistentAndUsable() {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            GroveHashMap<Long, String> map = closeLater(GroveHashMap.builder(Serializers.longs(), Serializers.strings())
                    .expectedSize(1).memoryLimit(MemoryPool.Builder.DEFAULT_BLOCK_SIZE).build());
            exhaustThenRecover(map);
        });
    }

    @Test
    void memoryLimitOfASharedPoolLeavesItsMapsConsistentAndUsable() {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            MemoryPool pool = closeLater(MemoryPool.builder().blockSize(1 << 16).memoryLimit(1 << 19).build());
            GroveHashMap<Long, String> first = closeLater(GroveHashMap.builder(Serializers.longs(),
                    Serializers.strings()).expectedSize(1).pool(pool).build());
            GroveHashMap<Long, String> second = closeLater(GroveHashMap.builder(Serializers.longs(),
                    Serializers.strings()).expectedSize(1).pool(pool).build());
            exhaustThenRecover(first);
            // The first map holds the whole pool: the second cannot insert, and is unchanged by trying.
            try {
                second.put(-1L, "small"); // may or may not fit in what is left
            } catch (GroveOutOfMemoryException mayHappen) {
                assertFalse(second.containsKey(-1L));
            }
            Map<Long, String> before = new HashMap<>(second);
            int inserted = 0;
            try {
                for (long k = 0; k < 1_000_000; k++) {
                    second.put(k, "v".repeat(2000));
                    inserted++;
                }
                fail("a 512 KiB pool held a million 2 KB values");
            } catch (GroveOutOfMemoryException expected) {
                // fine
            }
            assertEquals(before.size() + inserted, second.size());
            // Freeing the first map's entries makes room for the second.
            first.clear();
            second.put(5_000_000L, "v".repeat(2000));
            assertEquals("v".repeat(2000), second.get(5_000_000L));
        });
    }

    /** Fills {@code map} until the memory limit, checks it, frees half, fills again, clears, refills. */
    private static void exhaustThenRecover(GroveHashMap<Long, String> map) {
        long emptyLiveSlices = map.footprint().liveSlices();
        Map<Long, String> model = new HashMap<>();
        String value = "v".repeat(1000);
        GroveOutOfMemoryException oom = null;
        long k = 0;
        for (; k < 10_000_000; k++) {
            try {
                map.put(k, value + k);
            } catch (GroveOutOfMemoryException e) {
                oom = e;
                break;
            }
            model.put(k, value + k);
        }
        assertNotNull(oom, "never reached the memory limit");
        assertTrue(model.size() > 50, "the limit was reached after only " + model.size() + " entries");
        long failedKey = k;
        // Consistent: exactly the successful inserts are there; the failed one is not.
        assertFalse(map.containsKey(failedKey));
        assertEquals(model, new HashMap<>(map));
        assertEquals(model.size(), map.size());
        // Further inserts keep failing cleanly, and so does growing a value in place.
        long liveSlices = map.footprint().liveSlices();
        assertThrows(GroveOutOfMemoryException.class, () -> map.put(failedKey, value + failedKey));
        assertThrows(GroveOutOfMemoryException.class, () -> map.zc().computeIfPresent(0L,
                v -> v.resize(v.size() + 60_000)));
        assertEquals(value + 0, map.get(0L), "a failed resize changed the value");
        assertEquals(model, new HashMap<>(map));
        assertEquals(liveSlices, map.footprint().liveSlices(), "failed operations leaked slices");
        // Removing entries makes room again.
        for (long r = 0; r < failedKey; r += 2) {
            assertEquals(model.remove(r), map.remove(r));
        }
        for (long n = failedKey; n < failedKey + 10; n++) {
            map.put(n, value + n);
            model.put(n, value + n);
        }
        assertEquals(model, new HashMap<>(map));
        // After clear, the same amount fits again (nothing leaked on the way).
        map.clear();
        assertEquals(emptyLiveSlices, map.footprint().liveSlices(), "slices left after clear");
        int again = 0;
        try {
            for (long n = 0; n < 10_000_000; n++) {
                map.put(n, value + n);
                again++;
            }
        } catch (GroveOutOfMemoryException expected) {
            // fine
        }
        assertTrue(again >= failedKey * 9 / 10, "after clear only " + again + " of " + failedKey + " fit again");
    }

    // ---- after close ---------------------------------------------------------------------------------------

    @Test
    void everyUseAfterCloseThrowsIllegalState() {
        GroveHashMap<String, String> map = fill(GroveHashMap.builder(Serializers.strings(), Serializers.strings())
                .build());
        var keys = map.keySet();
        var values = map.values();
        var entries = map.entrySet();
        var zc = map.zc();
        Iterator<String> keyIterator = map.keySet().iterator();
        Handle handle = map.zc().get("a");
        map.close();
        map.close(); // idempotent
        BiFunction<String, String, String> f = (k, v) -> "x";
        Map<String, Executable> cases = new LinkedHashMap<>();
        cases.put("get", () -> map.get("a"));
        cases.put("getOrDefault", () -> map.getOrDefault("a", "d"));
        cases.put("containsKey", () -> map.containsKey("a"));
        cases.put("containsValue", () -> map.containsValue("1"));
        cases.put("put", () -> map.put("a", "2"));
        cases.put("putIfAbsent", () -> map.putIfAbsent("new", "2"));
        cases.put("remove(k)", () -> map.remove("a"));
        cases.put("remove(k, v)", () -> map.remove("a", "1"));
        cases.put("replace(k, v)", () -> map.replace("a", "2"));
        cases.put("replace(k, o, n)", () -> map.replace("a", "1", "2"));
        cases.put("compute", () -> map.compute("a", f));
        cases.put("computeIfAbsent", () -> map.computeIfAbsent("new", k -> "x"));
        cases.put("computeIfPresent", () -> map.computeIfPresent("a", f));
        cases.put("merge", () -> map.merge("a", "2", (a, b) -> a + b));
        cases.put("putAll", () -> map.putAll(Map.of("new", "2")));
        cases.put("replaceAll", () -> map.replaceAll(f));
        cases.put("forEach", () -> map.forEach((k, v) -> { }));
        cases.put("size", map::size);
        cases.put("isEmpty", map::isEmpty);
        cases.put("clear", map::clear);
        cases.put("hashCode", map::hashCode);
        cases.put("toString", map::toString);
        cases.put("equals(other map)", () -> map.equals(Map.of("a", "1")));
        cases.put("stats", map::stats);
        cases.put("zc()", map::zc);
        cases.put("keySet().size", keys::size);
        cases.put("keySet().isEmpty", keys::isEmpty);
        cases.put("keySet().contains", () -> keys.contains("a"));
        cases.put("keySet().remove", () -> keys.remove("a"));
        cases.put("keySet().iterator", keys::iterator);
        cases.put("keySet().toArray", keys::toArray);
        cases.put("keySet().clear", keys::clear);
        cases.put("values().size", values::size);
        cases.put("values().contains", () -> values.contains("1"));
        cases.put("values().remove", () -> values.remove("1"));
        cases.put("values().iterator", values::iterator);
        cases.put("entrySet().size", entries::size);
        cases.put("entrySet().contains", () -> entries.contains(new SimpleEntry<>("a", "1")));
        cases.put("entrySet().remove", () -> entries.remove(new SimpleEntry<>("a", "1")));
        cases.put("entrySet().iterator", entries::iterator);
        cases.put("entrySet().stream().count", () -> entries.stream().count());
        cases.put("iterator made before close: hasNext", keyIterator::hasNext);
        cases.put("zc made before close: get", () -> zc.get("a"));
        cases.put("zc made before close: put", () -> zc.put("a", "2"));
        cases.put("zc made before close: putIfAbsent", () -> zc.putIfAbsent("new", "2"));
        cases.put("zc made before close: remove", () -> zc.remove("a"));
        cases.put("zc made before close: computeIfPresent", () -> zc.computeIfPresent("a", v -> { }));
        cases.put("zc made before close: putIfAbsentComputeIfPresent",
                () -> zc.putIfAbsentComputeIfPresent("a", "2", v -> { }));
        cases.put("handle made before close: getByte", () -> handle.getByte(0));
        cases.put("handle made before close: read", () -> handle.read(v -> v.getByte(0)));
        cases.put("handle made before close: toByteArray", handle::toByteArray);
        List<String> failures = new ArrayList<>();
        for (Map.Entry<String, Executable> c : cases.entrySet()) {
            try {
                c.getValue().execute();
                failures.add(c.getKey() + ": no exception");
            } catch (IllegalStateException expected) {
                // fine
            } catch (Throwable t) {
                failures.add(c.getKey() + ": " + t);
            }
        }
        if (!failures.isEmpty()) {
            fail(failures.size() + " of " + cases.size() + " uses after close() did not throw "
                    + "IllegalStateException:\n" + String.join("\n", failures));
        }
    }

    @Test
    void aMapOnASharedPoolIsClosedAloneAndByThePool() {
        MemoryPool pool = closeLater(MemoryPool.builder().build());
        GroveHashMap<String, String> closed = fill(GroveHashMap.builder(Serializers.strings(), Serializers.strings())
                .pool(pool).build());
        GroveHashMap<String, String> open = fill(GroveHashMap.builder(Serializers.strings(), Serializers.strings())
                .pool(pool).build());
        long liveOfOne = pool.footprint().liveSlices() / 2;
        closed.close();
        assertEquals(liveOfOne, pool.footprint().liveSlices(), "closing a map on a shared pool frees its slices");
        assertFalse(pool.isClosed(), "a map does not close a pool it was given");
        assertThrows(IllegalStateException.class, () -> closed.get("a"));
        assertThrows(IllegalStateException.class, () -> closed.put("a", "2"));
        assertEquals("1", open.get("a"));
        open.put("b", "2");
        pool.close();
        assertThrows(IllegalStateException.class, () -> open.get("a"));
        assertThrows(IllegalStateException.class, () -> open.put("a", "3"));
        assertThrows(IllegalStateException.class, () -> open.zc().get("a"));
        assertThrows(IllegalStateException.class, open::size);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> GroveHashMap
                .builder(Serializers.strings(), Serializers.strings()).pool(pool).build());
        assertTrue(e.getMessage().contains("closed"), e::getMessage);
    }

    @Test
    void closingAMapAfterItsSharedPoolWasClosedIsQuiet() {
        // The pool already returned all memory; close() is documented as idempotent release, so there is nothing
        // left to do and nothing to report (try-with-resources may close the pool first).
        MemoryPool pool = MemoryPool.builder().build();
        GroveHashMap<String, String> map = fill(GroveHashMap.builder(Serializers.strings(), Serializers.strings())
                .pool(pool).build());
        pool.close();
        assertDoesNotThrow(map::close, "close() of a map whose shared pool is already closed");
        assertThrows(IllegalStateException.class, () -> map.get("a"));
    }

    // ---- handles ---------------------------------------------------------------------------------------------

    @Test
    void aHandleWhoseEntryWasRemovedOrReplacedThrowsConcurrentModification() {
        GroveHashMap<String, String> map = filledMap();
        Map<String, java.util.function.Consumer<String>> endings = new LinkedHashMap<>();
        endings.put("remove", map::remove);
        endings.put("remove(k, v)", k -> map.remove(k, map.get(k)));
        endings.put("zc().remove", k -> map.zc().remove(k));
        endings.put("put of another value", k -> map.put(k, "other"));
        endings.put("put of the same value", k -> map.put(k, map.get(k)));
        endings.put("replace", k -> map.replace(k, "other"));
        endings.put("compute", k -> map.compute(k, (kk, v) -> v + "!"));
        endings.put("compute to null", k -> map.compute(k, (kk, v) -> null));
        endings.put("merge", k -> map.merge(k, "x", String::concat));
        endings.put("entry.setValue", k -> map.entrySet().stream().filter(e -> e.getKey().equals(k)).findFirst()
                .orElseThrow().setValue("set"));
        endings.put("iterator.remove", k -> map.keySet().removeIf(k::equals));
        endings.put("clear", k -> map.clear());
        endings.put("zc().put", k -> map.zc().put(k, "other"));
        endings.put("zc().computeIfPresent resizing", k -> map.zc().computeIfPresent(k, v -> v.resize(v.size() + 1)));
        int n = 0;
        for (Map.Entry<String, java.util.function.Consumer<String>> ending : endings.entrySet()) {
            String key = "handle" + n++;
            map.put(key, "value-" + key);
            Handle handle = map.zc().get(key);
            assertTrue(handle.isValid());
            assertEquals("value-" + key, Serializers.strings().read(handle));
            ending.getValue().accept(key);
            String what = "a handle after " + ending.getKey();
            assertFalse(handle.isValid(), what);
            assertThrows(ConcurrentModificationException.class, () -> handle.getByte(0), what);
            assertThrows(ConcurrentModificationException.class, () -> handle.getLong(0), what);
            assertThrows(ConcurrentModificationException.class, handle::toByteArray, what);
            assertThrows(ConcurrentModificationException.class, () -> handle.copyTo(0, new byte[1], 0, 1), what);
            assertThrows(ConcurrentModificationException.class, () -> handle.read(Serializers.strings()::read), what);
            assertThrows(ConcurrentModificationException.class, () -> Serializers.strings().read(handle), what);
            fill(map);
        }
        // The memory of a removed value is reused by later entries: the stale handle still refuses to read.
        map.put("reused", "value-reused");
        Handle stale = map.zc().get("reused");
        map.remove("reused");
        for (int i = 0; i < 5_000; i++) { // deletions in batches let the freed slices be reused
            map.put("filler" + i, "value-reused");
            map.remove("filler" + i);
        }
        assertThrows(ConcurrentModificationException.class, () -> Serializers.strings().read(stale));
        // An in-place update of the same size keeps the handle valid, and it sees the new bytes.
        map.put("inplace", "abc");
        Handle kept = map.zc().get("inplace");
        assertTrue(map.zc().computeIfPresent("inplace", v -> v.putByte(0, (byte) 'x')));
        assertTrue(kept.isValid());
        assertEquals("xbc", Serializers.strings().read(kept));
    }

    @Test
    void aViewUsedOutsideItsCallbackThrowsIllegalState() {
        GroveHashMap<String, String> map = filledMap();
        AtomicReference<WriteView> leakedWrite = new AtomicReference<>();
        assertTrue(map.zc().computeIfPresent("a", leakedWrite::set));
        assertThrows(IllegalStateException.class, () -> leakedWrite.get().getByte(0));
        assertThrows(IllegalStateException.class, () -> leakedWrite.get().putByte(0, (byte) 'z'));
        AtomicReference<ReadView> leakedRead = new AtomicReference<>();
        map.zc().get("a").read(v -> {
            leakedRead.set(v);
            return null;
        });
        assertThrows(IllegalStateException.class, () -> leakedRead.get().getByte(0));
        assertEquals("1", map.get("a"));
    }

    // ---- user functions that throw -------------------------------------------------------------------------

    @Test
    void aFunctionThatThrowsPropagatesAndChangesNothing() {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            GroveHashMap<String, String> map = filledMap();
            RuntimeException boom = new RuntimeException("boom");
            Map<String, Executable> cases = new LinkedHashMap<>();
            cases.put("compute(present)", () -> map.compute("a", (k, v) -> { throw boom; }));
            cases.put("compute(absent)", () -> map.compute("new", (k, v) -> { throw boom; }));
            cases.put("computeIfAbsent", () -> map.computeIfAbsent("new", k -> { throw boom; }));
            cases.put("computeIfPresent", () -> map.computeIfPresent("a", (k, v) -> { throw boom; }));
            cases.put("merge", () -> map.merge("a", "2", (a, b) -> { throw boom; }));
            cases.put("replaceAll", () -> map.replaceAll((k, v) -> { throw boom; }));
            cases.put("forEach", () -> map.forEach((k, v) -> { throw boom; }));
            cases.put("keySet().removeIf", () -> map.keySet().removeIf(k -> { throw boom; }));
            cases.put("entrySet().forEach", () -> map.entrySet().forEach(e -> { throw boom; }));
            cases.put("zc().computeIfPresent (nothing written)", () -> map.zc().computeIfPresent("a",
                    v -> { throw boom; }));
            cases.put("zc().putIfAbsentComputeIfPresent (present, nothing written)",
                    () -> map.zc().putIfAbsentComputeIfPresent("a", "2", v -> { throw boom; }));
            List<String> failures = new ArrayList<>();
            for (Map.Entry<String, Executable> c : cases.entrySet()) {
                State before = state(map);
                try {
                    c.getValue().execute();
                    failures.add(c.getKey() + ": the exception did not propagate");
                } catch (Throwable t) {
                    if (t != boom) {
                        failures.add(c.getKey() + ": " + t + " instead of the function's exception");
                    }
                }
                try {
                    assertUnchanged(before, map, c.getKey());
                } catch (AssertionError e) {
                    failures.add(e.getMessage());
                }
                // The segment's lock was released: the same keys can still be read and written.
                map.put("a", "1");
                assertEquals("1", map.get("a"));
                map.remove("new");
            }
            // An Error thrown under the lock releases it too.
            assertThrows(AssertionError.class, () -> map.compute("a", (k, v) -> { throw new AssertionError(); }));
            assertEquals("1", map.put("a", "after error"));
            if (!failures.isEmpty()) {
                fail(String.join("\n", failures));
            }
        });
    }

    @Test
    void aZeroCopyComputerThatThrowsKeepsWhatItWroteAndReleasesTheLock() {
        assertTimeoutPreemptively(TIME_LIMIT, () -> {
            GroveHashMap<String, byte[]> map = closeLater(GroveHashMap.builder(Serializers.strings(),
                    Serializers.bytes()).build());
            map.put("a", new byte[] {1, 2, 3});
            RuntimeException boom = new RuntimeException("boom");
            // Documented: the bytes written before the exception stay written.
            assertSame(boom, assertThrows(RuntimeException.class, () -> map.zc().computeIfPresent("a", v -> {
                v.putByte(0, (byte) 9);
                throw boom;
            })));
            assertArrayEquals(new byte[] {9, 2, 3}, map.get("a"));
            // After a resize, the resized value is what stays; readers are not left waiting on the segment.
            Handle before = map.zc().get("a");
            assertSame(boom, assertThrows(RuntimeException.class, () -> map.zc().computeIfPresent("a", v -> {
                v.resize(5).putByte(4, (byte) 7);
                throw boom;
            })));
            assertArrayEquals(new byte[] {9, 2, 3, 0, 7}, map.get("a"));
            assertThrows(ConcurrentModificationException.class, () -> before.getByte(0));
            map.put("a", new byte[] {4});
            assertArrayEquals(new byte[] {4}, map.get("a"));
            assertEquals(1, map.size());
        });
    }

    // ---- builders ------------------------------------------------------------------------------------------

    @Test
    void builderArgumentsAreValidatedWithTheValueInTheMessage() {
        Serializer<String> s = Serializers.strings();
        assertMessage(NullPointerException.class, "keySerializer", () -> GroveHashMap.builder(null, s));
        assertMessage(NullPointerException.class, "valueSerializer", () -> GroveHashMap.builder(s, null));
        assertMessage(IllegalArgumentException.class, "-1", () -> GroveHashMap.builder(s, s).expectedSize(-1));
        assertMessage(IllegalArgumentException.class, String.valueOf(Long.MIN_VALUE),
                () -> GroveHashMap.builder(s, s).expectedSize(Long.MIN_VALUE));
        assertMessage(IllegalArgumentException.class, "0", () -> GroveHashMap.builder(s, s).memoryLimit(0));
        assertMessage(IllegalArgumentException.class, "-7", () -> GroveHashMap.builder(s, s).memoryLimit(-7));
        assertMessage(IllegalArgumentException.class, "0", () -> GroveHashMap.builder(s, s).maximumSize(0));
        assertMessage(IllegalArgumentException.class, "1023", () -> GroveHashMap.builder(s, s).maximumBytes(1023));
        assertMessage(NullPointerException.class, "pool", () -> GroveHashMap.builder(s, s).pool(null));
        assertThrows(NullPointerException.class, () -> GroveHashMap.builder(s, s).evictionListener(null));
        assertMessage(IllegalArgumentException.class, "maximum",
                () -> GroveHashMap.builder(s, s).evictionListener((k, v) -> { }).build());
        // A memory limit below one block is refused at build(), naming both figures.
        IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
                () -> GroveHashMap.builder(s, s).memoryLimit(1000).build());
        assertTrue(small.getMessage().contains("1000"), small::getMessage);
        assertTrue(small.getMessage().contains(String.valueOf(MemoryPool.Builder.DEFAULT_BLOCK_SIZE)),
                small::getMessage);
        // A shared pool and a memory limit of the map's own do not go together.
        try (MemoryPool pool = MemoryPool.builder().build()) {
            IllegalArgumentException both = assertThrows(IllegalArgumentException.class,
                    () -> GroveHashMap.builder(s, s).pool(pool).memoryLimit(1 << 24).build());
            assertTrue(both.getMessage().contains(String.valueOf(1 << 24)), both::getMessage);
            assertTrue(both.getMessage().contains(String.valueOf(pool.memoryLimit())), both::getMessage);
        }
        // Edge values that are allowed.
        assertDoesNotThrow(() -> GroveHashMap.builder(s, s).expectedSize(0).build().close());
        assertDoesNotThrow(() -> GroveHashMap.builder(s, s).maximumSize(1).maximumBytes(1024).build().close());

        assertMessage(IllegalArgumentException.class, "1000", () -> MemoryPool.builder().blockSize(1000));
        assertMessage(IllegalArgumentException.class, String.valueOf(3 << 16),
                () -> MemoryPool.builder().blockSize(3 << 16));
        assertMessage(IllegalArgumentException.class, "0", () -> MemoryPool.builder().memoryLimit(0));
        assertMessage(NullPointerException.class, "reclamation", () -> MemoryPool.builder().reclamation(null));
        IllegalArgumentException poolSmall = assertThrows(IllegalArgumentException.class,
                () -> MemoryPool.builder().blockSize(1 << 20).memoryLimit(1 << 19).build());
        assertTrue(poolSmall.getMessage().contains(String.valueOf(1 << 19)), poolSmall::getMessage);
        assertTrue(poolSmall.getMessage().contains(String.valueOf(1 << 20)), poolSmall::getMessage);
    }

    @Test
    void aBuildThatRunsOutOfMemoryLeavesTheSharedPoolAsItWas() {
        MemoryPool pool = closeLater(MemoryPool.builder().blockSize(1 << 16).memoryLimit(1 << 18).build());
        RuntimeException e = assertThrows(RuntimeException.class, () -> GroveHashMap.builder(Serializers.longs(),
                Serializers.longs()).pool(pool).expectedSize(1_000_000).build());
        assertTrue(e instanceof GroveOutOfMemoryException || e instanceof IllegalArgumentException,
                () -> "unexpected " + e);
        assertEquals(0, pool.footprint().liveSlices(),
                "a failed build left slices in the shared pool: " + pool.footprint());
        // The whole pool is still there for a map that fits.
        GroveHashMap<Long, Long> map = closeLater(GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .pool(pool).expectedSize(1).build());
        for (long k = 0; k < 1_000; k++) {
            map.put(k, k);
        }
        assertEquals(1_000, map.size());
    }

    @Test
    void iteratorMisuseIsRejected() {
        GroveHashMap<String, String> map = filledMap();
        Iterator<Map.Entry<String, String>> it = map.entrySet().iterator();
        assertThrows(IllegalStateException.class, it::remove);
        Map.Entry<String, String> first = it.next();
        it.remove();
        assertThrows(IllegalStateException.class, it::remove);
        assertFalse(map.containsKey(first.getKey()));
        while (it.hasNext()) {
            it.next();
        }
        assertThrows(java.util.NoSuchElementException.class, it::next);
        assertEquals(20, map.size());
        // A removed entry's setValue writes through, as ConcurrentHashMap's does (put).
        assertNull(map.get(first.getKey()));
        assertEquals(first.getValue(), first.setValue("again"));
        assertEquals("again", map.get(first.getKey()));
    }
}
