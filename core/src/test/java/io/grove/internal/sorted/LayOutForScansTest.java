package io.grove.internal.sorted;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.MemoryPool;
import io.grove.Reclamation;
import io.grove.internal.memory.Pool;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import java.util.ArrayList;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * {@link GroveSortedMap.Builder#layOutForScans()}: scans that read a chunk more than once move its pairs to fresh
 * slices in key order ({@link Rebalancer#scanned}), the map's contents do not change, a stream's handles follow the
 * pair they point at ({@link Moves}), and long-lived handles keep their chunk's pairs where they are
 * ({@link Chunk#handOut}). Keys are 0, 2, .., inserted in random order into chunks of 32, each value 40 bytes
 * holding its key.
 */
class LayOutForScansTest {
    static final int KEYS = 2_000;

    /** A map that lays out its pairs: keys 0, 2, .. in random order, in chunks of 32 ({@link #value} each). */
    static GroveSortedMap<Long, byte[]> filledMap() {
        GroveSortedMap<Long, byte[]> map = GroveSortedMap.builder(Serializers.longs(), Serializers.bytes())
                .chunkSize(32).layOutForScans().build();
        List<Long> keys = new ArrayList<>();
        for (long k = 0; k < KEYS; k++) {
            keys.add(2 * k);
        }
        Collections.shuffle(keys, new Random(3));
        for (long k : keys) {
            map.put(k, value(k, 0));
        }
        return map;
    }

    static byte[] value(long key, int version) {
        byte[] v = new byte[40];
        for (int i = 0; i < v.length; i++) {
            v[i] = (byte) (key * 31 + i + version);
        }
        return v;
    }

    private static long key(Handle handle) {
        return Serializers.longs().read(handle);
    }

    private static Chunk[] chunks(GroveSortedMap<?, ?> map) {
        return ((OffHeapSortedMap<?, ?>) map).map.index.snapshot();
    }

    /** Reads every pair of the map through the zero-copy entry stream, twice: every chunk is then laid out. */
    private static void scanTwice(GroveSortedMap<Long, byte[]> map) {
        for (int round = 0; round < 2; round++) {
            long[] count = {0};
            map.zc().entryStream().forEach(e -> {
                count[0] += key(e.getKey()) + e.getValue().getByte(0);
            });
        }
    }

    /** Whether each of the chunk's sorted entries' key and value lie after the previous entry's, key then value. */
    private static boolean laidOut(Chunk c) {
        long last = -1;
        for (int e = 0; e < c.sortedCount; e++) {
            long key = Pool.granuleOf(c.keyRef(e));
            long value = Pool.granuleOf(c.valueRef(e));
            if (key <= last || value <= key) {
                return false;
            }
            last = value;
        }
        return true;
    }

    @Test
    void scansLayEveryChunkOutInKeyOrderAndChangeNoContent() {
        try (GroveSortedMap<Long, byte[]> map = filledMap()) {
            TreeMap<Long, byte[]> model = new TreeMap<>();
            map.forEach(model::put);
            int laidOutBefore = 0;
            for (Chunk c : chunks(map)) {
                laidOutBefore += laidOut(c) ? 1 : 0;
            }
            assertTrue(laidOutBefore < chunks(map).length / 4, laidOutBefore + " chunks in order before any scan");

            scanTwice(map);

            for (Chunk c : chunks(map)) {
                assertTrue(laidOut(c), "a chunk of " + c.sortedCount + " entries not laid out");
                assertEquals(c.sortedCount, c.allocated(), "a laid-out chunk took inserts");
            }
            assertEquals(model.size(), map.size());
            Iterator<Map.Entry<Long, byte[]>> expected = model.entrySet().iterator();
            for (Map.Entry<Long, byte[]> e : map.entrySet()) {
                Map.Entry<Long, byte[]> x = expected.next();
                assertEquals(x.getKey(), e.getKey());
                assertArrayEquals(x.getValue(), e.getValue());
            }
            assertEquals(KEYS * 2L, map.footprint().liveSlices(), "the moved pairs' old slices were not deleted");
        }
    }

    /**
     * Two threads scanning at once, one ascending and one descending, lay out chunks at the same time: each chunk's
     * pairs still lie right after one another (all keys and all values have one size here, so each pair starts the
     * same distance after the one before), not interleaved with the other thread's pairs. 20 maps of about 90 chunks;
     * pairs taken slice by slice from the bump pointer interleaved here.
     */
    @Test
    void chunksLaidOutByTwoThreadsAtOnceHoldTheirPairsTogether() throws Exception {
        for (int round = 0; round < 20; round++) {
            try (GroveSortedMap<Long, byte[]> map = filledMap()) {
                CountDownLatch start = new CountDownLatch(2);
                Thread[] scanners = new Thread[2];
                for (int t = 0; t < 2; t++) {
                    var view = t == 0 ? map.zc() : map.zc().descendingMap();
                    scanners[t] = Thread.ofPlatform().start(() -> {
                        start.countDown();
                        try {
                            start.await();
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        }
                        for (int pass = 0; pass < 2; pass++) {
                            view.entryStream().forEach(e -> e.getValue().getByte(0));
                        }
                    });
                }
                for (Thread scanner : scanners) {
                    scanner.join();
                }
                for (Chunk c : chunks(map)) {
                    assertTrue(laidOut(c), "round " + round + ": a chunk of " + c.sortedCount + " not laid out");
                    long pair = Pool.granuleOf(c.keyRef(1)) - Pool.granuleOf(c.keyRef(0));
                    for (int e = 1; e < c.sortedCount; e++) {
                        assertEquals(pair, Pool.granuleOf(c.keyRef(e)) - Pool.granuleOf(c.keyRef(e - 1)),
                                "round " + round + ": entry " + e + " of a chunk of " + c.sortedCount
                                        + " does not follow the entry before it");
                    }
                }
            }
        }
    }

    /**
     * A scan touches ahead the values of a laid-out chunk that a put has replaced since, into slices anywhere
     * ({@link Cursor}'s read-ahead), and only those: a chunk tells when such values may be in it, and where each
     * laid-out value lies.
     */
    @Test
    void aLaidOutChunkTellsWhichOfItsValuesPutsReplaced() {
        try (GroveSortedMap<Long, byte[]> map = filledMap()) {
            scanTwice(map);
            Chunk first = chunks(map)[0]; // keys 0, 2, 4.. as entries 0, 1, 2..
            assertFalse(first.valuesReplaced());
            for (int e = 0; e < first.sortedCount; e++) {
                assertTrue(first.holdsWhereLaidOut(e, first.valueRef(e)), "entry " + e);
            }
            map.put(1L, value(1, 0)); // an insert, after the sorted entries
            assertFalse(first.valuesReplaced(), "an insert counted as a replaced value");
            map.put(2L, value(2, 1));
            assertEquals(first, chunks(map)[0]);
            assertTrue(first.valuesReplaced());
            assertFalse(first.holdsWhereLaidOut(1, first.valueRef(1)), "key 2's replaced value reads as laid out");
            assertTrue(first.holdsWhereLaidOut(0, first.valueRef(0)));
            assertTrue(first.holdsWhereLaidOut(2, first.valueRef(2)));
        }
    }

    @Test
    void aChunkIsLaidOutAgainOnlyAfterAQuarterAsManyInserts() {
        try (GroveSortedMap<Long, byte[]> map = filledMap()) {
            scanTwice(map);
            Chunk[] laidOut = chunks(map);
            scanTwice(map);
            assertArrayEquals(laidOut, chunks(map), "scans laid out chunks already in order");

            Chunk first = laidOut[0]; // keys 0, 2, 4..
            int quarter = first.sortedCount / 4;
            assertTrue(quarter >= 2, "a first chunk of " + first.sortedCount + " entries");
            map.put(1L, value(1, 0)); // one insert into the first chunk: too few to lay it out again
            scanTwice(map);
            assertEquals(first, chunks(map)[0]);
            for (long k = 3; k < 2L * quarter; k += 2) { // a quarter of its entries in all
                map.put(k, value(k, 0));
            }
            assertEquals(first, chunks(map)[0], "the inserts rebalanced the chunk");
            scanTwice(map);
            assertNotEquals(first, chunks(map)[0], "the first chunk was not laid out again");
            assertTrue(laidOut(chunks(map)[0]));
        }
    }

    @Test
    void aStreamsHandlesFollowTheirPairWhenAScanMovesIt() {
        try (GroveSortedMap<Long, byte[]> map = filledMap()) {
            Iterator<Map.Entry<Handle, Handle>> stream = map.zc().entryStream().iterator();
            for (int i = 0; i < 5; i++) {
                stream.next();
            }
            Map.Entry<Handle, Handle> current = stream.next(); // key 10, the stream holds it
            long keyRef = ((io.grove.internal.view.StreamHandle) current.getKey()).reference();
            long valueRef = ((io.grove.internal.view.StreamHandle) current.getValue()).reference();

            scanTwice(map); // moves every pair

            assertEquals(10L, key(current.getKey()));
            byte[] read = new byte[40];
            current.getValue().copyTo(0, read, 0, 40);
            assertArrayEquals(value(10, 0), read);
            assertTrue(current.getValue().isValid());
            assertNotEquals(keyRef, ((io.grove.internal.view.StreamHandle) current.getKey()).reference(),
                    "the key did not move");
            assertNotEquals(valueRef, ((io.grove.internal.view.StreamHandle) current.getValue()).reference(),
                    "the value did not move");
            assertEquals(12L, key(stream.next().getKey()), "the stream lost its place");

            map.put(12L, value(12, 1)); // replaced: the current value handle ends, as without moves
            Map.Entry<Handle, Handle> twelve = current;
            assertThrows(ConcurrentModificationException.class, () -> twelve.getValue().getByte(0));
            assertEquals(12L, key(twelve.getKey()), "a key handle survives a put");
        }
    }

    @Test
    void aStreamsValueHandleFailsWhenItsValueWasReplacedBeforeTheMove() {
        try (GroveSortedMap<Long, byte[]> map = filledMap()) {
            Map.Entry<Handle, Handle> first = map.zc().entryStream().iterator().next();
            map.put(0L, value(0, 1)); // replaced in place of the entry: not moved, gone
            scanTwice(map);
            assertThrows(ConcurrentModificationException.class, () -> first.getValue().getByte(0));
            assertFalse(first.getValue().isValid());
            assertEquals(0L, key(first.getKey()), "the key moved with its entry");
        }
    }

    @Test
    void longLivedHandlesKeepTheirChunksPairsWhereTheyAre() {
        try (GroveSortedMap<Long, byte[]> map = filledMap()) {
            Handle got = map.zc().get(100L);
            Handle iterated = map.zc().tailMap(1000L, true).values().iterator().next();
            Handle iteratedKey = map.zc().tailMap(3000L, true).keySet().iterator().next();
            long[] refs = {
                ((io.grove.internal.view.SliceHandle) got).reference(),
                ((io.grove.internal.view.SliceHandle) iterated).reference(),
                ((io.grove.internal.view.SliceHandle) iteratedKey).reference()};

            scanTwice(map);

            byte[] read = new byte[40];
            got.copyTo(0, read, 0, 40);
            assertArrayEquals(value(100, 0), read);
            iterated.copyTo(0, read, 0, 40);
            assertArrayEquals(value(1000, 0), read);
            assertEquals(3000L, key(iteratedKey));
            assertEquals(refs[0], ((io.grove.internal.view.SliceHandle) got).reference());
            assertEquals(refs[1], ((io.grove.internal.view.SliceHandle) iterated).reference());
            assertEquals(refs[2], ((io.grove.internal.view.SliceHandle) iteratedKey).reference());
            int marked = 0;
            for (Chunk c : chunks(map)) {
                marked += c.isHandedOut() ? 1 : 0;
                assertTrue(c.isHandedOut() || laidOut(c), "an unmarked chunk not laid out");
            }
            assertTrue(marked >= 1 && marked <= 3, marked + " chunks marked by three handles");
        }
    }

    /**
     * A set's iterator marks each chunk it hands out handles from, after which no rebalance moves the chunk's pairs:
     * it lays a chunk whose pairs are out of order out first. One pass of {@code zc().entrySet()} over the map, its
     * elements kept, leaves every chunk laid out and marked, and every kept element reads its own pair.
     */
    @Test
    void aSetIteratorLaysEachChunkOutBeforeMarkingIt() {
        try (GroveSortedMap<Long, byte[]> map = filledMap()) {
            List<Map.Entry<Handle, Handle>> kept = new ArrayList<>();
            for (Map.Entry<Handle, Handle> e : map.zc().entrySet()) {
                kept.add(e);
            }

            assertEquals(KEYS, kept.size());
            byte[] read = new byte[40];
            for (int i = 0; i < KEYS; i++) {
                assertEquals(2L * i, key(kept.get(i).getKey()));
                kept.get(i).getValue().copyTo(0, read, 0, 40);
                assertArrayEquals(value(2L * i, 0), read);
            }
            for (Chunk c : chunks(map)) {
                assertTrue(c.isHandedOut(), "a chunk the iterator went through not marked");
                assertTrue(laidOut(c), "a chunk of " + c.sortedCount + " entries not laid out");
            }
            assertEquals(KEYS * 2L, map.footprint().liveSlices(), "the moved pairs' old slices were not deleted");
        }
    }

    @Test
    void cannotBeCombinedWithSnapshots() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> GroveSortedMap.builder(Serializers.longs(), Serializers.longs()).snapshots().layOutForScans()
                        .build());
        assertTrue(e.getMessage().contains("layOutForScans") && e.getMessage().contains("snapshots"),
                e.getMessage());
    }

    @Test
    void needsAPoolThatReusesMemory() {
        try (MemoryPool pool = MemoryPool.builder().reclamation(Reclamation.GROW_ONLY).build()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> GroveSortedMap.builder(Serializers.longs(), Serializers.longs()).pool(pool)
                            .layOutForScans().build());
            assertTrue(e.getMessage().contains("layOutForScans") && e.getMessage().contains("GROW_ONLY"),
                    e.getMessage());
        }
    }
}
