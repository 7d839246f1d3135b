package io.grove.bench;

import java.util.Locale;

/** Parsing and printing of sizes ({@code 4g}, {@code 512m}) and durations ({@code 5s}, {@code 500ms}). */
public final class Units {
    private Units() {}

    /** Bytes from {@code 123}, {@code 64k}, {@code 512m}, {@code 4g} (binary units, as the JVM's -Xmx). */
    public static long parseSize(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        if (s.endsWith("b")) {
            s = s.substring(0, s.length() - 1);
        }
        long unit = 1;
        char last = s.isEmpty() ? ' ' : s.charAt(s.length() - 1);
        switch (last) {
            case 'k' -> unit = 1L << 10;
            case 'm' -> unit = 1L << 20;
            case 'g' -> unit = 1L << 30;
            case 't' -> unit = 1L << 40;
            default -> unit = 1;
        }
        if (unit != 1) {
            s = s.substring(0, s.length() - 1);
        }
        try {
            long value = Math.round(Double.parseDouble(s) * unit);
            if (value <= 0) {
                throw new IllegalArgumentException("size must be positive: " + text);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a size (e.g. 4g, 512m): " + text);
        }
    }

    /** Milliseconds from {@code 5s}, {@code 500ms}, {@code 2m}, or a plain number of seconds. */
    public static long parseMillis(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        try {
            long value;
            if (s.endsWith("ms")) {
                value = Math.round(Double.parseDouble(s.substring(0, s.length() - 2)));
            } else if (s.endsWith("s")) {
                value = Math.round(Double.parseDouble(s.substring(0, s.length() - 1)) * 1000);
            } else if (s.endsWith("m")) {
                value = Math.round(Double.parseDouble(s.substring(0, s.length() - 1)) * 60_000);
            } else {
                value = Math.round(Double.parseDouble(s) * 1000);
            }
            if (value <= 0) {
                throw new IllegalArgumentException("duration must be positive: " + text);
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a duration (e.g. 5s, 500ms): " + text);
        }
    }

    /** A JVM size option value in whole MiB, e.g. {@code 512m}. */
    public static String jvmSize(long bytes) {
        return Math.max(1, bytes >> 20) + "m";
    }

    public static String mib(long bytes) {
        return bytes < 0 ? "-" : String.format(Locale.ROOT, "%,d", bytes >> 20);
    }

    public static String size(long bytes) {
        if (bytes % (1L << 30) == 0) {
            return (bytes >> 30) + "g";
        }
        return (bytes >> 20) + "m";
    }

    public static String seconds(long millis) {
        return millis % 1000 == 0 ? (millis / 1000) + "s" : millis + "ms";
    }
}
