package io.grove.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.grove.SerializerException;
import io.grove.ZeroCopyMap;
import io.grove.serial.Serializer;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import io.grove.view.ReadView;
import io.grove.view.WriteView;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.function.Executable;

/**
 * Helpers of the bad-input tests of the hash map and the sorted map: each bad input gets a clear exception and
 * changes nothing. What "unchanged" means is the map's own (a test passes a snapshot that, given the name of what
 * ran, asserts that nothing changed since it was taken); the cases common to both maps are built here.
 */
public final class BadInput {
    private BadInput() {}

    /** Fills {@code map} with 20 entries "k0".."k19" → "v0".."v19", plus "a" → "1"; returns it. */
    public static <M extends Map<String, String>> M fill(M map) {
        for (int i = 0; i < 20; i++) {
            map.put("k" + i, "v" + i);
        }
        map.put("a", "1");
        return map;
    }

    /**
     * Runs each case, expecting {@code type}, and checks after each with a check taken by {@code snapshot} before
     * it that nothing changed (after a change, {@code restore} starts the next case from the same contents);
     * reports every case that failed.
     */
    public static void expectEach(Class<? extends Throwable> type, Map<String, Executable> cases,
            Supplier<Consumer<String>> snapshot, Runnable restore) {
        List<String> failures = new ArrayList<>();
        for (Map.Entry<String, Executable> c : cases.entrySet()) {
            Consumer<String> assertUnchanged = snapshot.get();
            try {
                c.getValue().execute();
                failures.add(c.getKey() + ": no exception, " + type.getSimpleName() + " expected");
            } catch (Throwable t) {
                if (!type.isInstance(t)) {
                    failures.add(c.getKey() + ": " + t + " instead of " + type.getSimpleName());
                }
            }
            try {
                assertUnchanged.accept(c.getKey());
            } catch (AssertionError e) {
                failures.add(e.getMessage());
                restore.run();
            }
        }
        if (!failures.isEmpty()) {
            fail(failures.size() + " of " + cases.size() + " cases failed:\n" + String.join("\n", failures));
        }
    }

    /**
     * {@link #expectEach(Class, Map, Supplier, Runnable)} on {@code map}, restoring its {@link #fill} contents after
     * a case that changed it.
     */
    public static void expectEach(Class<? extends Throwable> type, Map<String, String> map,
            Map<String, Executable> cases, Supplier<Consumer<String>> snapshot) {
        expectEach(type, cases, snapshot, () -> {
            map.clear(); // start the next case from the same contents
            fill(map);
        });
    }

