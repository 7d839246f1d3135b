package io.grove;

import java.nio.file.Path;

/**
 * A file cannot back a map: it is not a Grove file, its format is newer than this Grove reads, it is shorter than
 * its header says, its header is damaged, or it cannot be opened, created or mapped. The message names the file
 * and what is wrong. Nothing in the file was changed by the failed open.
 */
public final class GroveFileException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The file, as named when opened, made absolute. */
    private final String file;

    public GroveFileException(String file, String problem) {
        super(file + " " + problem);
        this.file = file;
    }

    public GroveFileException(String file, String problem, Throwable cause) {
        super(file + " " + problem, cause);
        this.file = file;
    }

    /** The file the problem is with. */
    public Path file() {
        return Path.of(file);
    }
}
