package io.grove.hash;

import io.grove.internal.file.MappedFile;
import java.nio.file.Path;

/**
 * A child JVM of the file tests: prints how many processes have the file {@code args[0]} open ({@code open in N}),
 * as a process other than theirs sees it, by the locks it finds held ({@link MappedFile#openIn}).
 */
public final class OpenProcesses {
    private OpenProcesses() {}

    public static void main(String[] args) {
        try (MappedFile file = MappedFile.openReadOnly(Path.of(args[0]))) {
            System.out.println("open in " + file.openIn().size());
        }
    }
}
