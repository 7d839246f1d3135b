package io.grove.kafka;

import java.io.File;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.streams.StreamsMetrics;
import org.apache.kafka.streams.processor.CommitCallback;
import org.apache.kafka.streams.processor.StateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/** A state store context for a store outside a topology: keeps the restore callback the store registers. */
final class CapturingContext implements StateStoreContext {
    StateStore registered;
    StateRestoreCallback restoreCallback;

    @Override
    public String applicationId() {
        return "grove-test";
    }

    @Override
    public TaskId taskId() {
        return new TaskId(0, 0);
    }

    @Override
    public Optional<RecordMetadata> recordMetadata() {
        return Optional.empty();
    }

    @Override
    public Serde<?> keySerde() {
        return null;
    }

    @Override
    public Serde<?> valueSerde() {
        return null;
    }

    @Override
    public File stateDir() {
        return new File(System.getProperty("java.io.tmpdir"));
    }

    @Override
    public StreamsMetrics metrics() {
        return null;
    }

    @Override
    public void register(StateStore store, StateRestoreCallback callback) {
        registered = store;
        restoreCallback = callback;
    }

    @Override
    public void register(StateStore store, StateRestoreCallback callback, CommitCallback checkpoint) {
        register(store, callback);
    }

    @Override
    public Map<String, Object> appConfigs() {
        return Map.of();
    }

    @Override
    public Map<String, Object> appConfigsWithPrefix(String prefix) {
        return Map.of();
    }
}
