package io.grove.hash;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.view.ResizableView;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * The child JVM of {@link CrashTest}: opens (or recovers) the map in the file, then writes with several threads
 * until it is killed, printing each operation before it starts and once it has returned.
 *
 * <p>Arguments: file, threads, keys, seed, cells ({@code true}: the table keeps entries in its cells,
 * {@link #builder}). Thread {@code t} owns the keys {@code k} with {@code k % threads == t},
 * so the lines of one thread tell the state of its keys: {@code b t key seq} before a put of {@link #value},
 * {@code b t key -1} before a remove, {@code b t key -2} before a zero-copy in-place update that {@link #toggle}s the
 * value, if present, byte by byte and slowly (so that kills often fall inside one); {@code a t} after it returned.
 * Each line is one unbuffered write, so a line in the output was written before the kill, and an {@code a} line
 * only after its operation returned.
 */
public final class CrashWriter {
    /** Printed once the map is open. */
    static final String READY = "ready";

    private static final FileOutputStream OUT = new FileOutputStream(FileDescriptor.out);

    private CrashWriter() {}

    /** The value a put with sequence number {@code seq} writes for {@code key}: its length varies with both. */
    static String value(long key, long seq) {
        String head = key + ":" + seq + ":";
        return head + "x".repeat((int) ((key * 31 + seq * 7) % 300));
    }

    /** Operation codes in place of a sequence number. */
    static final long REMOVE = -1;
    static final long TOGGLE = -2;

    /** The value of {@code key} after operation {@code op} on {@code value} ({@code null}: absent). */
    static String after(long key, String value, long op) {
        if (op == REMOVE) {
            return null;
        }
        if (op == TOGGLE) {
            return value == null ? null : toggle(value);
        }
        return value(key, op);
    }

    /** A value after an in-place toggle: each {@code x} after the second colon becomes {@code y} and back. */
    static String toggle(String value) {
        int tail = value.indexOf(':', value.indexOf(':') + 1) + 1;
        StringBuilder toggled = new StringBuilder(value.substring(0, tail));
        for (int i = tail; i < value.length(); i++) {
            toggled.append(value.charAt(i) == 'x' ? 'y' : 'x');
        }
        return toggled.toString();
    }

    /**
     * The map's builder; with {@code cells}, entries whose values take at most 160 bytes lie in the table's cells
     * (about half of {@link #value}'s values, so puts move entries between cells and slices of their own, and the
     * zero-copy updates move entries out of their cells).
     */
    public static GroveHashMap.Builder<Long, String> builder(Path file, boolean cells) {
        GroveHashMap.Builder<Long, String> builder = GroveHashMap.builder(Serializers.longs(), Serializers.strings())
                .file(file).maxFileSize(256L << 20).expectedSize(64);
        return cells ? builder.inlineEntries(Long.BYTES, 160) : builder;
    }

    public static void main(String[] args) throws InterruptedException {
        Path file = Path.of(args[0]);
        int threads = Integer.parseInt(args[1]);
        int keys = Integer.parseInt(args[2]);
        long seed = Long.parseLong(args[3]);
        boolean cells = Boolean.parseBoolean(args[4]);
        GroveHashMap<Long, String> map = builder(file, cells).build(); // never closed: the process is killed
        print(READY);
        Thread[] writers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int id = t;
            SplittableRandom random = new SplittableRandom(seed * 1_000 + t);
            writers[t] = new Thread(() -> {
                for (long seq = 0; ; seq++) {
                    long key = (long) random.nextInt(keys / threads) * threads + id;
                    int choice = random.nextInt(10);
                    long op = choice < 2 ? REMOVE : choice < 5 ? TOGGLE : seq;
                    print("b " + id + " " + key + " " + op);
                    if (op == REMOVE) {
                        map.remove(key);
                    } else if (op == TOGGLE) {
                        map.zc().computeIfPresent(key, view -> toggleInPlace(view));
                    } else {
                        map.put(key, value(key, seq));
                    }
                    print("a " + id);
                }
            });
            writers[t].start();
        }
        for (Thread writer : writers) {
            writer.join();
        }
    }

    /** {@link #toggle} on the value's bytes, one at a time, with a pause after each. */
    static void toggleInPlace(ResizableView view) {
        int colons = 0;
        for (int i = 0; i < view.size(); i++) {
            byte b = view.getByte(i);
            if (colons < 2) {
                colons += b == ':' ? 1 : 0;
                continue;
            }
            view.putByte(i, (byte) (b == 'x' ? 'y' : 'x'));
            for (int spin = 0; spin < 200; spin++) {
                Thread.onSpinWait();
            }
        }
    }

    static void print(String line) {
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.US_ASCII);
        try {
            synchronized (OUT) {
                OUT.write(bytes);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
