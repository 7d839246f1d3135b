package io.grove.hash;

import io.grove.GroveHashMap;
import io.grove.view.ResizableView;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A child JVM of {@link SharedFileStressTest}: one of several processes that write one file at once, each until it is
 * killed. Arguments: file, worker, workers, threads, keys, counters, seed.
 *
 * <p>Thread {@code t} of worker {@code w} is writer {@code g = w * threads + t} of {@code G = workers * threads}, and
 * owns the keys {@code k < keys} with {@code k % G == g}: no other thread of any process writes them, so it checks
 * its own reads exactly. It first reads each of them and prints {@code s g key value} ({@code -} when absent), what a
 * killed predecessor left; then, until the kill, it prints {@code b g key op} before an operation (as
 * {@link CrashWriter}: a sequence number for a put of {@link CrashWriter#value}, {@link CrashWriter#REMOVE},
 * {@link CrashWriter#TOGGLE} for a zero-copy in-place {@link CrashWriter#toggle}) and {@code a g micros} once it
 * returned, and after each operation on its own key reads the key back and compares it with what it must hold. The
 * shared counters, keys {@code -1, -2, ...}, hold {@link #COUNTER_DIGITS} decimal digits that any thread increments
 * in place ({@link #INCREMENT}: {@code b g key -3}). Any exception or a wrong read prints {@code BAD g ...} and halts
 * the process with status 3. Each line is one unbuffered write ({@link CrashWriter#print}).
 */
public final class SharedWriter {
    /** The operation code of a counter's increment. */
    static final long INCREMENT = -3;
    /** The digits of a counter's value. */
    static final int COUNTER_DIGITS = 20;

    private SharedWriter() {}

    /** Counter {@code c}'s key. */
    static long counterKey(int c) {
        return -1L - c;
    }

    /** A counter's value for {@code count}. */
    static String counterValue(long count) {
        return String.format("%0" + COUNTER_DIGITS + "d", count);
    }

    public static void main(String[] args) throws InterruptedException {
        Path file = Path.of(args[0]);
        int worker = Integer.parseInt(args[1]);
        int workers = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        int keys = Integer.parseInt(args[4]);
        int counters = Integer.parseInt(args[5]);
        long seed = Long.parseLong(args[6]);
        GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build(); // never closed: killed
        CrashWriter.print(CrashWriter.READY);
        int writers = workers * threads;
        Thread[] running = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int g = worker * threads + t;
            SplittableRandom random = new SplittableRandom(seed * 1_000 + t);
            running[t] = new Thread(() -> {
                try {
                    write(map, g, writers, keys, counters, random);
                } catch (Throwable failure) {
                    StringWriter trace = new StringWriter();
                    failure.printStackTrace(new PrintWriter(trace));
                    CrashWriter.print("BAD " + g + " " + trace.toString().replace('\n', '|'));
                    Runtime.getRuntime().halt(3);
                }
            });
            running[t].start();
        }
        for (Thread thread : running) {
            thread.join();
        }
    }

    private static void write(GroveHashMap<Long, String> map, int g, int writers, int keys, int counters,
            SplittableRandom random) {
        Map<Long, String> mine = new HashMap<>();
        for (long k = g; k < keys; k += writers) {
            String value = map.get(k);
            mine.put(k, value);
            CrashWriter.print("s " + g + " " + k + " " + (value == null ? "-" : value));
        }
        int owned = mine.size();
        for (long seq = 0; ; seq++) {
            long key = g + (long) random.nextInt(owned) * writers;
            int choice = random.nextInt(10);
            if (choice == 0) {
                key = counterKey(random.nextInt(counters));
            }
            long op = choice == 0 ? INCREMENT : choice < 3 ? CrashWriter.REMOVE : choice < 5 ? CrashWriter.TOGGLE : seq;
            CrashWriter.print("b " + g + " " + key + " " + op);
            long started = System.nanoTime();
            if (op == INCREMENT) {
                if (!map.zc().computeIfPresent(key, SharedWriter::increment)) {
                    throw new AssertionError("counter " + key + " is absent");
                }
            } else if (op == CrashWriter.REMOVE) {
                map.remove(key);
                mine.put(key, null);
            } else if (op == CrashWriter.TOGGLE) {
                map.zc().computeIfPresent(key, CrashWriter::toggleInPlace);
                mine.computeIfPresent(key, (k, v) -> CrashWriter.toggle(v));
            } else {
                map.put(key, CrashWriter.value(key, op));
                mine.put(key, CrashWriter.value(key, op));
            }
            long micros = (System.nanoTime() - started) / 1_000;
            if (op != INCREMENT && !Objects.equals(mine.get(key), map.get(key))) {
                throw new AssertionError("key " + key + " reads " + map.get(key) + ", wrote " + mine.get(key));
            }
            CrashWriter.print("a " + g + " " + micros);
        }
    }

    /** Adds one to the decimal digits of a counter's value, in place. */
    private static void increment(ResizableView view) {
        for (int i = COUNTER_DIGITS - 1; i >= 0; i--) {
            byte digit = view.getByte(i);
            if (digit != '9') {
                view.putByte(i, (byte) (digit + 1));
                return;
            }
            view.putByte(i, (byte) '0');
        }
    }
}
