package io.grove.hash;

import io.grove.GroveHashMap;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A child JVM of {@link SharedFileTest}: opens (creating it if missing), closes and deletes one map file over and over
 * for a while, beside other processes doing the same, so that its opens meet the others' creations, opens and
 * closes. Arguments: file, seconds. Prints {@code done N} after N rounds; any failure ends the process with a
 * stack trace and status 1.
 */
public final class CreateDeleteLoop {
    private CreateDeleteLoop() {}

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        long end = System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L;
        System.out.println("done " + rounds(file, end));
    }

    /** Opens, closes and deletes {@code file} until {@link System#nanoTime} passes {@code end}; returns the rounds. */
    private static long rounds(Path file, long end) throws Exception {
        long rounds = 0;
        for (; System.nanoTime() - end < 0; rounds++) {
            GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build();
            map.close();
            Files.deleteIfExists(file);
        }
        return rounds;
    }
}
