package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM of {@link SharedFileTest}: one of several processes that open a map file that does not exist yet at the
 * same moment. Arguments: file, start signal (a file), key. Prints {@code ready}, waits (spinning) until the signal
 * file exists, opens the map (creating the file if it is first), puts its key, closes the map and prints
 * {@code done}; any failure ends the process with a stack trace and status 1.
 */
public final class RacingCreator {
    private RacingCreator() {}

    /**
     * For a test: runs this class once in a child JVM that opens the map in {@code file} at once (its start signal is
     * created first, in {@code dir}) and puts {@code key}; waits for its end (at most 2 minutes), checks that it exited
     * with {@code status} and returns what it printed, its log included.
     */
    public static String runOnce(Path dir, Path file, long key, int status) throws Exception {
        Path go = Files.createFile(dir.resolve("go"));
        Path output = dir.resolve("opener.out");
        Process opener = ChildJvm.start(RacingCreator.class, output, file.toString(), go.toString(),
                String.valueOf(key));
        assertTrue(opener.waitFor(2, TimeUnit.MINUTES), "the opener did not end");
        String said = Files.readString(output);
        assertEquals(status, opener.exitValue(), said);
        return said;
    }

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
