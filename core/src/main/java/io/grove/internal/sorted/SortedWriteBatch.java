package io.grove.internal.sorted;

import io.grove.WriteBatch;
import java.util.ArrayList;
import java.util.Objects;

/** {@link WriteBatch} of an ordered map: the operations, on the heap, until {@link BatchUpdates} applies them. */
final class SortedWriteBatch<K, V> implements WriteBatch<K, V> {
    private final BatchUpdates<K, V> updates;
    private final ArrayList<K> keys = new ArrayList<>();
    /** The value of each put, {@code null} for a removal. */
    private final ArrayList<V> values = new ArrayList<>();

    SortedWriteBatch(BatchUpdates<K, V> updates) {
        this.updates = updates;
    }

    @Override
    public WriteBatch<K, V> put(K key, V value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        keys.add(key);
        values.add(value);
        return this;
    }

    @Override
    public WriteBatch<K, V> remove(K key) {
        keys.add(Objects.requireNonNull(key, "key"));
        values.add(null);
        return this;
    }

    @Override
    public int size() {
        return keys.size();
    }

    @Override
    public void clear() {
        keys.clear();
        values.clear();
    }

    @Override
    public void apply() {
        updates.apply(keys, values);
    }
}
