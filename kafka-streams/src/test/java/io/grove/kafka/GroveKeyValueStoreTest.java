package io.grove.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.MemoryPool;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Random;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

class GroveKeyValueStoreTest {
    private static KeyValueStore<Bytes, byte[]> open(KeyValueStore<Bytes, byte[]> store, CapturingContext context) {
        store.init(context, store);
        return store;
    }

    private static KeyValueStore<Bytes, byte[]> grove() {
        return open(GroveStores.keyValueStore("s").get(), new CapturingContext());
    }

    /** Random operations on Grove's store and Kafka's in-memory store, every result and every scan compared. */
    @Test
    void behavesAsKafkasInMemoryStore() {
        Random random = new Random(7);
        try (Stores2 stores = new Stores2()) {
            for (int step = 0; step < 20_000; step++) {
                Bytes key = randomKey(random);
                byte[] value = random.nextInt(10) == 0 ? null : randomKey(random).get();
                switch (random.nextInt(9)) {
                    case 0 -> {
                        stores.grove.put(key, value);
                        stores.kafka.put(key, value);
                    }
                    case 1 -> assertArrayEquals(stores.kafka.putIfAbsent(key, value),
                            stores.grove.putIfAbsent(key, value));
                    case 2 -> assertArrayEquals(stores.kafka.delete(key), stores.grove.delete(key));
                    case 3 -> {
                        List<KeyValue<Bytes, byte[]>> batch = new ArrayList<>();
                        for (int i = random.nextInt(5); i >= 0; i--) {
                            batch.add(KeyValue.pair(randomKey(random), random.nextBoolean() ? null : new byte[i]));
                        }
                        stores.grove.putAll(batch);
                        stores.kafka.putAll(batch);
                    }
                    case 4 -> {
                        Bytes to = randomKey(random);
                        assertSame(stores.kafka.range(key, to), stores.grove.range(key, to));
                        assertSame(stores.kafka.reverseRange(key, to), stores.grove.reverseRange(key, to));
                        assertSame(stores.kafka.range(null, to), stores.grove.range(null, to));
                        assertSame(stores.kafka.reverseRange(key, null), stores.grove.reverseRange(key, null));
                    }
                    case 5 -> {
                        byte[] prefix = key.get().length == 0 ? key.get()
                                : Arrays.copyOf(key.get(), random.nextInt(key.get().length));
                        // Kafka's own prefixScan throws IndexOutOfBoundsException for an empty or all-0xFF
                        // prefix (it cannot increment it), so the expected keys come from a full scan
                        assertSame(startingWith(stores.kafka.all(), prefix),
                                stores.grove.prefixScan(prefix, Serdes.ByteArray().serializer()));
                    }
                    case 6 -> {
                        if (step % 100 == 0) {
                            assertSame(stores.kafka.all(), stores.grove.all());
                            assertSame(stores.kafka.reverseAll(), stores.grove.reverseAll());
                        }
                    }
                    default -> assertArrayEquals(stores.kafka.get(key), stores.grove.get(key));
                }
                if (step % 1000 == 0) {
                    assertEquals(stores.kafka.approximateNumEntries(), stores.grove.approximateNumEntries());
                }
            }
        }
    }

    /** Grove's and Kafka's stores side by side, closed together. */
    private static final class Stores2 implements AutoCloseable {
        final KeyValueStore<Bytes, byte[]> grove = grove();
        final KeyValueStore<Bytes, byte[]> kafka =
                open(Stores.inMemoryKeyValueStore("s").get(), new CapturingContext());

        @Override
        public void close() {
            grove.close();
            kafka.close();
        }
    }

    /** Keys of 0-3 bytes from {0, 1, 0x7F, 0x80, 0xFF}: prefixes, signed/unsigned order and 0xFF runs all occur. */
    private static Bytes randomKey(Random random) {
        byte[] alphabet = {0, 1, 0x7F, (byte) 0x80, (byte) 0xFF};
        byte[] key = new byte[random.nextInt(4)];
        for (int i = 0; i < key.length; i++) {
            key[i] = alphabet[random.nextInt(alphabet.length)];
        }
        return Bytes.wrap(key);
    }

    private static List<KeyValue<Bytes, byte[]>> startingWith(KeyValueIterator<Bytes, byte[]> all, byte[] prefix) {
        List<KeyValue<Bytes, byte[]>> result = new ArrayList<>();
        try (all) {
            all.forEachRemaining(e -> {
                byte[] k = e.key.get();
                if (k.length >= prefix.length && Arrays.equals(k, 0, prefix.length, prefix, 0, prefix.length)) {
                    result.add(e);
                }
            });
        }
        return result;
    }

    private static void assertSame(List<KeyValue<Bytes, byte[]>> expected, KeyValueIterator<Bytes, byte[]> actual) {
        try (actual) {
            for (KeyValue<Bytes, byte[]> e : expected) {
                assertTrue(actual.hasNext(), "Grove's iterator ended early");
                KeyValue<Bytes, byte[]> a = actual.next();
                assertEquals(e.key, a.key);
                assertArrayEquals(e.value, a.value);
            }
            assertFalse(actual.hasNext(), "Grove's iterator has more entries");
        }
    }

    private static void assertSame(KeyValueIterator<Bytes, byte[]> expected, KeyValueIterator<Bytes, byte[]> actual) {
        try (expected; actual) {
            while (expected.hasNext()) {
                assertTrue(actual.hasNext(), "Grove's iterator ended early");
                assertEquals(expected.peekNextKey(), actual.peekNextKey());
                KeyValue<Bytes, byte[]> e = expected.next();
                KeyValue<Bytes, byte[]> a = actual.next();
                assertEquals(e.key, a.key);
                assertArrayEquals(e.value, a.value);
            }
            assertFalse(actual.hasNext(), "Grove's iterator has more entries");
        }
    }

