package io.grove.hash;

import io.grove.GroveHashMap;
import java.nio.file.Path;

/**
 * A child JVM of {@link SharedFileTest}: opens the map in the file (argument 1) beside the test's process, and for each
 * key {@code k} in {@code [0, keys)} (argument 2) replaces it with {@link CrashWriter#value}{@code (k, 1)} (another
 * length than sequence 0's) if {@code k} is even and removes it if odd; then puts {@code 4 * keys} new keys from
 * {@code keys} on, so that the memory of the removed entries is reused, prints {@code done} and closes the map.
 */
public final class Replacer {
    private Replacer() {}

    public static void main(String[] args) {
        int keys = Integer.parseInt(args[1]);
        try (GroveHashMap<Long, String> map = CrashWriter.builder(Path.of(args[0]), false).build()) {
            for (long k = 0; k < keys; k++) {
                if (k % 2 == 0) {
                    map.put(k, CrashWriter.value(k, 1));
                } else {
                    map.remove(k);
                }
            }
            for (long k = keys; k < 5L * keys; k++) {
                map.put(k, CrashWriter.value(k, 0));
            }
            System.out.println("done");
        }
    }
}
