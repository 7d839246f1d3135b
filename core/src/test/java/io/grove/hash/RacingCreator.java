package io.grove.hash;

import io.grove.GroveHashMap;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A child JVM of {@link SharedFileTest}: one of several processes that open a map file that does not exist yet at the
 * same moment. Arguments: file, start signal (a file), key. Prints {@code ready}, waits (spinning) until the signal
 * file exists, opens the map (creating the file if it is first), puts its key, closes the map and prints
 * {@code done}; any failure ends the process with a stack trace and status 1.
 */
public final class RacingCreator {
    private RacingCreator() {}

    public static void main(String[] args) {
        Path file = Path.of(args[0]);
        Path go = Path.of(args[1]);
        long key = Long.parseLong(args[2]);
        System.out.println("ready");
        System.out.flush();
        while (!Files.exists(go)) {
            Thread.onSpinWait();
        }
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
            map.put(key, CrashWriter.value(key, 0));
        }
        System.out.println("done");
    }
}
