package io.grove.kafka;

import io.grove.MemoryPool;
import java.util.Objects;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Suppliers of Grove's Kafka Streams stores, to pass where Kafka takes a {@link KeyValueBytesStoreSupplier}
 * ({@code Materialized.as(supplier)}, {@code Stores.keyValueStoreBuilder(supplier, ...)}). For every key-value
 * store of the DSL at once, configure {@link GroveDslStoreSuppliers} instead.
 */
public final class GroveStores {
    /** The metrics scope of Grove's stores, as {@code in-memory} and {@code rocksdb} are of Kafka's. */
    static final String METRICS_SCOPE = "grove";

    private GroveStores() {}

    /** Stores named {@code name}, each in a pool of its own with Grove's default settings (closed with it). */
    public static KeyValueBytesStoreSupplier keyValueStore(String name) {
        return new Supplier(name, null);
    }

    /**
     * Stores named {@code name} that all draw on {@code pool}, which bounds their memory together (one store per
     * task, so per partition); the application closes the pool after the stores.
     */
    public static KeyValueBytesStoreSupplier keyValueStore(String name, MemoryPool pool) {
        return new Supplier(name, Objects.requireNonNull(pool, "pool"));
    }

    private record Supplier(String name, MemoryPool pool) implements KeyValueBytesStoreSupplier {
        Supplier {
            Objects.requireNonNull(name, "name cannot be null");
        }

        @Override
        public KeyValueStore<Bytes, byte[]> get() {
            return new GroveKeyValueStore(name, pool);
        }

        @Override
        public String metricsScope() {
            return METRICS_SCOPE;
        }
    }
}
