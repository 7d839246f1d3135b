package io.grove.hash;

import io.grove.GroveHashMap;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A child JVM of {@link SharedFileTest}: opens the bounded map in the file (argument 1) with
 * {@link #builder}, prints {@code ready}, waits for a line on its standard input, then puts keys {@code from} to
 * {@code from + count - 1} (arguments 2 and 3), each once, with two threads; prints {@code evicted N}, the evictions
 * its own listener was told of, and closes the map.
 */
public final class BoundedWriter {
    static final long BOUND = 500;

    private BoundedWriter() {}

    /** A map of {@link #BOUND} entries at most in {@code file}, whose evictions {@code evicted} counts. */
    static GroveHashMap<Long, String> open(Path file, AtomicLong evicted) {
        return CrashWriter.builder(file, false).maximumSize(BOUND).evictionListener((k, v) -> evicted.incrementAndGet())
                .build();
    }

    public static void main(String[] args) throws Exception {
        long from = Long.parseLong(args[1]);
        long count = Long.parseLong(args[2]);
        AtomicLong evicted = new AtomicLong();
        try (GroveHashMap<Long, String> map = open(Path.of(args[0]), evicted)) {
            System.out.println("ready");
            System.out.flush();
            if (System.in.read() < 0) {
                throw new IllegalStateException("no start signal");
            }
            SharedFileTest.putEach(map, from, count);
            System.out.println("evicted " + evicted.get());
        }
    }
}