    /**
     * The cases, common to both maps, that pass a null key, value or function to the filled {@code map} (whose
     * zero-copy API is {@code zc}); each must throw {@link NullPointerException} and change nothing.
     */
    public static Map<String, Executable> nullCases(ConcurrentMap<String, String> map,
            ZeroCopyMap<String, String> zc) {
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
        Map<String, String> nullValue = new TreeMap<>();
        nullValue.put("new", null);
        cases.put("putAll({new=null})", () -> map.putAll(nullValue));
        cases.put("putAll(null)", () -> map.putAll(null));
        cases.put("forEach(null)", () -> map.forEach(null));
        cases.put("replaceAll(null)", () -> map.replaceAll(null));
        cases.put("replaceAll(f returning null)", () -> map.replaceAll((k, v) -> null));
        cases.put("keySet().contains(null)", () -> map.keySet().contains(null));
        cases.put("keySet().remove(null)", () -> map.keySet().remove(null));
        cases.put("entry.setValue(null)", () -> map.entrySet().iterator().next().setValue(null));
        cases.put("zc().get(null)", () -> zc.get(null));
        cases.put("zc().put(null, v)", () -> zc.put(null, "v"));
        cases.put("zc().put(present, null)", () -> zc.put("a", null));
        cases.put("zc().put(absent, null)", () -> zc.put("new", null));
        cases.put("zc().putIfAbsent(null, v)", () -> zc.putIfAbsent(null, "v"));
        cases.put("zc().putIfAbsent(present, null)", () -> zc.putIfAbsent("a", null));
        cases.put("zc().putIfAbsent(absent, null)", () -> zc.putIfAbsent("new", null));
        cases.put("zc().remove(null)", () -> zc.remove(null));
        cases.put("zc().computeIfPresent(null, c)", () -> zc.computeIfPresent(null, v -> { }));
        cases.put("zc().computeIfPresent(present, null)", () -> zc.computeIfPresent("a", null));
        cases.put("zc().computeIfPresent(absent, null)", () -> zc.computeIfPresent("new", null));
        cases.put("zc().putIfAbsentComputeIfPresent(null, v, c)",
                () -> zc.putIfAbsentComputeIfPresent(null, "v", v -> { }));
        cases.put("zc().putIfAbsentComputeIfPresent(present, null, c)",
                () -> zc.putIfAbsentComputeIfPresent("a", null, v -> { }));
        cases.put("zc().putIfAbsentComputeIfPresent(absent, null, c)",
                () -> zc.putIfAbsentComputeIfPresent("new", null, v -> { }));
        cases.put("zc().putIfAbsentComputeIfPresent(present, v, null)",
                () -> zc.putIfAbsentComputeIfPresent("a", "v", null));
        cases.put("zc().putIfAbsentComputeIfPresent(absent, v, null)",
                () -> zc.putIfAbsentComputeIfPresent("new", "v", null));
        return cases;
    }

    /**
     * The cases, common to both maps, that store {@code big} (one byte more than {@code max}, the largest slice of
     * the map's pool) as a value of the filled {@code map} or as a key; each must throw
     * {@link IllegalArgumentException} and change nothing.
     */
    public static Map<String, Executable> tooLargeCases(ConcurrentMap<String, String> map,
            ZeroCopyMap<String, String> zc, String big, int max) {
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
        cases.put("zc().put(absent)", () -> zc.put("new", big));
        cases.put("zc().put(present)", () -> zc.put("a", big));
        cases.put("zc().putIfAbsent", () -> zc.putIfAbsent("new", big));
        cases.put("zc().putIfAbsentComputeIfPresent", () -> zc.putIfAbsentComputeIfPresent("new", big,
                v -> { }));
        cases.put("zc().computeIfPresent resizing past the limit", () -> zc.computeIfPresent("a",
                v -> v.resize(max + 1)));
        cases.put("put(key too large, v)", () -> map.put(big, "v"));
        cases.put("putIfAbsent(key too large, v)", () -> map.putIfAbsent(big, "v"));
        cases.put("zc().put(key too large, v)", () -> zc.put(big, "v"));
        return cases;
    }

