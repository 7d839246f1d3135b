package io.grove.internal.memory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * Which run of the operating system this is: Linux's {@code /proc/sys/kernel/random/boot_id}, a random UUID drawn
 * at each boot. A pool over a file records it at each open ({@link PoolStateLayout}), so that the next open can tell
 * whether the system restarted meanwhile, i.e. whether pages that were not forced may be lost. {@link #UNKNOWN} where
 * the system does not say.
 */
record BootId(long high, long low) {
    static final BootId UNKNOWN = new BootId(0, 0);
    /** This boot's, read once. */
    static final BootId CURRENT = read(Path.of("/proc/sys/kernel/random/boot_id"));

    static BootId read(Path source) {
        try {
            UUID id = UUID.fromString(Files.readString(source, StandardCharsets.US_ASCII).trim());
            return new BootId(id.getMostSignificantBits(), id.getLeastSignificantBits());
        } catch (IOException | IllegalArgumentException | SecurityException e) {
            return UNKNOWN;
        }
    }

    boolean known() {
        return !equals(UNKNOWN);
    }

    /** Whether {@code this} and {@code other} are both known and different: the system restarted in between. */
    boolean differsFrom(BootId other) {
        return known() && other.known() && !equals(other);
    }
}
