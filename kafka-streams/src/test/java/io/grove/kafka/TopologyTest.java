package io.grove.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * A word count and a windowed count run on Grove's stores (every key-value store of the DSL through
 * {@link GroveDslStoreSuppliers}) and on Kafka's in-memory stores: same output, same store contents, same answers
 * to interactive range queries; the changelog restores Grove's store; RocksDB's native library is never loaded.
 */
class TopologyTest {
    private static final String COUNTS = "word-counts";

    /** Words in, counts per word (a Grove key-value store) and per word and minute (a window store) out. */
    private static Topology topology() {
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, String> lines = builder.stream("lines", Consumed.with(Serdes.String(), Serdes.String()));
        KStream<String, String> words = lines
                .flatMapValues(line -> Arrays.asList(line.toLowerCase(Locale.ROOT).split("\\W+")))
                .filter((key, word) -> !word.isEmpty());
        words.groupBy((key, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.as(COUNTS))
                .toStream()
                .to("counts", Produced.with(Serdes.String(), Serdes.Long()));
        words.groupBy((key, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
                .windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofMinutes(1)))
                .count()
                .toStream((window, count) -> window.key() + "@" + window.window().start())
                .to("windowed-counts", Produced.with(Serdes.String(), Serdes.Long()));
        return builder.build();
    }

    private static Properties config(Class<?> storeSuppliers, Path stateDir) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "grove-word-count");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, storeSuppliers);
        // no record cache in front of the stores: every read and write of the topology reaches them
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        return props;
    }

    /** What one run produced and what its stores held. */
    private record Run(List<KeyValue<String, Long>> counts, List<KeyValue<String, Long>> windowed,
            List<KeyValue<String, Long>> store, List<List<KeyValue<String, Long>>> ranges,
            List<TestRecord<Bytes, byte[]>> changelog) {}

    private static Run run(Class<?> storeSuppliers) throws IOException {
        Path stateDir = Files.createTempDirectory("grove-kafka-");
        try (TopologyTestDriver driver = new TopologyTestDriver(topology(), config(storeSuppliers, stateDir))) {
            TestInputTopic<String, String> lines = driver.createInputTopic("lines", Serdes.String().serializer(),
                    Serdes.String().serializer(), Instant.parse("2026-11-25T00:00:00Z"), Duration.ofSeconds(7));
            Random random = new Random(11);
            String[] vocabulary = {"apple", "banana", "cherry", "date", "elder", "fig", "grape", "kiwi", "lemon",
                "mango", "nut", "olive", "pear", "quince", "ramp", "sage", "thyme", "ume", "vanilla", "walnut"};
            for (int i = 0; i < 3_000; i++) {
                StringBuilder line = new StringBuilder();
                for (int w = random.nextInt(6); w >= 0; w--) {
                    line.append(vocabulary[random.nextInt(vocabulary.length)]).append(w % 2 == 0 ? ' ' : ',');
                }
                lines.pipeInput("line-" + i, line.toString());
            }
            TestOutputTopic<String, Long> counts = driver.createOutputTopic("counts",
                    Serdes.String().deserializer(), Serdes.Long().deserializer());
            TestOutputTopic<String, Long> windowed = driver.createOutputTopic("windowed-counts",
                    Serdes.String().deserializer(), Serdes.Long().deserializer());
            ReadOnlyKeyValueStore<String, Long> store = driver.getKeyValueStore(COUNTS);
            List<List<KeyValue<String, Long>>> ranges = new ArrayList<>();
            ranges.add(drain(store.range("banana", "lemon")));
            ranges.add(drain(store.reverseRange("banana", "lemon")));
            ranges.add(drain(store.range(null, "date")));
            ranges.add(drain(store.reverseRange("sage", null)));
            ranges.add(drain(store.reverseAll()));
            ranges.add(drain(store.prefixScan("ma", Serdes.String().serializer())));
            ranges.add(List.of(KeyValue.pair("count", store.approximateNumEntries())));
            TestOutputTopic<Bytes, byte[]> changelog = driver.createOutputTopic(
                    "grove-word-count-" + COUNTS + "-changelog", Serdes.Bytes().deserializer(),
                    Serdes.ByteArray().deserializer());
            return new Run(counts.readKeyValuesToList(), windowed.readKeyValuesToList(), drain(store.all()), ranges,
                    changelog.readRecordsToList());
        }
    }

    private static List<KeyValue<String, Long>> drain(KeyValueIterator<String, Long> iterator) {
        List<KeyValue<String, Long>> result = new ArrayList<>();
        try (iterator) {
            iterator.forEachRemaining(result::add);
        }
        return result;
    }

    @Test
    void wordCountOnGroveMatchesKafkasInMemoryStores() throws IOException {
        Run kafka = run(BuiltInDslStoreSuppliers.InMemoryDslStoreSuppliers.class);
        Run grove = run(GroveDslStoreSuppliers.class);
        assertEquals(20, kafka.store().size(), "every word of the vocabulary was counted");
        assertEquals(kafka.counts(), grove.counts());
        assertEquals(kafka.windowed(), grove.windowed());
        assertEquals(kafka.store(), grove.store());
        assertEquals(kafka.ranges(), grove.ranges());
        assertFalse(grove.ranges().get(0).isEmpty());
        assertFalse(rocksDbLoaded(), "a store loaded RocksDB's native library");
    }

    /** The changelog the word count wrote restores a new Grove store to the same contents. */
    @Test
    void changelogRestoresTheStore() throws IOException {
        Run grove = run(GroveDslStoreSuppliers.class);
        assertFalse(grove.changelog().isEmpty());
        CapturingContext context = new CapturingContext();
        KeyValueStore<Bytes, byte[]> restored = GroveStores.keyValueStore(COUNTS).get();
        restored.init(context, restored);
        try {
            List<KeyValue<byte[], byte[]>> batch = new ArrayList<>();
            for (TestRecord<Bytes, byte[]> r : grove.changelog()) {
                batch.add(KeyValue.pair(r.key().get(), r.value()));
            }
            ((BatchingStateRestoreCallback) context.restoreCallback).restoreAll(batch);
            List<KeyValue<String, Long>> contents = new ArrayList<>();
            try (KeyValueIterator<Bytes, byte[]> all = restored.all()) {
                all.forEachRemaining(kv -> contents.add(KeyValue.pair(new String(kv.key.get(),
                        java.nio.charset.StandardCharsets.UTF_8), countOf(kv.value))));
            }
            assertEquals(grove.store(), contents);
        } finally {
            restored.close();
        }
    }

    /**
     * The count in a changelog value: the DSL's count store is timestamped (an 8-byte timestamp, then the value),
     * and the value is a serialized long.
     */
    private static long countOf(byte[] value) {
        assertTrue(value.length == 8 || value.length == 16, "unexpected value length " + value.length);
        byte[] count = Arrays.copyOfRange(value, value.length - 8, value.length);
        assertArrayEquals(count, Serdes.Long().serializer().serialize(null,
                Serdes.Long().deserializer().deserialize(null, count)));
        return Serdes.Long().deserializer().deserialize(null, count);
    }

    /** Whether this process mapped RocksDB's JNI library (Linux: the process's memory map names it). */
    private static boolean rocksDbLoaded() throws IOException {
        Path maps = Path.of("/proc/self/maps");
        return Files.exists(maps) && Files.readString(maps).contains("rocksdbjni");
    }
}
