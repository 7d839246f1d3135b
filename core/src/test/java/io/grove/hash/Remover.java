package io.grove.hash;

import io.grove.GroveHashMap;
import io.grove.GroveOutOfMemoryException;
import java.nio.file.Path;

/**
 * A child JVM of {@link SharedFileTest}: opens the map in the file (argument 1) with {@link #builder} for a file of at
 * most argument 2 bytes, puts keys from 0 up, {@code count} of them (argument 3) or, if it is {@code full}, until the
 * file's memory is full; removes keys 0 to {@code removed - 1} (argument 4) with one thread, so that the deleted
 * entries wait in one of its release stripes, and prints {@code removed} with its footprint's live slices; then, if
 * argument 5 is {@code stay}, waits for ever with the map open (for a kill), else closes the map.
 */
public final class Remover {
    private Remover() {}

    /** The map {@link CrashWriter#builder} makes, in a file of at most {@code maxFileSize} bytes. */
    static GroveHashMap.Builder<Long, String> builder(Path file, long maxFileSize) {
        return CrashWriter.builder(file, false).maxFileSize(maxFileSize);
    }

    public static void main(String[] args) throws Exception {
        long count = args[2].equals("full") ? Long.MAX_VALUE : Long.parseLong(args[2]);
        long removed = Long.parseLong(args[3]);
        try (GroveHashMap<Long, String> map = builder(Path.of(args[0]), Long.parseLong(args[1])).build()) {
            try {
                for (long k = 0; k < count; k++) {
                    map.put(k, CrashWriter.value(k, 0));
                }
            } catch (GroveOutOfMemoryException full) {
                System.out.println("full at " + map.size() + " entries");
            }
            for (long k = 0; k < removed; k++) {
                map.remove(k);
            }
            System.out.println("removed, live slices " + map.footprint().liveSlices());
            System.out.flush();
            if (args[4].equals("stay")) {
                Thread.sleep(Long.MAX_VALUE);
            }
        }
    }
}
