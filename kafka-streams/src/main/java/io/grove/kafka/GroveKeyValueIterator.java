package io.grove.kafka;

import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;

/**
 * An iterator of a {@link GroveKeyValueStore}: walks a view of the map's entries (copies of keys and values) one
 * entry ahead, so that {@link #peekNextKey} can answer; removes itself from its store's open iterators when closed.
 * Used by one thread at a time, as Kafka's iterators are; {@link #close} may come from the store's close on
 * another thread, after which this iterator throws {@link InvalidStateStoreException}.
 */
final class GroveKeyValueIterator implements KeyValueIterator<Bytes, byte[]> {
    private final String storeName;
    private final Iterator<Map.Entry<byte[], byte[]>> entries;
    private final Set<GroveKeyValueIterator> openIterators;
    /** The entry {@link #next} returns next, fetched ahead; {@code null} when not fetched yet or at the end. */
    private KeyValue<Bytes, byte[]> ahead;
    private volatile boolean closed;

    GroveKeyValueIterator(String storeName, Iterator<Map.Entry<byte[], byte[]>> entries,
            Set<GroveKeyValueIterator> openIterators) {
        this.storeName = storeName;
        this.entries = entries;
        this.openIterators = openIterators;
    }

    @Override
    public boolean hasNext() {
        checkOpen();
        if (ahead == null && entries.hasNext()) {
            Map.Entry<byte[], byte[]> e = entries.next();
            ahead = KeyValue.pair(Bytes.wrap(e.getKey()), e.getValue());
        }
        return ahead != null;
    }

    @Override
    public KeyValue<Bytes, byte[]> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        KeyValue<Bytes, byte[]> result = ahead;
        ahead = null;
        return result;
    }

    @Override
    public Bytes peekNextKey() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return ahead.key;
    }

    @Override
    public void close() {
        closed = true;
        openIterators.remove(this);
    }

    private void checkOpen() {
        if (closed) {
            throw new InvalidStateStoreException("the iterator of store " + storeName + " is closed");
        }
    }
}
