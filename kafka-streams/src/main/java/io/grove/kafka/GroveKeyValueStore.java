package io.grove.kafka;

import io.grove.GroveSortedMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A Kafka Streams key-value store whose keys and values live off the Java heap, in a {@link GroveSortedMap}.
 * Keys are ordered as Kafka orders {@link Bytes}: lexicographically, bytes compared unsigned, a prefix before the
 * keys it starts.
 *
 * <p>Behaviour, as Kafka's own in-memory store: {@code get} and the iterators return copies (a caller may keep or
 * change them); a {@code null} value in {@code put} or {@code putAll} deletes the key; {@code range} and
 * {@code reverseRange} include both bounds, take {@code null} for an open end, and are empty when {@code from} is
 * after {@code to}; a {@code null} key throws {@link NullPointerException}. Iterators are weakly consistent (they
 * never throw {@link java.util.ConcurrentModificationException}, see every key present throughout the iteration
 * once, in order) and must be closed; closing the store closes the iterators still open, and using a closed store
 * or iterator throws {@link InvalidStateStoreException}.
 *
 * <p>Not persistent ({@link #persistent()} is {@code false}): the map lives in memory, so after a restart Kafka
 * Streams restores it from its changelog, which it does through {@link #init}'s restore callback in batches.
 * {@link #approximateNumEntries()} is the map's size, exact when no update runs.
 *
 * <p>Memory: the store either owns a pool of its own (closed with the store) or draws on one that the application
 * shares between stores ({@link GroveStores#keyValueStore(String, MemoryPool)}), which bounds all of them at once.
 * A put that does not fit throws {@link io.grove.GroveOutOfMemoryException}.
 */
public final class GroveKeyValueStore implements KeyValueStore<Bytes, byte[]> {
    private final String name;
    /** The pool the store draws on, or {@code null} for a pool of its own with the default settings. */
    private final MemoryPool sharedPool;
    private final Set<GroveKeyValueIterator> openIterators = ConcurrentHashMap.newKeySet();
    /** The entries, set by {@link #init}; {@code null} before it and after {@link #close}. */
    private volatile GroveSortedMap<byte[], byte[]> map;
    /** Where the record being processed comes from, for {@link #position}; set by {@link #init}. */
    private StateStoreContext context;
    /** The offsets of the input records applied so far, per topic and partition (Kafka's query consistency). */
    private final Position position = Position.emptyPosition();

    GroveKeyValueStore(String name, MemoryPool sharedPool) {
        this.name = Objects.requireNonNull(name, "name");
        this.sharedPool = sharedPool;
    }

    @Override
    public String name() {
        return name;
    }

    /** Creates the map and registers the store with a restore callback that applies changelog batches. */
    @Override
    public void init(StateStoreContext context, StateStore root) {
        if (map != null) {
            throw new IllegalStateException("store " + name + " is already initialized");
        }
        GroveSortedMap.Builder<byte[], byte[]> builder =
                GroveSortedMap.builder(Serializers.bytes(), Serializers.bytes());
        if (sharedPool != null) {
            builder.pool(sharedPool);
        }
        this.context = context; // before the map is published: the updates read it
        map = builder.build();
        context.register(root, (BatchingStateRestoreCallback) this::restoreAll);
    }

    private void restoreAll(Collection<KeyValue<byte[], byte[]>> records) {
        GroveSortedMap<byte[], byte[]> m = open();
        for (KeyValue<byte[], byte[]> record : records) {
            if (record.value == null) {
                m.zc().remove(record.key);
            } else {
                m.zc().put(record.key, record.value);
            }
        }
    }

    /** Nothing to do: every update is in the map when it returns. */
    @Override
    public void flush() {
        open();
    }

    /** Closes the iterators still open and frees the map's memory (or gives it back to the shared pool). */
    @Override
    public void close() {
        GroveSortedMap<byte[], byte[]> m = map;
        if (m == null) {
            return;
        }
        map = null;
        for (GroveKeyValueIterator iterator : openIterators) {
            iterator.close();
        }
        m.close();
    }

    @Override
    public boolean persistent() {
        return false;
    }

    @Override
    public boolean isOpen() {
        return map != null;
    }

    /** The offsets of the input records this store has applied, as Kafka's in-memory store reports them. */
    @Override
    public Position getPosition() {
        return position;
    }

    /** Records the offset of the input record that the current update comes from, if it comes from one. */
    private void advancePosition() {
        context.recordMetadata().ifPresent(record -> {
            if (record.topic() != null && record.offset() >= 0) {
                position.withComponent(record.topic(), record.partition(), record.offset());
            }
        });
    }

    @Override
    public byte[] get(Bytes key) {
        return open().get(bytes(key));
    }

    @Override
    public void put(Bytes key, byte[] value) {
        byte[] k = bytes(key);
        if (value == null) {
            open().zc().remove(k);
        } else {
            open().zc().put(k, value);
        }
        advancePosition();
    }

    @Override
    public byte[] putIfAbsent(Bytes key, byte[] value) {
        byte[] k = bytes(key);
        byte[] previous = value == null ? open().get(k) : open().putIfAbsent(k, value);
        advancePosition();
        return previous;
    }

    /** Applies the entries in order, each atomically (not the list as a whole); checks every key first. */
    @Override
    public void putAll(List<KeyValue<Bytes, byte[]>> entries) {
        for (KeyValue<Bytes, byte[]> entry : entries) {
            bytes(entry.key);
        }
        for (KeyValue<Bytes, byte[]> entry : entries) {
            put(entry.key, entry.value);
        }
    }

    @Override
    public byte[] delete(Bytes key) {
        byte[] previous = open().remove(bytes(key));
        advancePosition();
        return previous;
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
        return iterate(from, to, false);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseRange(Bytes from, Bytes to) {
        return iterate(from, to, true);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> all() {
        return iterate(null, null, false);
    }

    @Override
    public KeyValueIterator<Bytes, byte[]> reverseAll() {
        return iterate(null, null, true);
    }

    /**
     * The keys that start with {@code prefix} serialized by {@code prefixKeySerializer} (with a {@code null}
     * topic), in ascending order.
     */
    @Override
    public <S extends Serializer<P>, P> KeyValueIterator<Bytes, byte[]> prefixScan(P prefix, S prefixKeySerializer) {
        Objects.requireNonNull(prefix, "prefix cannot be null");
        Objects.requireNonNull(prefixKeySerializer, "prefixKeySerializer cannot be null");
        byte[] from = prefixKeySerializer.serialize(null, prefix);
        byte[] after = successorOfPrefix(from);
        GroveSortedMap<byte[], byte[]> m = open();
        NavigableMap<byte[], byte[]> view = after == null ? m.tailMap(from, true) : m.subMap(from, true, after, false);
        return track(view);
    }

    /**
     * The smallest key after every key that starts with {@code prefix}: the prefix with its last byte below 0xFF
     * incremented and the bytes after it dropped; {@code null} if there is none (the prefix is all 0xFF).
     */
    static byte[] successorOfPrefix(byte[] prefix) {
        for (int i = prefix.length - 1; i >= 0; i--) {
            if (prefix[i] != (byte) 0xFF) {
                byte[] next = Arrays.copyOf(prefix, i + 1);
                next[i]++;
                return next;
            }
        }
        return null;
    }

    @Override
    public long approximateNumEntries() {
        return open().size();
    }

    private KeyValueIterator<Bytes, byte[]> iterate(Bytes from, Bytes to, boolean descending) {
        GroveSortedMap<byte[], byte[]> m = open();
        NavigableMap<byte[], byte[]> view;
        if (from != null && to != null) {
            if (from.compareTo(to) > 0) {
                view = Collections.emptyNavigableMap();
            } else {
                view = m.subMap(from.get(), true, to.get(), true);
            }
        } else if (from != null) {
            view = m.tailMap(from.get(), true);
        } else if (to != null) {
            view = m.headMap(to.get(), true);
        } else {
            view = m;
        }
        return track(descending ? view.descendingMap() : view);
    }

    private KeyValueIterator<Bytes, byte[]> track(NavigableMap<byte[], byte[]> view) {
        GroveKeyValueIterator iterator = new GroveKeyValueIterator(name, view.entrySet().iterator(), openIterators);
        openIterators.add(iterator);
        if (map == null) { // closed meanwhile: the close may have missed this iterator
            iterator.close();
            throw closed();
        }
        return iterator;
    }

    private GroveSortedMap<byte[], byte[]> open() {
        GroveSortedMap<byte[], byte[]> m = map;
        if (m == null) {
            throw closed();
        }
        return m;
    }

    private InvalidStateStoreException closed() {
        return new InvalidStateStoreException("store " + name + " is not open");
    }

    private static byte[] bytes(Bytes key) {
        return Objects.requireNonNull(key, "key cannot be null").get();
    }
}
