package io.grove.bench.experiments;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Where the CPU time of an ordered scan goes when nothing misses the cache: 2,000 pairs of 100-byte keys and
 * 16-byte values (about 300 KB, inside L2) scanned whole, 2,000 times per figure, five rounds, each figure in ns
 * per pair. {@code cursor}: the cursor alone ({@code tailMap(k).size()}, which counts entries with values);
 * {@code iter}: the zero-copy stream's iterator, reading nothing; {@code iter+key}: reading one byte of each key
 * through its handle; {@code iter+key+value}: also a word of each value; {@code stream}: the same through
 * {@code mapToLong().sum()}; {@code forEach}: a key byte and two value words through {@code limit().forEach()}, as the
 * benchmark's stream scans read; {@code set}: the same words through the iterator of {@code zc().entrySet()}, whose
 * elements are new handles each (the benchmark's set scans); {@code keySet}: one key byte through the map's own key
 * set, whose keys are copied to the heap. Options for scans that miss the cache: {@code -Dpairs=N} (2,000; the
 * scans per figure shrink to keep 4M pairs), {@code -Dvalue=N} (16 bytes), {@code -Drandom=true} (keys inserted in
 * random order), {@code -DlayOut=true} (a map built with {@code layOutForScans()}: the first round's scans lay it
 * out).
 * Run: {@code java -cp "bench/target/grove-bench.jar:bench/target/lib/*" io.grove.bench.experiments.ScanParts}.
 */
public final class ScanParts {
    private static final int PAIRS = Integer.getInteger("pairs", 2_000);
    private static final int SCANS = Math.max(1, 4_000_000 / PAIRS);

    private ScanParts() {}

    public static void main(String[] args) {
        GroveSortedMap.Builder<byte[], byte[]> builder =
                GroveSortedMap.builder(Serializers.bytes(), Serializers.bytes()).memoryLimit(4L << 30);
        try (GroveSortedMap<byte[], byte[]> map =
                (Boolean.getBoolean("layOut") ? builder.layOutForScans() : builder).build()) {
            List<Integer> ids = new ArrayList<>();
            for (int i = 0; i < PAIRS; i++) {
                ids.add(i);
            }
            if (Boolean.getBoolean("random")) {
                Collections.shuffle(ids, new Random(1));
            }
            for (int i : ids) {
                byte[] key = new byte[100];
                key[1] = (byte) (i >> 16);
                key[2] = (byte) (i >> 8);
                key[3] = (byte) i;
                map.zc().putIfAbsent(key, new byte[Integer.getInteger("value", 16)]);
            }
            byte[] from = new byte[100];
            double pairs = (double) SCANS * PAIRS;
            for (int round = 0; round < 5; round++) {
                long sink = 0;
                long t0 = System.nanoTime();
                for (int r = 0; r < SCANS; r++) {
                    sink += map.tailMap(from, true).size();
                }
                long t1 = System.nanoTime();
                for (int r = 0; r < SCANS; r++) {
                    for (Iterator<Map.Entry<Handle, Handle>> it = map.zc().tailMap(from, true).entryStream()
                            .iterator(); it.hasNext(); ) {
                        if (it.next() == null) {
                            sink++;
                        }
                    }
                }
                long tIter = System.nanoTime();
                for (int r = 0; r < SCANS; r++) {
                    for (Iterator<Map.Entry<Handle, Handle>> it = map.zc().tailMap(from, true).entryStream()
                            .iterator(); it.hasNext(); ) {
                        sink += it.next().getKey().getByte(3);
                    }
                }
                long t2 = System.nanoTime();
                for (int r = 0; r < SCANS; r++) {
                    for (Iterator<Map.Entry<Handle, Handle>> it = map.zc().tailMap(from, true).entryStream()
                            .iterator(); it.hasNext(); ) {
                        Map.Entry<Handle, Handle> e = it.next();
                        sink += e.getKey().getByte(3) + e.getValue().getLong(0);
                    }
                }
                long t3 = System.nanoTime();
                for (int r = 0; r < SCANS; r++) {
                    sink += map.zc().tailMap(from, true).entryStream()
                            .mapToLong(e -> e.getKey().getByte(3) + e.getValue().getLong(0)).sum();
                }
                long t4 = System.nanoTime();
                long[] sum = new long[1];
                for (int r = 0; r < SCANS; r++) {
                    map.zc().tailMap(from, true).entryStream().limit(PAIRS).forEach(e -> sum[0] +=
                            e.getKey().getByte(3) + e.getValue().getLong(0) + e.getValue().getLong(8));
                }
                long t5 = System.nanoTime();
                for (int r = 0; r < SCANS; r++) {
                    for (Map.Entry<Handle, Handle> e : map.zc().tailMap(from, true).entrySet()) {
                        sink += e.getKey().getByte(3) + e.getValue().getLong(0) + e.getValue().getLong(8);
                    }
                }
                long t6 = System.nanoTime();
                for (int r = 0; r < SCANS; r++) {
                    for (byte[] k : map.tailMap(from, true).keySet()) {
                        sink += k[3];
                    }
                }
                long t7 = System.nanoTime();
                System.out.printf("cursor %.1f  iter %.1f  iter+key %.1f  iter+key+value %.1f  stream %.1f"
                        + "  forEach %.1f  set %.1f  keySet %.1f ns per pair (%d)%n", (t1 - t0) / pairs,
                        (tIter - t1) / pairs, (t2 - tIter) / pairs, (t3 - t2) / pairs, (t4 - t3) / pairs,
                        (t5 - t4) / pairs, (t6 - t5) / pairs, (t7 - t6) / pairs, sink + sum[0]);
            }
        }
    }
}
