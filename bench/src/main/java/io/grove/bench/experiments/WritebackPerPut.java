package io.grove.bench.experiments;

import io.grove.GroveHashMap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.openhft.chronicle.map.ChronicleMap;

/**
 * What a put costs the kernel's writeback in a large table in a file: fills {@code RECORDS} MapHash records
 * ({@link ReopenTime}'s), then times {@code PUTS} puts of same-size values on random present keys, and reports per
 * put the pages the kernel saw dirtied ({@code nr_dirtied} of {@code /proc/vmstat}: a clean page written, so each
 * counts a write fault and, later, a page written back), the pages it wrote ({@code nr_written}) and the bytes the
 * process caused to be written ({@code write_bytes} of {@code /proc/self/io}). {@code grove FILE RECORDS PUTS}
 * uses Grove's hash map in a new file, {@code chronicle FILE RECORDS PUTS} Chronicle Map persisted to it (with
 * {@code ChronicleKv.jvmOptions()}); {@code grove-reopened FILE RECORDS PUTS} runs the puts only, on a file that
 * {@code ReopenTime fill} made (drop the page cache before, for a cold reopen). Run with the machine's own writeback
 * settings, and nothing else writing.
 *
 * <pre>
 * java -Xmx1g -cp "$CP" io.grove.bench.experiments.WritebackPerPut grove /tmp/big.grove 20000000 2000000
 * </pre>
 */
public final class WritebackPerPut {
    private WritebackPerPut() {}

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[1]);
        long records = Long.parseLong(args[2]);
        long puts = Long.parseLong(args[3]);
        if (args[0].equals("grove-reopened")) {
            try (GroveHashMap<Long, byte[]> map = ReopenTime.builder(file, records).build()) {
                puts(map, records, puts);
            }
            return;
        }
        Files.deleteIfExists(file);
        if (args[0].equals("grove")) {
            try (GroveHashMap<Long, byte[]> map = ReopenTime.builder(file, records).build()) {
                measure(map, records, puts);
            }
        } else {
            try (ChronicleMap<Long, byte[]> map = ChronicleMap.of(Long.class, byte[].class).name("writeback")
                    .entries(records).constantValueSizeBySample(new byte[ReopenTime.VALUE])
                    .createPersistedTo(file.toFile())) {
                measure(map, records, puts);
            }
        }
        Files.deleteIfExists(file);
    }

    private static void measure(Map<Long, byte[]> map, long records, long puts) throws IOException {
        long filled = System.nanoTime();
        ReopenTime.fill(map, records);
        System.out.printf("fill: %,d ms%n", (System.nanoTime() - filled) / 1_000_000);
        puts(map, records, puts);
    }

    private static void puts(Map<Long, byte[]> map, long records, long puts) throws IOException {
        long dirtied = vmstat("nr_dirtied");
        long written = vmstat("nr_written");
        long bytes = writeBytes();
        SplittableRandom random = new SplittableRandom(7);
        byte[] value = new byte[ReopenTime.VALUE];
        long start = System.nanoTime();
        for (long i = 0; i < puts; i++) {
            value[1] = (byte) i;
            map.put(random.nextLong(records), value);
        }
        long nanos = System.nanoTime() - start;
        System.out.printf("%,d puts: %,d ms, %,.0f puts/s; per put: %.2f pages dirtied, %.2f pages written,"
                + " %,.0f bytes written by the process%n", puts, nanos / 1_000_000, puts * 1e9 / nanos,
                (vmstat("nr_dirtied") - dirtied) / (double) puts, (vmstat("nr_written") - written) / (double) puts,
                (writeBytes() - bytes) / (double) puts);
    }

    private static long vmstat(String name) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/vmstat"))) {
            if (line.startsWith(name + " ")) {
                return Long.parseLong(line.substring(name.length() + 1).trim());
            }
        }
        throw new IllegalStateException(name + " not in /proc/vmstat");
    }

    private static long writeBytes() throws IOException {
        List<String> lines = Files.readAllLines(Path.of("/proc/self/io"));
        for (String line : lines) {
            if (line.startsWith("write_bytes:")) {
                return Long.parseLong(line.substring("write_bytes:".length()).trim());
            }
        }
        throw new IllegalStateException("no write_bytes in /proc/self/io");
    }
}
