package io.grove.kafka;

import org.apache.kafka.streams.state.BuiltInDslStoreSuppliers;
import org.apache.kafka.streams.state.DslKeyValueParams;
import org.apache.kafka.streams.state.DslSessionParams;
import org.apache.kafka.streams.state.DslStoreSuppliers;
import org.apache.kafka.streams.state.DslWindowParams;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.SessionBytesStoreSupplier;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

/**
 * The DSL's stores for a whole topology: every key-value store on Grove ({@link GroveStores#keyValueStore(String)}),
 * window and session stores Kafka's own in-memory ones, so that no store loads RocksDB's native library. Set it with
 * {@code props.put(StreamsConfig.DSL_STORE_SUPPLIERS_CLASS_CONFIG, GroveDslStoreSuppliers.class)}.
 */
public final class GroveDslStoreSuppliers implements DslStoreSuppliers {
    private final DslStoreSuppliers inMemory = new BuiltInDslStoreSuppliers.InMemoryDslStoreSuppliers();

    @Override
    public KeyValueBytesStoreSupplier keyValueStore(DslKeyValueParams params) {
        return GroveStores.keyValueStore(params.name());
    }

    @Override
    public WindowBytesStoreSupplier windowStore(DslWindowParams params) {
        return inMemory.windowStore(params);
    }

    @Override
    public SessionBytesStoreSupplier sessionStore(DslSessionParams params) {
        return inMemory.sessionStore(params);
    }
}
