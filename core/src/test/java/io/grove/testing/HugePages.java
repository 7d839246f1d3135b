package io.grove.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the kernel says about transparent huge pages, for tests of maps that ask for them. */
public final class HugePages {
    private HugePages() {}

    /** Whether the system's setting lets a mapping marked for huge pages have them: {@code madvise}, {@code always}. */
    public static boolean allowed() throws IOException {
        return Files.readString(Path.of("/sys/kernel/mm/transparent_hugepage/enabled"))
                .matches("(?s).*\\[(madvise|always)\\].*");
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
