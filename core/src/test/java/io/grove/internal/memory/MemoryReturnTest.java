package io.grove.internal.memory;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.grove.Reclamation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code close()} gives a pool's memory back to the operating system, measured as the process's resident set
 * (VmRSS), also after an earlier pool was closed, which makes glibc keep later blocks of that size in its heaps
 * unless they are reserved in groups ({@link ArenaBlockSource}).
 */
class MemoryReturnTest {
    private static final int BLOCK = 8 << 20;
    private static final long FILLED = 256L << 20;
    /** What may stay: the pool's first blocks, reserved one by one (32 MiB), and room for the JVM's own noise. */
    private static final long MAY_STAY = 64L << 20;

    private static long rss() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) << 10;
            }
        }
        throw new IllegalStateException("no VmRSS");
    }

    private static void fill(Pool pool, long bytes) {
        while (pool.footprint().reservedBytes() < bytes) {
            pool.allocate(BLOCK / 2); // blocks are zero-filled when reserved: resident from then on
        }
    }

    @Test
    void closeReturnsAPoolsMemoryAfterAnEarlierPoolWasClosed() throws IOException {
        assumeTrue(Files.isReadable(Path.of("/proc/self/status")), "not Linux");
        try (Pool earlier = new Pool(BLOCK, 4L * BLOCK, Reclamation.NOVA)) {
            fill(earlier, 2L * BLOCK); // its close frees blocks: glibc raises its mmap threshold past BLOCK
        }
        Pool pool = new Pool(BLOCK, 2 * FILLED, Reclamation.NOVA);
        fill(pool, FILLED);
        long full = rss();
        pool.close();
        long stayed = rss() - (full - FILLED);
        System.out.println("MemoryReturnTest: " + (stayed >> 20) + " MiB of a " + (FILLED >> 20)
                + " MiB pool stayed resident after its close");
        assertTrue(stayed <= MAY_STAY, (stayed >> 20) + " MiB of a " + (FILLED >> 20)
                + " MiB pool stayed resident after its close");
    }
}
