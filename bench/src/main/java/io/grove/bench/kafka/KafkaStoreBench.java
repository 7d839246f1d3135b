package io.grove.bench.kafka;

import io.grove.MemoryPool;
import io.grove.kafka.GroveStores;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * One run of a Kafka Streams topology on one kind of key-value store, in this JVM: Grove's store, Kafka's
 * in-memory store or its RocksDB store. The topology keeps, per key, the latest value and the number of updates
 * (a {@code reduce} over records whose 8-byte count prefixes the value), so the store holds one entry per key and
 * every record is a read and a write of it. Records come through {@link TopologyTestDriver} (no broker); the
 * store's changelog is off (the driver would keep every changelog record on the heap), the record cache is
 * Kafka's default (10 MB).
 *
 * <p>Prints one line: store, records, keys, value bytes, records per second over the timed part (after a warm-up of
 * {@code keys} records), the heap used after a full GC once all records are in, the memory Grove's pool reserved
 * and holds live (0 for the other stores; RocksDB's native memory is not measured here), and the store's entry
 * count (RocksDB's is an estimate). Run each store in its
 * own JVM, e.g. {@code java -Xmx4g -cp "bench/target/grove-bench.jar:bench/target/lib/*"
 * io.grove.bench.kafka.KafkaStoreBench grove 3000000 1000000 100}.
 */
public final class KafkaStoreBench {
    private static final String STORE = "latest";

    private KafkaStoreBench() {}

    public static void main(String[] args) throws IOException {
        String kind = args[0];
        long records = Long.parseLong(args[1]);
        int keys = Integer.parseInt(args[2]);
        int valueSize = Integer.parseInt(args[3]);
        Path stateDir = Files.createTempDirectory("grove-kafka-bench-");
        try {
            run(kind, records, keys, valueSize, stateDir);
        } finally {
            try (Stream<Path> files = Files.walk(stateDir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    private static KeyValueBytesStoreSupplier supplier(String kind, MemoryPool pool) {
        return switch (kind) {
            case "grove" -> GroveStores.keyValueStore(STORE, pool);
            case "in-memory" -> Stores.inMemoryKeyValueStore(STORE);
            case "rocksdb" -> Stores.persistentKeyValueStore(STORE);
            default -> throw new IllegalArgumentException("store kind: grove, in-memory or rocksdb, not " + kind);
        };
    }

    private static void run(String kind, long records, int keys, int valueSize, Path stateDir) {
        try (MemoryPool pool = MemoryPool.builder().build()) { // Grove's store draws on it, to read its footprint
            run(kind, records, keys, valueSize, stateDir, pool);
        }
    }

    private static void run(String kind, long records, int keys, int valueSize, Path stateDir, MemoryPool pool) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("updates", Consumed.with(Serdes.String(), Serdes.ByteArray()))
                .groupByKey()
                .reduce(KafkaStoreBench::countAndKeepLatest,
                        Materialized.<String, byte[]>as(supplier(kind, pool))
                                .withKeySerde(Serdes.String())
                                .withValueSerde(Serdes.ByteArray())
                                .withLoggingDisabled());
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "grove-kafka-bench");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props)) {
            TestInputTopic<String, byte[]> updates = driver.createInputTopic("updates", Serdes.String().serializer(),
                    Serdes.ByteArray().serializer());
            String[] keyNames = new String[keys];
            for (int i = 0; i < keys; i++) {
                keyNames[i] = "user" + Long.toHexString(mix(i));
            }
            byte[] value = new byte[valueSize];
            long rnd = 42;
            long warmUp = Math.min(records, keys);
            long start = 0;
            for (long n = 0; n < records; n++) {
                if (n == warmUp) {
                    start = System.nanoTime();
                }
                rnd = mix(rnd + n);
                // the first pass over the keys inserts every key; later records update uniformly random ones
                int key = n < keys ? (int) n : (int) Long.remainderUnsigned(rnd, keys);
                value[valueSize - 1] = (byte) n;
                updates.pipeInput(keyNames[key], value);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            ReadOnlyKeyValueStore<String, byte[]> store = driver.getKeyValueStore(STORE);
            long entries = store.approximateNumEntries();
            System.gc();
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            System.out.printf("store=%s records=%d keys=%d value=%d records_per_s=%.0f heap_mib=%.1f"
                    + " grove_reserved_mib=%.1f grove_live_mib=%.1f entries=%d%n", kind, records, keys, valueSize,
                    (records - warmUp) / seconds, heap / 1048576.0, pool.footprint().reservedBytes() / 1048576.0,
                    pool.footprint().liveBytes() / 1048576.0, entries);
        }
    }

    /** The reducer: the new value, with the count of updates of the key (its first 8 bytes) carried over. */
    private static byte[] countAndKeepLatest(byte[] old, byte[] latest) {
        byte[] result = latest.clone();
        long count = old.length >= 8 ? ByteBuffer.wrap(old).getLong(0) : 1;
        ByteBuffer.wrap(result).putLong(0, count + 1);
        return result;
    }

    private static long mix(long x) {
        long z = x * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        return z ^ (z >>> 31);
    }
}