    /** Asserts that a value and a key of {@code big} are rejected with the limit {@code max} in the message. */
    public static void assertTheLimitIsNamed(Map<String, String> map, String big, int max) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> map.put("a", big));
        assertTrue(e.getMessage().contains(String.valueOf(max)), () -> "the limit is not in the message: " + e);
        IllegalArgumentException k = assertThrows(IllegalArgumentException.class, () -> map.put(big, "v"));
        assertTrue(k.getMessage().contains(String.valueOf(max)), () -> "the limit is not in the message: " + k);
    }

    /**
     * The uses, common to both maps, of the filled {@code map} (whose zero-copy API is {@code zc}) and of views,
     * an iterator, a zero-copy API and a handle made before {@code map} was closed; closes it twice (idempotent).
     * Each use must throw {@link IllegalStateException} ({@link #expectEachIllegalStateAfterClose}).
     */
    public static Map<String, Executable> usesAfterClose(ConcurrentMap<String, String> map,
            ZeroCopyMap<String, String> zc, AutoCloseable closeable) throws Exception {
        var keys = map.keySet();
        var values = map.values();
        var entries = map.entrySet();
        Iterator<String> keyIterator = map.keySet().iterator();
        Iterator<String> advancedIterator = map.keySet().iterator();
        advancedIterator.next(); // the map holds more keys: the iterator may have read them ahead
        Iterator<String> checkedIterator = map.keySet().iterator();
        assertTrue(checkedIterator.hasNext(), "the filled map has keys");
        Handle handle = zc.get("a");
        closeable.close();
        closeable.close(); // idempotent
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
        cases.put("entrySet().contains", () -> entries.contains(new SimpleImmutableEntry<>("a", "1")));
        cases.put("entrySet().remove", () -> entries.remove(new SimpleImmutableEntry<>("a", "1")));
        cases.put("entrySet().iterator", entries::iterator);
        cases.put("entrySet().stream().count", () -> entries.stream().count());
        cases.put("iterator made before close: hasNext", keyIterator::hasNext);
        cases.put("iterator advanced before close: hasNext", advancedIterator::hasNext);
        cases.put("iterator advanced before close: next", advancedIterator::next);
        cases.put("iterator whose hasNext said true before close: next", checkedIterator::next);
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
        return cases;
    }

    /** Runs each case, expecting {@link IllegalStateException}; reports every case that did not throw it. */
    public static void expectEachIllegalStateAfterClose(Map<String, Executable> cases) {
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

    /**
     * The updates, common to both maps, that end the entry of a key of {@code map} (whose zero-copy API is
     * {@code zc}): each must make a handle to the key's value invalid ({@link #assertEachEndsTheHandle}).
     */
    public static Map<String, Consumer<String>> entryEndings(ConcurrentMap<String, String> map,
            ZeroCopyMap<String, String> zc) {
        Map<String, Consumer<String>> endings = new LinkedHashMap<>();
        endings.put("remove", map::remove);
        endings.put("remove(k, v)", k -> map.remove(k, map.get(k)));
        endings.put("zc().remove", k -> zc.remove(k));
        endings.put("put of another value", k -> map.put(k, "other"));
        endings.put("replace", k -> map.replace(k, "other"));
        endings.put("compute", k -> map.compute(k, (kk, v) -> v + "!"));
        endings.put("compute to null", k -> map.compute(k, (kk, v) -> null));
        endings.put("merge", k -> map.merge(k, "x", String::concat));
        endings.put("iterator.remove", k -> map.keySet().removeIf(k::equals));
        endings.put("clear", k -> map.clear());
        endings.put("zc().put", k -> zc.put(k, "other"));
        return endings;
    }

    /**
     * For each ending: puts a fresh key into {@code map}, takes a handle to its value, ends the entry, and asserts
     * that the handle is invalid and every read through it throws {@link ConcurrentModificationException}; then
     * refills the map.
     */
    public static void assertEachEndsTheHandle(Map<String, String> map, ZeroCopyMap<String, String> zc,
            Map<String, Consumer<String>> endings) {
        int n = 0;
        for (Map.Entry<String, Consumer<String>> ending : endings.entrySet()) {
            String key = "handle" + n++;
            map.put(key, "value-" + key);
            Handle handle = zc.get(key);
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
    }

    /** An in-place update of the same size keeps a handle valid, and it sees the new bytes. */
    public static void assertAnInPlaceUpdateKeepsTheHandle(Map<String, String> map, ZeroCopyMap<String, String> zc) {
        map.put("inplace", "abc");
        Handle kept = zc.get("inplace");
        assertTrue(zc.computeIfPresent("inplace", v -> v.putByte(0, (byte) 'x')));
        assertTrue(kept.isValid());
        assertEquals("xbc", Serializers.strings().read(kept));
    }

    /**
     * A zero-copy function that throws leaves the value exactly as it was: the bytes it wrote in place are restored,
     * a resized copy is dropped (a handle on the value stays valid and sees the old bytes), and the key can be read
     * and updated again at once (the value's lock, or its entry's stamp, was released).
     */
    public static void assertAThrowingComputerLeavesTheValue(Map<String, String> map, ZeroCopyMap<String, String> zc) {
        map.put("undo", "abc");
        Handle kept = zc.get("undo");
        RuntimeException boom = new RuntimeException("boom");
        Map<String, java.util.function.Consumer<io.grove.view.ResizableView>> computers = new LinkedHashMap<>();
        computers.put("writes in place, then throws", v -> {
            v.putByte(0, (byte) 'x').putShort(1, (short) 0x7979);
            throw boom;
        });
        computers.put("writes, resizes, writes, then throws", v -> {
            v.putByte(0, (byte) 'x');
            v.resize(5).putByte(4, (byte) '!').putByte(1, (byte) 'y');
            throw boom;
        });
        computers.put("shrinks, then throws", v -> {
            v.resize(1);
            throw boom;
        });
        for (var c : computers.entrySet()) {
            RuntimeException thrown = assertThrows(RuntimeException.class,
                    () -> zc.computeIfPresent("undo", c.getValue()), c.getKey());
            assertSame(boom, thrown, c.getKey());
            assertEquals("abc", map.get("undo"), c.getKey() + ": the value changed");
            assertTrue(kept.isValid(), c.getKey() + ": the value was replaced");
            assertEquals("abc", Serializers.strings().read(kept), c.getKey());
            RuntimeException upsert = assertThrows(RuntimeException.class,
                    () -> zc.putIfAbsentComputeIfPresent("undo", "new", c.getValue()), c.getKey());
            assertSame(boom, upsert, c.getKey());
            assertEquals("abc", map.get("undo"), c.getKey() + " (putIfAbsentComputeIfPresent): the value changed");
        }
        assertTrue(zc.computeIfPresent("undo", v -> v.putByte(0, (byte) 'z')));
        assertEquals("zbc", map.get("undo"));
        map.remove("undo");
    }

    /**
     * The cases, common to both maps, that run a function on the filled {@code map} (whose zero-copy API is
     * {@code zc}) that throws {@code boom} ({@link #expectEachToPropagate}).
     */
    public static Map<String, Executable> throwingFunctionCases(ConcurrentMap<String, String> map,
            ZeroCopyMap<String, String> zc, RuntimeException boom) {
        Map<String, Executable> cases = new LinkedHashMap<>();
        cases.put("compute(present)", () -> map.compute("a", (k, v) -> { throw boom; }));
        cases.put("compute(absent)", () -> map.compute("new", (k, v) -> { throw boom; }));
        cases.put("computeIfAbsent", () -> map.computeIfAbsent("new", k -> { throw boom; }));
        cases.put("computeIfPresent", () -> map.computeIfPresent("a", (k, v) -> { throw boom; }));
        cases.put("merge", () -> map.merge("a", "2", (a, b) -> { throw boom; }));
        cases.put("forEach", () -> map.forEach((k, v) -> { throw boom; }));
        cases.put("keySet().removeIf", () -> map.keySet().removeIf(k -> { throw boom; }));
        cases.put("zc().computeIfPresent (nothing written)", () -> zc.computeIfPresent("a",
                v -> { throw boom; }));
        cases.put("zc().putIfAbsentComputeIfPresent (present, nothing written)",
                () -> zc.putIfAbsentComputeIfPresent("a", "2", v -> { throw boom; }));
        return cases;
    }

    /**
     * Runs each case, expecting exactly {@code boom} to propagate, and checks with a check {@code snapshot} takes
     * before it that nothing changed and that the lock it ran under was released (the same keys can still be read
     * and written); then that an {@link Error} thrown under the lock releases it too. Reports every case that
     * failed.
     */
    public static void expectEachToPropagate(RuntimeException boom, Map<String, String> map,
            Map<String, Executable> cases, Supplier<Consumer<String>> snapshot) {
        List<String> failures = new ArrayList<>();
        for (Map.Entry<String, Executable> c : cases.entrySet()) {
            Consumer<String> assertUnchanged = snapshot.get();
            try {
                c.getValue().execute();
                failures.add(c.getKey() + ": the exception did not propagate");
            } catch (Throwable t) {
                if (t != boom) {
                    failures.add(c.getKey() + ": " + t + " instead of the function's exception");
                }
            }
            try {
                assertUnchanged.accept(c.getKey());
            } catch (AssertionError e) {
                failures.add(e.getMessage());
            }
            map.put("a", "1");
            assertEquals("1", map.get("a"));
            map.remove("new");
        }
        assertThrows(AssertionError.class, () -> map.compute("a", (k, v) -> { throw new AssertionError(); }));
        assertEquals("1", map.put("a", "after error"));
        if (!failures.isEmpty()) {
            fail(String.join("\n", failures));
        }
    }

    /**
     * Views leaked out of their zero-copy callbacks on the filled {@code map}'s key "a" refuse to be used; the
     * value stays "1".
     */
    public static void assertLeakedViewsThrowIllegalState(Map<String, String> map, ZeroCopyMap<String, String> zc) {
        AtomicReference<WriteView> leakedWrite = new AtomicReference<>();
        assertTrue(zc.computeIfPresent("a", leakedWrite::set));
        assertThrows(IllegalStateException.class, () -> leakedWrite.get().getByte(0));
        assertThrows(IllegalStateException.class, () -> leakedWrite.get().putByte(0, (byte) 'z'));
        AtomicReference<ReadView> leakedRead = new AtomicReference<>();
        zc.get("a").read(v -> {
            leakedRead.set(v);
            return null;
        });
        assertThrows(IllegalStateException.class, () -> leakedRead.get().getByte(0));
        assertEquals("1", map.get("a"));
    }

    /**
     * Misuse of an entry-set iterator of the filled {@code map} is rejected: remove before next and twice, next
     * past the end. Returns the first entry, which the iterator removed.
     */
    public static Map.Entry<String, String> assertIteratorMisuseIsRejected(Map<String, String> map) {
        Iterator<Map.Entry<String, String>> it = map.entrySet().iterator();
        assertThrows(IllegalStateException.class, it::remove);
        Map.Entry<String, String> first = it.next();
        it.remove();
        assertThrows(IllegalStateException.class, it::remove);
        assertFalse(map.containsKey(first.getKey()));
        while (it.hasNext()) {
            it.next();
        }
        assertThrows(NoSuchElementException.class, it::next);
        assertEquals(20, map.size());
        return first;
    }

    /**
     * UTF-8 strings, except that for strings starting with "lie" it declares 2 bytes and writes all of them, for
     * strings starting with "neg" it declares a negative size, and for "boom" its write throws.
     */
    public static final class LyingSerializer implements Serializer<String> {
        @Override
        public int size(String value) {
            if (value.startsWith("lie")) {
                return 2;
            }
            if (value.startsWith("neg")) {
                return -3;
            }
            return Serializers.strings().size(value);
        }

        @Override
        public void write(String value, WriteView target) {
            if (value.startsWith("boom")) {
                throw new IllegalStateException("boom from the serializer");
            }
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            target.copyFrom(bytes, 0, 0, bytes.length);
        }

        @Override
        public String read(ReadView source) {
            return Serializers.strings().read(source);
        }

        @Override
        public String toString() {
            return "LyingSerializer";
        }
    }

    /** The cases, common to both maps, that pass {@code bad} (a key the {@link LyingSerializer} lies about). */
    public static Map<String, Executable> badKeyCases(ConcurrentMap<String, String> map,
            ZeroCopyMap<String, String> zc, String bad) {
        Map<String, Executable> cases = new LinkedHashMap<>();
        cases.put("put", () -> map.put(bad, "v"));
        cases.put("putIfAbsent", () -> map.putIfAbsent(bad, "v"));
        cases.put("get", () -> map.get(bad));
        cases.put("containsKey", () -> map.containsKey(bad));
        cases.put("remove", () -> map.remove(bad));
        cases.put("replace", () -> map.replace(bad, "v"));
        cases.put("compute", () -> map.compute(bad, (k, v) -> "v"));
        cases.put("computeIfAbsent", () -> map.computeIfAbsent(bad, k -> "v"));
        cases.put("merge", () -> map.merge(bad, "v", (a, b) -> a + b));
        cases.put("zc().put", () -> zc.put(bad, "v"));
        cases.put("zc().get", () -> zc.get(bad));
        cases.put("zc().putIfAbsentComputeIfPresent", () -> zc.putIfAbsentComputeIfPresent(bad, "v", v -> { }));
        return cases;
    }

    /**
     * The cases, common to both maps, that store {@code bad} (a value the {@link LyingSerializer} lies about) on
     * the present key "a" (whose value is "1") and on the absent key "new".
     */
    public static Map<String, Executable> badValueCases(ConcurrentMap<String, String> map,
            ZeroCopyMap<String, String> zc, String bad) {
        Map<String, Executable> cases = new LinkedHashMap<>();
        cases.put("put(absent)", () -> map.put("new", bad));
        cases.put("put(present)", () -> map.put("a", bad));
        cases.put("putIfAbsent(absent)", () -> map.putIfAbsent("new", bad));
        cases.put("replace(present)", () -> map.replace("a", bad));
        cases.put("replace(present, old, bad)", () -> map.replace("a", "1", bad));
        cases.put("compute(present)", () -> map.compute("a", (k, v) -> bad));
        cases.put("compute(absent)", () -> map.compute("new", (k, v) -> bad));
        cases.put("computeIfAbsent", () -> map.computeIfAbsent("new", k -> bad));
        cases.put("computeIfPresent", () -> map.computeIfPresent("a", (k, v) -> bad));
        cases.put("merge(present)", () -> map.merge("a", bad, (a, b) -> b));
        cases.put("merge(absent)", () -> map.merge("new", bad, (a, b) -> b));
        cases.put("entry.setValue", () -> map.entrySet().iterator().next().setValue(bad));
        cases.put("zc().put(absent)", () -> zc.put("new", bad));
        cases.put("zc().put(present)", () -> zc.put("a", bad));
        cases.put("zc().putIfAbsent", () -> zc.putIfAbsent("new", bad));
        return cases;
    }

    /**
     * Asserts that {@code bad} throws a {@link SerializerException} that names the lying serializer.
     */
    public static void assertNamesTheSerializer(Executable bad) {
        SerializerException e = assertThrows(SerializerException.class, bad);
        assertTrue(e.getMessage().contains("LyingSerializer"), () -> "does not name the serializer: " + e);
    }

    /**
     * Asserts that {@code boom}, which has the {@link LyingSerializer} throw in its write, propagates that
     * exception and changes nothing (checked with a check {@code snapshot} takes before it, named {@code what}).
     */
    public static void assertThrowingSerializerChangesNothing(Executable boom, Supplier<Consumer<String>> snapshot,
            String what) {
        Consumer<String> assertUnchanged = snapshot.get();
        RuntimeException e = assertThrows(RuntimeException.class, boom);
        assertTrue(messages(e).contains("boom from the serializer"), () -> "lost the cause: " + e);
        assertUnchanged.accept(what);
    }

    /** The messages of {@code t} and its causes, separated by " / ". */
    public static String messages(Throwable t) {
        StringBuilder s = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            s.append(c.getMessage()).append(" / ");
        }
        return s.toString();
    }

    /** Asserts that {@code executable} throws {@code type} with a message that contains {@code part}. */
    public static void assertMessage(Class<? extends Throwable> type, String part, Executable executable) {
        Throwable t = assertThrows(type, executable);
        assertNotNull(t.getMessage(), () -> type.getSimpleName() + " without a message");
        assertTrue(t.getMessage().contains(part), () -> "message without \"" + part + "\": " + t.getMessage());
    }
}
