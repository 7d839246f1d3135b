package io.grove.internal.sorted;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The two waits of a map that lays out its pairs for scans, made deterministic: a long-lived zero-copy handle
 * ({@code zc().get}, the {@code zc()} sets' iterators) marks its chunk ({@link Chunk#handOut}) so that no rebalance
 * moves the pair under it; a chunk found frozen cannot be marked any more (its rebalance may be moving its pairs),
 * so the read waits until the chunk is replaced and reads again from the new one. Here the test freezes the chunk
 * itself and replaces it only when it chooses ({@link Rebalancer#replaceAndMerge}), so the reader is held in the
 * wait for as long as the test likes: while it is held it must not return; once the chunk is replaced it must return
 * the right bytes, from a marked chunk (the iterator: the right next key, neither skipped nor repeated).
 */
class FrozenChunkWaitTest {
    /** The keys of {@link LayOutForScansTest#filledMap}: 0, 2, .., {@code 2 * (KEYS - 1)}. */
    private static final int KEYS = LayOutForScansTest.KEYS;
    /** How long a reader is watched while its chunk is frozen: it must still be waiting after it. */
    private static final long HELD_MILLIS = 300;

    private static ChunkMap<?, ?> chunkMap(GroveSortedMap<?, ?> map) {
        return ((OffHeapSortedMap<?, ?>) map).map;
    }

    /** The chunk of the map's index whose range holds {@code key}. */
    private static Chunk chunkOf(GroveSortedMap<Long, byte[]> map, long key) {
        ChunkMap<?, ?> chunks = chunkMap(map);
        Key k = Key.of(Serializers.longs(), key, 64);
        return chunks.index.locate(chunks.keys, k.segment(), k.length());
    }

    /**
     * Runs {@code read} in a new thread while chunk {@code c} is frozen, checks that it is still waiting after
     * {@link #HELD_MILLIS}, then replaces {@code c} and returns what the read returned.
     */
    private static <T> T readWhileFrozen(GroveSortedMap<Long, byte[]> map, Chunk c, ReadAction<T> read)
            throws Exception {
        assertTrue(c.freeze(), "the chunk was not active");
        AtomicReference<T> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread reader = Thread.ofPlatform().start(() -> {
            try {
                result.set(read.run());
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        reader.join(HELD_MILLIS);
        assertTrue(reader.isAlive(), "the read returned while its chunk was frozen: " + result.get() + ", "
                + failure.get());
        chunkMap(map).rebalancer.replaceAndMerge(c, false);
        reader.join(10_000);
        assertFalse(reader.isAlive(), "the read still waits after its chunk was replaced");
        assertNull(failure.get());
        assertTrue(c.isReplaced());
        return result.get();
    }

    @FunctionalInterface
    private interface ReadAction<T> {
        T run() throws Exception;
    }

    @Test
    void aZeroCopyGetOnAFrozenChunkWaitsForTheReplacementAndReadsFromAMarkedChunk() throws Exception {
        try (GroveSortedMap<Long, byte[]> map = LayOutForScansTest.filledMap()) {
            long key = KEYS; // an even key in the middle
            Chunk frozen = chunkOf(map, key);
            Handle handle = readWhileFrozen(map, frozen, () -> map.zc().get(key));

            assertArrayEquals(LayOutForScansTest.value(key, 0), handle.toByteArray());
            Chunk now = chunkOf(map, key);
            assertNotSame(frozen, now);
            assertTrue(now.isHandedOut(), "the chunk the handle reads from is not marked");
            for (int round = 0; round < 2; round++) { // scans that would lay the chunk out, moving the pair
                map.zc().entryStream().forEach(e -> e.getValue().getByte(0));
            }
            assertArrayEquals(LayOutForScansTest.value(key, 0), handle.toByteArray(),
                    "the handle's pair moved or changed");
        }
    }

    @Test
    void aZeroCopyIteratorReachingAFrozenChunkWaitsAndGoesOnWithTheNextKey() throws Exception {
        try (GroveSortedMap<Long, byte[]> map = LayOutForScansTest.filledMap()) {
            Iterator<Map.Entry<Handle, Handle>> it = map.zc().entrySet().iterator();
            long expected = 0;
            for (; expected < KEYS; expected += 2) { // the first half of the keys
                Map.Entry<Handle, Handle> e = it.next();
                assertEquals(expected, Serializers.longs().read(e.getKey()));
            }
            Chunk frozen = chunkOf(map, expected);
            Map.Entry<Handle, Handle> next = readWhileFrozen(map, frozen, it::next);

            assertEquals(expected, Serializers.longs().read(next.getKey()), "a key skipped or repeated");
            assertArrayEquals(LayOutForScansTest.value(expected, 0), next.getValue().toByteArray());
            assertTrue(chunkOf(map, expected).isHandedOut(), "the chunk the element reads from is not marked");
            for (expected += 2; it.hasNext(); expected += 2) {
                assertEquals(expected, Serializers.longs().read(it.next().getKey()));
            }
            assertEquals(2L * KEYS, expected, "the iteration ended early");
        }
    }
}