    @Test
    void successorOfPrefixSkipsTrailingFfBytes() {
        assertArrayEquals(new byte[] {1, 3}, GroveKeyValueStore.successorOfPrefix(new byte[] {1, 2}));
        assertArrayEquals(new byte[] {2}, GroveKeyValueStore.successorOfPrefix(new byte[] {1, (byte) 0xFF}));
        assertNull(GroveKeyValueStore.successorOfPrefix(new byte[] {(byte) 0xFF, (byte) 0xFF}));
        assertNull(GroveKeyValueStore.successorOfPrefix(new byte[0]));
    }

    @Test
    void returnsCopiesThatTheCallerMayChange() {
        KeyValueStore<Bytes, byte[]> store = grove();
        try {
            byte[] value = {1, 2, 3};
            store.put(Bytes.wrap(new byte[] {9}), value);
            value[0] = 42;
            byte[] read = store.get(Bytes.wrap(new byte[] {9}));
            assertArrayEquals(new byte[] {1, 2, 3}, read);
            read[1] = 42;
            assertArrayEquals(new byte[] {1, 2, 3}, store.get(Bytes.wrap(new byte[] {9})));
        } finally {
            store.close();
        }
    }

    @Test
    void rejectsNullKeysAndIteratorsPastTheirEnd() {
        KeyValueStore<Bytes, byte[]> store = grove();
        try {
            assertThrows(NullPointerException.class, () -> store.get(null));
            assertThrows(NullPointerException.class, () -> store.put(null, new byte[1]));
            assertThrows(NullPointerException.class, () -> store.delete(null));
            List<KeyValue<Bytes, byte[]>> withNull = new ArrayList<>();
            withNull.add(KeyValue.pair(Bytes.wrap(new byte[] {1}), new byte[1]));
            withNull.add(KeyValue.pair(null, new byte[1]));
            assertThrows(NullPointerException.class, () -> store.putAll(withNull));
            assertNull(store.get(Bytes.wrap(new byte[] {1})), "a putAll with a null key applies nothing");
            try (KeyValueIterator<Bytes, byte[]> empty = store.all()) {
                assertFalse(empty.hasNext());
                assertThrows(NoSuchElementException.class, empty::next);
                assertThrows(NoSuchElementException.class, empty::peekNextKey);
            }
        } finally {
            store.close();
        }
    }

    /** After close: the store and its open iterators throw; isOpen says so; a second close does nothing. */
    @Test
    void closeEndsTheStoreAndItsIterators() {
        KeyValueStore<Bytes, byte[]> store = grove();
        store.put(Bytes.wrap(new byte[] {1}), new byte[] {1});
        store.put(Bytes.wrap(new byte[] {2}), new byte[] {2});
        KeyValueIterator<Bytes, byte[]> iterator = store.all();
        assertTrue(iterator.hasNext());
        assertTrue(store.isOpen());
        store.close();
        assertFalse(store.isOpen());
        assertThrows(InvalidStateStoreException.class, iterator::hasNext);
        assertThrows(InvalidStateStoreException.class, () -> store.get(Bytes.wrap(new byte[] {1})));
        assertThrows(InvalidStateStoreException.class, store::all);
        store.close();
    }

    /** Changelog batches restore puts and deletes, in order. */
    @Test
    void restoresFromChangelogBatches() {
        CapturingContext context = new CapturingContext();
        KeyValueStore<Bytes, byte[]> store = open(GroveStores.keyValueStore("s").get(), context);
        try {
            assertEquals(store, context.registered);
            BatchingStateRestoreCallback restore = (BatchingStateRestoreCallback) context.restoreCallback;
            restore.restoreAll(List.of(KeyValue.pair(new byte[] {1}, new byte[] {10}),
                    KeyValue.pair(new byte[] {2}, new byte[] {20}), KeyValue.pair(new byte[] {1}, null),
                    KeyValue.pair(new byte[] {3}, new byte[] {30}), KeyValue.pair(new byte[] {3}, new byte[] {31})));
            assertNull(store.get(Bytes.wrap(new byte[] {1})));
            assertArrayEquals(new byte[] {20}, store.get(Bytes.wrap(new byte[] {2})));
            assertArrayEquals(new byte[] {31}, store.get(Bytes.wrap(new byte[] {3})));
            assertEquals(2, store.approximateNumEntries());
        } finally {
            store.close();
        }
    }

    /** Stores of one supplier drawing on a shared pool leave it open when they close. */
    @Test
    void storesOnASharedPoolLeaveItOpen() {
        try (MemoryPool pool = MemoryPool.builder().memoryLimit(64L << 20).build()) {
            var supplier = GroveStores.keyValueStore("shared", pool);
            KeyValueStore<Bytes, byte[]> a = open(supplier.get(), new CapturingContext());
            KeyValueStore<Bytes, byte[]> b = open(supplier.get(), new CapturingContext());
            a.put(Bytes.wrap(new byte[] {1}), new byte[] {1});
            b.put(Bytes.wrap(new byte[] {1}), new byte[] {2});
            a.close();
            assertArrayEquals(new byte[] {2}, b.get(Bytes.wrap(new byte[] {1})));
            assertFalse(pool.isClosed());
            b.close();
            assertEquals("grove", supplier.metricsScope());
            assertEquals("shared", supplier.name());
        }
    }
}
