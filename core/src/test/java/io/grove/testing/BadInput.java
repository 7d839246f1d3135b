package io.grove.testing;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.grove.SerializerException;
import io.grove.ZeroCopyMap;
import io.grove.serial.Serializer;
import io.grove.serial.Serializers;
import io.grove.view.ReadView;
import io.grove.view.WriteView;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
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
