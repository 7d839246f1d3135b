package io.grove.bench.experiments;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.Random;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ordered scans while one thread writes (the mixed workload the ordered-scans work asks to measure besides Oak's
 * read-only scans): Oak's pairs (100-byte keys, 1,000-byte values, a range of {@code -Dkeys} keys half of which is
 * inserted in random order first), then three phases of {@code -Dseconds} each: one thread scanning alone
 * (ascending scans of 10,000 pairs from random keys, each pair's key byte and first value word read), the same
 * scanner with one writer putting random keys of the range (inserts and replacements, so chunks split and
 * values are replaced under the scans), and the writer alone. Grove's ordered map scans through
 * {@code zc().tailMap(..).entryStream()}, {@code ConcurrentSkipListMap} through {@code tailMap(..).entrySet()}.
 * Throw-away: not wired into {@code ./grove bench}. Run one JVM per map:
 * {@code java -Xmx512m -cp "bench/target/grove-bench.jar:bench/target/lib/*"
 * io.grove.bench.experiments.ScansUnderWrites grove} and {@code java -Xmx4g ... ScansUnderWrites cslm}.
 */
public final class ScansUnderWrites {
    private static final int KEYS = Integer.getInteger("keys", 400_000);
    private static final int SCAN = 10_000;
    private static final int MARGIN = 25_000;
    private static final int VALUE = 1_000;
    private static final long PHASE_NANOS = Long.getLong("seconds", 3) * 1_000_000_000L;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private ScansUnderWrites() {}

    /** The map under test: a put, and a scan of {@value #SCAN} pairs from a key that returns a checksum. */
    private interface ScannedMap extends AutoCloseable {
        void put(byte[] key, byte[] value);

        long scan(byte[] from);

        @Override
        void close();
    }

    public static void main(String[] args) throws InterruptedException {
        try (ScannedMap map = args.length > 0 && args[0].equals("cslm") ? cslm() : grove()) {
            Integer[] ids = new Integer[KEYS];
            Arrays.setAll(ids, i -> i);
            Collections.shuffle(Arrays.asList(ids), new Random(1));
            byte[] value = new byte[VALUE];
            for (int i = 0; i < KEYS / 2; i++) {
                map.put(ScanLocality.key(ids[i]), value);
            }
            String name = args.length > 0 ? args[0] : "grove";
            report(name, "scans alone", phase(map, true, false));
            report(name, "scans with one writer", phase(map, true, true));
            report(name, "writer alone", phase(map, false, true));
        }
    }

    /**
     * Runs a phase with a scanner and/or a writer: {scans, puts, checksum, scans cut short} done in it. A scan whose
     * zero-copy read meets a value the writer replaced since the scan reached it throws
     * {@link ConcurrentModificationException}, as the zero-copy API promises; it counts as a scan, cut short.
     */
    private static long[] phase(ScannedMap map, boolean scanning, boolean writing) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong scans = new AtomicLong();
        AtomicLong puts = new AtomicLong();
        AtomicLong sink = new AtomicLong();
        AtomicLong cut = new AtomicLong();
        Thread scanner = new Thread(() -> {
            Random random = new Random(2);
            long n = 0;
            for (; !stop.get(); n++) {
                try {
                    sink.addAndGet(map.scan(ScanLocality.key(random.nextInt(KEYS - MARGIN))));
                } catch (ConcurrentModificationException replaced) {
                    cut.incrementAndGet(); // a zero-copy handle read a value the writer replaced meanwhile
                }
            }
            scans.set(n);
        });
        Thread writer = new Thread(() -> {
            Random random = new Random(3);
            byte[] value = new byte[VALUE];
            long n = 0;
            for (; !stop.get(); n++) {
                LONGS.set(value, 0, n);
                map.put(ScanLocality.key(random.nextInt(KEYS)), value);
            }
            puts.set(n);
        });
        if (scanning) {
            scanner.start();
        }
        if (writing) {
            writer.start();
        }
        Thread.sleep(PHASE_NANOS / 1_000_000);
        stop.set(true);
        if (scanning) {
            scanner.join();
        }
        if (writing) {
            writer.join();
        }
        return new long[] {scans.get(), puts.get(), sink.get(), cut.get()};
    }

    private static void report(String map, String phase, long[] done) {
        double seconds = PHASE_NANOS / 1e9;
        System.out.printf("%s, %s: %.1f scans/s (%d cut short), %.0f puts/s (checksum %d)%n", map, phase,
                done[0] / seconds, done[3], done[1] / seconds, done[2]);
    }

    private static ScannedMap grove() {
        GroveSortedMap<byte[], byte[]> map = GroveSortedMap.builder(Serializers.bytes(), Serializers.bytes())
                .memoryLimit(2L << 30).build();
        return new ScannedMap() {
            @Override
            public void put(byte[] key, byte[] value) {
                map.zc().put(key, value);
            }

            @Override
            public long scan(byte[] from) {
                return map.zc().tailMap(from, true).entryStream().limit(SCAN)
                        .mapToLong(e -> e.getKey().getByte(3) + e.getValue().getLong(0)).sum();
            }

            @Override
            public void close() {
                map.close();
            }
        };
    }

    private static ScannedMap cslm() {
        ConcurrentNavigableMap<byte[], byte[]> map = new ConcurrentSkipListMap<>(Arrays::compareUnsigned);
        return new ScannedMap() {
            @Override
            public void put(byte[] key, byte[] value) {
                map.put(key, value.clone());
            }

            @Override
            public long scan(byte[] from) {
                return map.tailMap(from, true).entrySet().stream().limit(SCAN)
                        .mapToLong(e -> e.getKey()[3] + (long) LONGS.get(e.getValue(), 0)).sum();
            }

            @Override
            public void close() {
                map.clear();
            }
        };
    }
}
