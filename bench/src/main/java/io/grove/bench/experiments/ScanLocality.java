package io.grove.bench.experiments;

import io.grove.GroveSortedMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import java.util.Arrays;
import java.util.Collections;
import java.util.Random;

/**
 * How much an ordered scan of {@link GroveSortedMap} depends on where its keys and values lie in memory: the same
 * 400,000 pairs (100-byte keys, 1,000-byte values) inserted in random order, then in ascending order (so that the
 * slices of neighbouring keys are neighbours in memory), then zero-copy scans of 10,000 pairs from random keys for
 * 3 seconds each, twice. {@code -DlayOut=true} builds the maps with {@code layOutForScans()}, whose first scans
 * lay the pairs out in key order within the 3 seconds (the first map of a run also pays the JIT's warm-up, so its
 * figure is the lowest; {@code -Drounds=N} scans each map for N such phases). Run: {@code java -cp
 * "bench/target/grove-bench.jar:bench/target/lib/*" io.grove.bench.experiments.ScanLocality}.
 */
public final class ScanLocality {
    private static final int PAIRS = Integer.getInteger("pairs", 400_000);
    private static final int SCAN = Math.min(10_000, PAIRS / 2);
    private static final int VALUE = Integer.getInteger("value", 1000);
    private static final boolean HUGE = Boolean.getBoolean("huge");
    private static final boolean LAY_OUT = Boolean.getBoolean("layOut");
    private static final String[] ORDERS = System.getProperty("orders", "random,ascending,random,ascending").split(",");
    private static final int ROUNDS = Integer.getInteger("rounds", 1);
    private static final long MEMORY = Long.getLong("memoryMiB", 2048) << 20;
    private static final boolean LAST_WORD = Boolean.getBoolean("lastWord");

    private ScanLocality() {}

    public static void main(String[] args) {
        for (String order : ORDERS) {
            Integer[] ids = new Integer[PAIRS];
            Arrays.setAll(ids, i -> i);
            if (order.equals("random")) {
                Collections.shuffle(Arrays.asList(ids), new Random(1));
            }
            try (MemoryPool pool = MemoryPool.builder().memoryLimit(MEMORY).hugePages(HUGE).build();
                    GroveSortedMap<byte[], byte[]> map = layOut(GroveSortedMap.builder(Serializers.bytes(),
                            Serializers.bytes()).pool(pool)).build()) {
                byte[] value = new byte[VALUE];
                for (int id : ids) {
                    map.zc().putIfAbsent(key(id), value);
                }
                Random random = new Random(2);
                for (int round = 0; round < ROUNDS; round++) {
                    long checksum = 0;
                    int scans = 0;
                    long start = System.nanoTime();
                    while (System.nanoTime() - start < 3_000_000_000L) {
                        checksum += map.zc().tailMap(key(random.nextInt(PAIRS - SCAN)), true).entryStream()
                                .limit(SCAN).mapToLong(e -> e.getKey().getByte(3) + e.getValue().getLong(0)
                                        + (LAST_WORD ? e.getValue().getLong(VALUE - 8) : 0)).sum();
                        scans++;
                    }
                    double seconds = (System.nanoTime() - start) / 1e9;
                    System.out.printf("inserted in %s order: %.0f scans of %d pairs per second, %.1f ns per pair"
                            + " (checksum %d)%n", order, scans / seconds, SCAN, seconds * 1e9 / scans / SCAN,
                            checksum);
                }
            }
        }
    }

    private static <K, V> GroveSortedMap.Builder<K, V> layOut(GroveSortedMap.Builder<K, V> builder) {
        return LAY_OUT ? builder.layOutForScans() : builder;
    }

    /** Oak's 100-byte key of {@code id}: the id big-endian in its first 4 bytes, zeros after. */
    static byte[] key(int id) {
        byte[] key = new byte[100];
        key[0] = (byte) (id >>> 24);
        key[1] = (byte) (id >>> 16);
        key[2] = (byte) (id >>> 8);
        key[3] = (byte) id;
        return key;
    }
}
