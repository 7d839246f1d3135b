package io.grove.bench.maps;

import io.grove.bench.Scenario;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the peers that keep their map in a file ({@code chronicle-file}, {@code mapdb-file}, {@code lmdb}) share:
 * they run in the MapHash scenario only, which is where the file-backed comparison of the hash map is asked for
 * (the other key-value scenarios would add their runs to every default benchmark run), and each run gets a fresh
 * file in {@code java.io.tmpdir}.
 */
final class FileBackedPeers {
    static final String SCENARIO = "maphash-80-15-5";

    private FileBackedPeers() {}

    static String notApplicable(Scenario scenario) {
        return scenario.name().equals(SCENARIO) ? null : "file-backed peers run in " + SCENARIO + " only";
    }

    /** A path for a new file named after {@code prefix} that does not exist yet. */
    static Path newFile(String prefix, String suffix) {
        try {
            Path file = Files.createTempFile(prefix, suffix);
            Files.delete(file);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
