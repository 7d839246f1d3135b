package io.grove.bench.experiments;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import net.openhft.chronicle.map.ChronicleMap;

/**
 * How long a large hash map in a file takes to come back: {@code fill FILE RECORDS} builds a file of MapHash records
 * (8-byte key = the id, 248-byte value) with one thread and closes it; {@code reopen FILE RECORDS} then measures, in
 * a fresh JVM, the time to open the file, the first get, 1,000,000 random gets, and a full zero-copy scan of the
 * entries (each value's first word read), printing each in milliseconds. Whether the file's pages are in the page
 * cache at the reopen is up to the caller (drop them between the two steps for a cold reopen, where the system
 * allows: {@code sync; echo 1 > /proc/sys/vm/drop_caches}). {@code fill-chronicle FILE RECORDS} fills a Chronicle
 * Map persisted to the file with the same records instead, to compare the two fills against the kernel's writeback.
 * {@code fill-kill FILE RECORDS} fills as {@code fill} does and then halts the JVM without closing the map, as a
 * killed process leaves the file: the {@code reopen} after it recovers the file (its log says in how long).
 *
 * <pre>
 * CP="bench/target/grove-bench.jar:bench/target/lib/*"
 * java -Xmx1g -cp "$CP" io.grove.bench.experiments.ReopenTime fill /tmp/big.grove 20000000
 * java -Xmx1g -cp "$CP" io.grove.bench.experiments.ReopenTime reopen /tmp/big.grove 20000000
 * </pre>
 */
public final class ReopenTime {
    static final int VALUE = 248;

    private ReopenTime() {}

    static GroveHashMap.Builder<Long, byte[]> builder(Path file, long records) {
        return GroveHashMap.builder(Serializers.longs(), Serializers.bytes()).file(file)
                .maxFileSize(records * 400 + (1L << 30)).expectedSize(records);
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args[1]);
        long records = Long.parseLong(args[2]);
        if (args[0].equals("fill") || args[0].equals("fill-kill")) {
            Files.deleteIfExists(file);
            long start = System.nanoTime();
            try (GroveHashMap<Long, byte[]> map = builder(file, records).build()) {
                fill(map, records);
                System.out.printf("fill: %,d records in %,d ms; %s%n", records, millis(start), map.footprint());
                if (args[0].equals("fill-kill")) {
                    System.out.flush();
                    Runtime.getRuntime().halt(0); // as a kill would leave it: not closed
                }
            }
            System.out.printf("fill and close: %,d ms; file %,d bytes (apparent)%n", millis(start), Files.size(file));
            return;
        }
        if (args[0].equals("fill-chronicle")) {
            fillChronicle(file, records);
            return;
        }
        long start = System.nanoTime();
        try (GroveHashMap<Long, byte[]> map = builder(file, records).build()) {
            long opened = System.nanoTime();
            byte[] first = map.get(records / 2);
            long firstGet = System.nanoTime();
            System.out.printf("open: %.1f ms; first get: %.3f ms (%s); size %,d%n", (opened - start) / 1e6,
                    (firstGet - opened) / 1e6, first == null ? "missing" : "found", map.size());
            SplittableRandom random = new SplittableRandom(1);
            long gets = System.nanoTime();
            long found = 0;
            for (int i = 0; i < 1_000_000; i++) {
                found += map.get(random.nextLong(records)) == null ? 0 : 1;
            }
            System.out.printf("1,000,000 random gets: %,d ms (%,d found)%n", millis(gets), found);
            long scan = System.nanoTime();
            long entries = 0;
            long sum = 0;
            for (Map.Entry<Handle, Handle> e : map.zc().entrySet()) {
                sum += e.getValue().read(v -> v.getByte(0));
                entries++;
            }
            System.out.printf("zero-copy scan: %,d entries in %,d ms (checksum %d)%n", entries, millis(scan), sum);
        }
        System.out.printf("total: %,d ms%n", millis(start));
    }

    /**
     * The fill with Chronicle Map persisted to {@code file} instead ({@code createPersistedTo}, same records, entries
     * = records), to compare how the two fare against the kernel's writeback. Needs Chronicle's JVM options
     * ({@code ChronicleKv.jvmOptions()}).
     */
    private static void fillChronicle(Path file, long records) throws IOException {
        Files.deleteIfExists(file);
        long start = System.nanoTime();
        try (ChronicleMap<Long, byte[]> map = ChronicleMap.of(Long.class, byte[].class).name("reopen").entries(records)
                .constantValueSizeBySample(new byte[VALUE]).createPersistedTo(file.toFile())) {
            fill(map, records);
            System.out.printf("fill: %,d records in %,d ms%n", records, millis(start));
        }
    }

    /** Puts records 0 to {@code records - 1}, printing the time of each million. */
    static void fill(Map<Long, byte[]> map, long records) {
        byte[] value = new byte[VALUE];
        long step = System.nanoTime();
        for (long id = 0; id < records; id++) {
            value[0] = (byte) id;
            map.put(id, value);
            if ((id + 1) % 1_000_000 == 0) {
                System.out.printf("  %,d records: %,d ms for the last million%n", id + 1, millis(step));
                step = System.nanoTime();
            }
        }
    }

    private static long millis(long since) {
        return (System.nanoTime() - since) / 1_000_000;
    }
}
