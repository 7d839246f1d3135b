package io.grove.hash;

import io.grove.GroveHashMap;
import io.grove.testing.History;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * A child JVM of {@link CrossProcessLinearizabilityTest}: process {@code p} of two on one file, whose {@link #THREADS}
 * threads (writers {@code p * THREADS + t} of the history) put, remove and get random keys of {@link #KEYS}, all
 * shared with the other process. Each operation is recorded with {@link System#nanoTime} taken before its call and
 * after its return (on Linux a clock that every process of the machine shares). Each put writes a value no other
 * operation of either process writes ({@code (writer + 1) << 32 | n}, as {@code History.Recorder#newValue}).
 * Arguments: file, p, operations per thread, output. Prints {@code ready} once the map is open and starts when a
 * line arrives on its standard input, so that both processes run at once. Writes each thread's operations to the
 * output as longs: their number, then per operation its kind ({@link #PUT}, {@link #REMOVE}, {@link #GET}), key,
 * value put, result ({@link History#ABSENT} for none), invocation and response. A failure halts the process with
 * status 3.
 */
public final class HistoryWorker {
    static final int THREADS = 2;
    static final int KEYS = 8;
    static final long PUT = 0;
    static final long REMOVE = 1;
    static final long GET = 2;
    static final int FIELDS = 6;

    private HistoryWorker() {}

    public static void main(String[] args) throws Exception {
        int p = Integer.parseInt(args[1]);
        int operations = Integer.parseInt(args[2]);
        Thread.setDefaultUncaughtExceptionHandler((thread, failure) -> {
            failure.printStackTrace();
            Runtime.getRuntime().halt(3);
        });
        long[][] histories = new long[THREADS][FIELDS * operations];
        try (GroveHashMap<Long, String> map = CrashWriter.builder(Path.of(args[0]), false).build()) {
            System.out.println("ready");
            System.out.flush();
            if (System.in.read() < 0) {
                throw new IllegalStateException("no start signal");
            }
            Thread[] threads = new Thread[THREADS];
            for (int t = 0; t < THREADS; t++) {
                int writer = p * THREADS + t;
                long[] history = histories[t];
                threads[t] = new Thread(() -> {
                    SplittableRandom random = new SplittableRandom(writer);
                    for (int n = 0; n < operations; n++) {
                        long key = random.nextInt(KEYS);
                        int choice = random.nextInt(10);
                        long kind = choice < 4 ? PUT : choice < 6 ? REMOVE : GET;
                        long value = kind == PUT ? ((long) (writer + 1) << 32) | (n + 1) : History.ABSENT;
                        long invoked = System.nanoTime();
                        String result = kind == PUT ? map.put(key, Long.toString(value))
                                : kind == REMOVE ? map.remove(key) : map.get(key);
                        long responded = System.nanoTime();
                        int at = FIELDS * n;
                        history[at] = kind;
                        history[at + 1] = key;
                        history[at + 2] = value;
                        history[at + 3] = result == null ? History.ABSENT : Long.parseLong(result);
                        history[at + 4] = invoked;
                        history[at + 5] = responded;
                    }
                });
                threads[t].start();
            }
            for (Thread thread : threads) {
                thread.join();
            }
        }
        try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(Path.of(args[3])))) {
            for (long[] history : histories) {
                out.writeLong(operations);
                for (long v : history) {
                    out.writeLong(v);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
