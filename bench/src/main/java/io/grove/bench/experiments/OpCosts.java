package io.grove.bench.experiments;

import io.grove.GroveHashMap;
import io.grove.bench.maps.KvRecords;
import io.grove.bench.maps.ThreadBufferSerializer;
import io.grove.serial.Serializers;
import java.util.SplittableRandom;
import net.openhft.chronicle.map.ChronicleMap;

/**
 * What each operation of MapHash's 80/15/5 mix costs on its own, one thread, 1,000,000 records of an 8-byte key and
 * a 248-byte value (the keys of the bench's {@code maphash-80-15-5}, {@link KvRecords#fillKey}): ns per
 * {@code get} of a present key (copied into a reused array), per {@code get} of an absent key ({@code miss}), per
 * {@code put} of a present key (a value of the same size), and per {@code remove} followed by the {@code put} that
 * inserts the key again; four rounds of each for {@code SECONDS} seconds, on random ids.
 *
 * <p>{@code java -Xmx2g [ChronicleKv.JVM_OPTIONS] [--enable-native-access=ALL-UNNAMED] -cp
 * "bench/target/grove-bench.jar:bench/target/lib/*" io.grove.bench.experiments.OpCosts MAP SECONDS}, MAP one of
 * {@code grove} (slots), {@code grove-inline} ({@code inlineEntries(8, 248)}), {@code grove-inline-hp} (also
 * {@code hugePages()}, which needs the native access option), {@code chronicle} (Chronicle Map sized by sample, its
 * {@code getUsing} into a reused array). Grove's puts and removes are the zero-copy API's, as in the bench.
 */
public final class OpCosts {
    private static final int RECORDS = 1_000_000;
    private static final String[] OPERATIONS = {"get", "miss", "put", "remove+insert"};

    private OpCosts() {}

    /** The operations measured, over one map. */
    private interface Ops {
        byte[] get(byte[] key);

        void put(byte[] key, byte[] value);

        void remove(byte[] key);
    }

    public static void main(String[] args) {
        String which = args[0];
        double seconds = Double.parseDouble(args[1]);
        Ops map = which.startsWith("grove") ? grove(which) : chronicle();
        byte[] key = new byte[8];
        byte[] value = new byte[248];
        for (long id = 0; id < RECORDS; id++) {
            keyOf(id, key);
            map.put(key, value);
        }
        SplittableRandom random = new SplittableRandom(1);
        long sink = 0;
        for (int round = 0; round < 4; round++) {
            StringBuilder line = new StringBuilder(which + " round " + round + ", ns per operation:");
            for (String operation : OPERATIONS) {
                long start = System.nanoTime();
                long end = start + (long) (seconds * 1e9);
                long done = 0;
                while (System.nanoTime() < end) {
                    for (int i = 0; i < 1_000; i++) {
                        long id = random.nextLong(RECORDS);
                        switch (operation) {
                            case "get" -> {
                                keyOf(id, key);
                                sink += map.get(key)[0];
                            }
                            case "miss" -> {
                                keyOf(id + RECORDS, key);
                                sink += map.get(key) == null ? 1 : 0;
                            }
                            case "put" -> {
                                keyOf(id, key);
                                value[0] = (byte) id;
                                map.put(key, value);
                            }
                            default -> {
                                keyOf(id, key);
                                map.remove(key);
                                map.put(key, value);
                            }
                        }
                    }
                    done += 1_000;
                }
                line.append(String.format(" %s %.0f", operation, (System.nanoTime() - start) / (double) done));
            }
            System.out.println(line);
        }
        System.out.println("(" + sink + ")");
    }

    private static Ops grove(String which) {
        GroveHashMap.Builder<byte[], byte[]> builder = GroveHashMap.builder(Serializers.bytes(),
                ThreadBufferSerializer.INSTANCE).memoryLimit(3584L << 20).expectedSize(RECORDS);
        if (which.contains("inline")) {
            builder.inlineEntries(8, 248);
        }
        if (which.endsWith("-hp")) {
            builder.hugePages();
        }
        GroveHashMap<byte[], byte[]> map = builder.build();
        return new Ops() {
            @Override
            public byte[] get(byte[] key) {
                return map.get(key);
            }

            @Override
            public void put(byte[] key, byte[] value) {
                map.zc().put(key, value);
            }

            @Override
            public void remove(byte[] key) {
                map.zc().remove(key);
            }
        };
    }

    private static Ops chronicle() {
        ChronicleMap<byte[], byte[]> map = ChronicleMap.of(byte[].class, byte[].class).entries(RECORDS)
                .constantKeySizeBySample(new byte[8]).constantValueSizeBySample(new byte[248]).create();
        byte[] buffer = new byte[248];
        return new Ops() {
            @Override
            public byte[] get(byte[] key) {
                return map.getUsing(key, buffer);
            }

            @Override
            public void put(byte[] key, byte[] value) {
                map.put(key, value);
            }

            @Override
            public void remove(byte[] key) {
                map.remove(key);
            }
        };
    }

    private static void keyOf(long id, byte[] key) {
        KvRecords.fillKey(key, id);
    }
}
