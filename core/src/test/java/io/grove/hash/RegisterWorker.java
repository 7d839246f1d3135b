package io.grove.hash;

import io.grove.GroveHashMap;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * A child JVM of {@link CrossProcessLinearizabilityTest}: process {@code p} of two on one file. Its writer thread puts
 * sequence numbers 1, 2, ... into its own keys {@code p * KEYS_EACH + i} in turn (no other thread of either process
 * writes them); its reader thread gets keys of both processes at random. Each operation is recorded with
 * {@link System#nanoTime} taken before its call and after its return (on Linux a clock shared by every process of the
 * machine). Arguments: file, p, operations per thread, output. Prints {@code ready} once the map is open and starts
 * when a line arrives on its standard input, so that both processes run at once. Writes the history to the output as
 * longs: the number of writes, then per write key, sequence, start, end; the number of reads, then per read key,
 * sequence read, start, end. A failure halts the process with status 3.
 */
public final class RegisterWorker {
    static final int KEYS_EACH = 4;

    private RegisterWorker() {}

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[0]);
        int p = Integer.parseInt(args[1]);
        int operations = Integer.parseInt(args[2]);
        long[] writes = new long[4 * operations];
        long[] reads = new long[4 * operations];
        Thread.setDefaultUncaughtExceptionHandler((thread, failure) -> {
            failure.printStackTrace();
            Runtime.getRuntime().halt(3);
        });
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
            System.out.println("ready");
            System.out.flush();
            if (System.in.read() < 0) {
                throw new IllegalStateException("no start signal");
            }
            Thread writer = new Thread(() -> {
                for (int n = 0; n < operations; n++) {
                    long key = (long) p * KEYS_EACH + n % KEYS_EACH;
                    long seq = n / KEYS_EACH + 1L;
                    long start = System.nanoTime();
                    String old = map.put(key, String.valueOf(seq));
                    long end = System.nanoTime();
                    if (old == null || Long.parseLong(old) != seq - 1) {
                        throw new AssertionError("key " + key + " held " + old + " before " + seq);
                    }
                    record(writes, n, key, seq, start, end);
                }
            });
            Thread reader = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(p);
                for (int n = 0; n < operations; n++) {
                    long key = random.nextInt(2 * KEYS_EACH);
                    long start = System.nanoTime();
                    String value = map.get(key);
                    long end = System.nanoTime();
                    record(reads, n, key, Long.parseLong(value), start, end);
                }
            });
            writer.start();
            reader.start();
            writer.join();
            reader.join();
        }
        try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(Path.of(args[3])))) {
            write(out, writes);
            write(out, reads);
        }
    }

    private static void record(long[] history, int n, long key, long seq, long start, long end) {
        history[4 * n] = key;
        history[4 * n + 1] = seq;
        history[4 * n + 2] = start;
        history[4 * n + 3] = end;
    }

    private static void write(DataOutputStream out, long[] history) {
        try {
            out.writeLong(history.length / 4);
            for (long v : history) {
                out.writeLong(v);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
