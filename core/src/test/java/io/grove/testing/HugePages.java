package io.grove.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.MemoryPool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongUnaryOperator;

/** What the kernel says about transparent huge pages, for tests of maps that ask for them. */
public final class HugePages {
    private HugePages() {}

    /** Whether the system's setting lets a mapping marked for huge pages have them: {@code madvise}, {@code always}. */
    public static boolean allowed() throws IOException {
        return Files.readString(Path.of("/sys/kernel/mm/transparent_hugepage/enabled"))
                .matches("(?s).*\\[(madvise|always)\\].*");
    }

    /**
     * Checks, where the system's setting allows huge pages, that the anonymous memory backed by them grew by 20 MB or
     * more from {@code before} to {@code after} ({@link #anonymousBytes} readings around filling a map of about 50
     * MB).
     */
    public static void assertGrew(long before, long after) throws IOException {
        if (allowed() && after < before + (20L << 20)) {
            throw new AssertionError("AnonHugePages " + before + " -> " + after
                    + " bytes while the map filled about 50 MB");
        }
    }

    /**
     * Checks that building a map that asks for huge pages on the shared {@code pool} fails, naming the pool's own
     * option: {@code build} builds such a map.
     */
    public static void assertRefusedOnSharedPool(Consumer<MemoryPool> build) {
        try (MemoryPool pool = MemoryPool.builder().build()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> build.accept(pool));
            assertTrue(e.getMessage().contains("MemoryPool.Builder.hugePages"), e.getMessage());
        }
    }

    /**
     * Puts {@code entries} keys (0 to {@code entries - 1}, in the order {@code order} maps the i-th to) with 200-byte
     * values into {@code map} and {@code reference}, reads {@link #anonymousBytes}, then removes the even keys from
     * both, checking each removed value; returns the reading taken when the map was full.
     */
    public static long fillThenRemoveHalf(Map<Long, byte[]> map, Map<Long, byte[]> reference, int entries,
            LongUnaryOperator order) throws IOException {
        for (long i = 0; i < entries; i++) {
            long k = order.applyAsLong(i);
            byte[] value = new byte[200];
            Arrays.fill(value, (byte) k);
            map.put(k, value);
            reference.put(k, value);
        }
        long filled = anonymousBytes();
        for (long k = 0; k < entries; k += 2) {
            assertArrayEquals(reference.remove(k), map.remove(k));
        }
        assertEquals(reference.size(), map.size());
        return filled;
    }

    /** The bytes of anonymous memory the kernel backs with huge pages in this process. */
    public static long anonymousBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps_rollup"))) {
            if (line.startsWith("AnonHugePages:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new AssertionError("no AnonHugePages in /proc/self/smaps_rollup");
    }
}
