package io.grove.internal.sorted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSnapshot;
import io.grove.GroveSortedMap;
import io.grove.SnapshotFootprint;
import io.grove.WriteBatch;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import io.grove.view.ResizableView;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Differential test of snapshots: long seeded sequences of updates (put, remove, compute, merge, in-place
 * zero-copy updates that resize or not, atomic batches) on a map built with snapshots, with snapshots opened and
 * closed among them; each open snapshot is compared with a {@link TreeMap} copied when it was opened, through
 * {@code get}, {@code containsKey}, navigation, iteration in both orders and sub-maps, and through its zero-copy reads
 * ({@code zc().get}, scans, sub-maps), whose handles are kept and read again at later steps until the snapshot
 * closes, and then throw; the footprint's figures agree with the snapshots open (closing the oldest frees exactly
 * the bytes it alone pinned); the map itself is compared
 * with the model after every step (its size, a copying and a zero-copy get, and now and then a zero-copy scan,
 * whose handles skip the version words of a value). Chunks of 4 entries, so
 * rebalances move versions and tombstones around under the open snapshots. Once every snapshot is closed, no value
 * of the map may keep an older version or be a tombstone, and a closed snapshot throws.
 */
class SnapshotDifferentialTest {
    private static final int KEYS = 120;
    private static final int STEPS = 20_000;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void everySnapshotShowsTheMapAsItWasWhenOpened(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        try (GroveSortedMap<Integer, String> map = GroveSortedMap.builder(Serializers.ints(), Serializers.strings())
                .chunkSize(4).snapshots().build()) {
            TreeMap<Integer, String> model = new TreeMap<>();
            List<GroveSnapshot<Integer, String>> snapshots = new ArrayList<>();
            List<TreeMap<Integer, String>> copies = new ArrayList<>();
            List<List<HeldHandle>> held = new ArrayList<>(); // per snapshot, handles taken from it and what they read
            for (int step = 0; step < STEPS; step++) {
                int op = random.nextInt(100);
                int key = random.nextInt(KEYS);
                String value = "v" + step + "x".repeat(random.nextInt(12));
                if (op < 25) {
                    assertEquals(model.put(key, value), map.put(key, value));
                } else if (op < 40) {
                    assertEquals(model.remove(key), map.remove(key));
                } else if (op < 47) {
                    java.util.function.BiFunction<Integer, String, String> f =
                            (k, v) -> v == null ? value : v.length() > 20 ? null : v + "c";
                    assertEquals(model.compute(key, f), map.compute(key, f));
                } else if (op < 52) {
                    assertEquals(model.merge(key, value, (a, b) -> a.length() > 25 ? null : a + "m"),
                            map.merge(key, value, (a, b) -> a.length() > 25 ? null : a + "m"));
                } else if (op < 60) {
                    boolean grow = random.nextBoolean();
                    boolean present = model.containsKey(key);
                    assertEquals(present, map.zc().computeIfPresent(key, view -> inPlace(view, grow)));
                    if (present) {
                        model.put(key, inPlace(model.get(key), grow));
                    }
                } else if (op < 68) {
                    WriteBatch<Integer, String> batch = map.batch();
                    int n = 1 + random.nextInt(8);
                    for (int i = 0; i < n; i++) {
                        int k = random.nextInt(KEYS);
                        if (random.nextInt(3) == 0) {
                            batch.remove(k);
                            model.remove(k);
                        } else {
                            String v = value + i;
                            batch.put(k, v);
                            model.put(k, v);
                        }
                    }
                    batch.apply();
                    assertEquals(model, new TreeMap<>(map), "after a batch");
                } else if (op < 74) {
                    if (snapshots.size() < 6) {
                        snapshots.add(map.snapshot());
                        copies.add(new TreeMap<>(model));
                        held.add(new ArrayList<>());
                        checkFootprint(map.snapshotFootprint(), snapshots.size());
                    }
                } else if (op < 79) {
                    if (!snapshots.isEmpty()) {
                        int i = random.nextInt(snapshots.size());
                        SnapshotFootprint before = map.snapshotFootprint();
                        GroveSnapshot<Integer, String> closed = snapshots.remove(i);
                        copies.remove(i);
                        List<HeldHandle> handles = held.remove(i);
                        closed.close();
                        SnapshotFootprint after = map.snapshotFootprint();
                        checkFootprint(after, snapshots.size());
                        if (i == 0) { // the oldest: its close frees exactly what it alone read
                            assertEquals(before.versionBytes() - before.oldestPinnedBytes(), after.versionBytes(),
                                    "bytes after closing the oldest snapshot");
                        } else {
                            assertTrue(after.versionBytes() <= before.versionBytes());
                        }
                        for (HeldHandle h : handles) {
                            assertTrue(!h.handle().isValid(), "a closed snapshot's handle is not valid");
                            assertThrows(IllegalStateException.class, () -> text(h.handle()), "a closed snapshot's");
                        }
                        assertThrows(IllegalStateException.class, closed::zc);
                        assertEquals(model, new TreeMap<>(map), "after a snapshot's close");
                        assertThrows(IllegalStateException.class, () -> closed.get(key));
                        assertThrows(IllegalStateException.class, () -> closed.entrySet().iterator().hasNext());
                    }
                } else if (!snapshots.isEmpty()) {
                    int i = random.nextInt(snapshots.size());
                    check(snapshots.get(i), copies.get(i), random, op >= 97);
                    checkZeroCopy(snapshots.get(i), copies.get(i), held.get(i), random, op >= 97);
                }
                int at = step;
                assertEquals(model.get(key), map.get(key), () -> "key " + key + " after step " + at + ", op " + op);
                assertEquals(model.size(), map.size(), () -> "size after step " + at + ", op " + op + " key " + key);
                Handle handle = map.zc().get(key);
                assertEquals(model.get(key), handle == null ? null : text(handle), "zero-copy get");
                if (step % 1000 == 0) {
                    assertEquals(new ArrayList<>(model.values()),
                            map.zc().values().stream().map(SnapshotDifferentialTest::text).toList(), "zero-copy scan");
                }
            }
            for (int i = 0; i < snapshots.size(); i++) {
                check(snapshots.get(i), copies.get(i), random, true);
                checkZeroCopy(snapshots.get(i), copies.get(i), held.get(i), random, true);
                snapshots.get(i).close();
            }
            assertEquals(model, new TreeMap<>(map));
            VersionsProbe.assertNoVersionsLeft(map);
            checkFootprint(map.snapshotFootprint(), 0);
        }
    }

    /**
     * The footprint's figures agree with {@code open} snapshots open: none, and nothing is kept; one, and it alone
     * reads every version kept (writes and sweeps free the rest at once in a single thread).
     */
    private static void checkFootprint(SnapshotFootprint footprint, int open) {
        assertEquals(open, footprint.openSnapshots(), footprint::toString);
        assertTrue(footprint.oldestPinnedBytes() <= footprint.versionBytes(), footprint::toString);
        assertTrue(footprint.versionBytes() >= 24 * footprint.versions(), footprint::toString);
        if (open == 0) {
            assertEquals(new SnapshotFootprint(0, 0, 0, 0, 0), footprint);
        } else {
            assertTrue(footprint.oldestAgeNanos() > 0, footprint::toString);
        }
        if (open == 1) {
            assertEquals(footprint.versionBytes(), footprint.oldestPinnedBytes(), footprint::toString);
        }
    }

    /** A handle taken from a snapshot, and what it read then (a key handle's key, or a value). */
    private record HeldHandle(Handle handle, String expected, boolean isKey) {
        String read() {
            return isKey ? Integer.toString(handle.getInt(0) ^ Integer.MIN_VALUE) : text(handle);
        }
    }

    /**
     * The snapshot's zero-copy reads against its copy: gets, a sub-map's entry scan in both orders (new handles) and
     * a value stream (one reused handle); some handles are kept in {@code held}, and every kept one reads what it
     * read when taken (the map has changed, rebalanced and reused memory since).
     */
    private static void checkZeroCopy(GroveSnapshot<Integer, String> snapshot, TreeMap<Integer, String> copy,
            List<HeldHandle> held, SplittableRandom random, boolean whole) {
        for (HeldHandle h : held) {
            assertTrue(h.handle().isValid());
            assertEquals(h.expected(), h.read(), "a kept handle");
        }
        for (int i = 0; i < 4; i++) {
            int key = random.nextInt(KEYS);
            Handle handle = snapshot.zc().get(key);
            assertEquals(copy.get(key), handle == null ? null : text(handle), "zero-copy get " + key);
            if (handle != null && held.size() < 64) {
                held.add(new HeldHandle(handle, copy.get(key), false));
            }
        }
        int from = random.nextInt(KEYS);
        int to = from + random.nextInt(KEYS / 4);
        List<String> expected = new ArrayList<>();
        copy.subMap(from, true, to, false).forEach((k, v) -> expected.add(k + "=" + v));
        List<String> scanned = new ArrayList<>();
        for (Map.Entry<Handle, Handle> e : snapshot.zc().subMap(from, true, to, false).entrySet()) {
            HeldHandle key = new HeldHandle(e.getKey(), null, true);
            scanned.add(key.read() + "=" + text(e.getValue()));
            if (held.size() < 64 && random.nextInt(4) == 0) {
                held.add(new HeldHandle(e.getKey(), key.read(), true));
                held.add(new HeldHandle(e.getValue(), text(e.getValue()), false));
            }
        }
        assertEquals(expected, scanned, "zero-copy subMap " + from + ".." + to);
        List<String> descending = new ArrayList<>(copy.headMap(from, true).descendingMap().values());
        assertEquals(descending, snapshot.zc().headMap(from, true).descendingMap().valueStream()
                .map(SnapshotDifferentialTest::text).toList(), "zero-copy descending head " + from);
        if (whole) {
            assertEquals(new ArrayList<>(copy.keySet()), snapshot.zc().keyStream()
                    .map(k -> k.getInt(0) ^ Integer.MIN_VALUE).toList(), "zero-copy key stream");
            var iterator = snapshot.zc().keySet().iterator();
            if (iterator.hasNext()) {
                iterator.next();
                assertThrows(UnsupportedOperationException.class, iterator::remove);
            }
        }
    }

    private static String text(Handle handle) {
        return new String(handle.toByteArray(), StandardCharsets.UTF_8);
    }

    @Test
    void withSnapshotReadsOneInstantAndClosesTheSnapshotWhateverTheReaderDoes() {
        try (GroveSortedMap<Integer, String> map =
                GroveSortedMap.builder(Serializers.ints(), Serializers.strings()).snapshots().build()) {
            for (int i = 0; i < 10; i++) {
                map.put(i, "v" + i);
            }
            List<GroveSnapshot<Integer, String>> escaped = new ArrayList<>();
            List<String> scanned = map.withSnapshot(s -> {
                escaped.add(s);
                map.put(3, "changed"); // after the snapshot: not in it
                map.remove(4);
                return s.subMap(2, true, 6, false).values().stream().toList();
            });
            assertEquals(List.of("v2", "v3", "v4", "v5"), scanned);
            assertEquals(0, map.snapshotFootprint().openSnapshots(), "closed when the reader returned");
            assertThrows(IllegalStateException.class, () -> escaped.get(0).get(1));
            RuntimeException thrown = assertThrows(RuntimeException.class, () -> map.withSnapshot(s -> {
                throw new RuntimeException("the reader's own");
            }));
            assertEquals("the reader's own", thrown.getMessage());
            assertEquals(0, map.snapshotFootprint().openSnapshots(), "closed when the reader threw");
            VersionsProbe.assertNoVersionsLeft(map);
        }
    }

    @Test
    void snapshotsAreRefusedWithIllegalStateWhereTheMapCannotTakeThem() {
        try (GroveSortedMap<Integer, String> plain =
                GroveSortedMap.builder(Serializers.ints(), Serializers.strings()).build()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, plain::snapshot);
            assertTrue(e.getMessage().contains("snapshots()"), e.getMessage());
            assertThrows(IllegalStateException.class, () -> plain.withSnapshot(s -> s.size()));
            assertEquals(new SnapshotFootprint(0, 0, 0, 0, 0), plain.snapshotFootprint());
        }
        GroveSortedMap<Integer, String> map =
                GroveSortedMap.builder(Serializers.ints(), Serializers.strings()).snapshots().build();
        List<GroveSnapshot<Integer, String>> open = new ArrayList<>();
        for (int i = 0; i < SnapshotRegistry.MAX_OPEN; i++) {
            open.add(map.snapshot());
        }
        assertThrows(IllegalStateException.class, map::snapshot, "one past the most snapshots open at once");
        open.remove(0).close();
        open.add(map.snapshot()); // a closed snapshot's slot is taken again
        open.forEach(GroveSnapshot::close);
        map.close();
        assertThrows(IllegalStateException.class, map::snapshot, "a closed map");
    }

    /** An in-place update: the value grows by one character, or its last character changes. */
    private static void inPlace(ResizableView view, boolean grow) {
        int size = view.size();
        if (grow && size < 60) {
            view.resize(size + 1);
            view.putByte(size, (byte) 'g');
        } else {
            view.putByte(size - 1, (byte) 'p');
        }
    }

    private static String inPlace(String value, boolean grow) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        return grow && bytes.length < 60 ? value + "g" : value.substring(0, value.length() - 1) + "p";
    }

    private static void check(GroveSnapshot<Integer, String> snapshot, TreeMap<Integer, String> copy,
            SplittableRandom random, boolean whole) {
        for (int i = 0; i < 8; i++) {
            int key = random.nextInt(KEYS);
            assertEquals(copy.get(key), snapshot.get(key), "get " + key);
            assertEquals(copy.containsKey(key), snapshot.containsKey(key), "containsKey " + key);
            assertEquals(copy.ceilingKey(key), snapshot.ceilingKey(key), "ceilingKey " + key);
            assertEquals(copy.lowerEntry(key), snapshot.lowerEntry(key), "lowerEntry " + key);
        }
        int from = random.nextInt(KEYS);
        int to = from + random.nextInt(KEYS / 4);
        assertEquals(new ArrayList<>(copy.subMap(from, true, to, false).entrySet()),
                new ArrayList<>(snapshot.subMap(from, true, to, false).entrySet()), "subMap " + from + ".." + to);
        assertEquals(new ArrayList<>(copy.headMap(from, false).descendingMap().entrySet()),
                new ArrayList<>(snapshot.headMap(from, false).descendingMap().entrySet()), "descending head " + from);
        if (whole) {
            assertEquals(copy.size(), snapshot.size());
            assertEquals(new ArrayList<>(copy.entrySet()), new ArrayList<>(snapshot.entrySet()));
            assertEquals(copy.firstEntry(), snapshot.firstEntry());
            assertEquals(copy.lastEntry(), snapshot.lastEntry());
            assertEquals(copy, snapshot);
        }
        assertThrows(UnsupportedOperationException.class, () -> snapshot.put(1, "x"));
        assertThrows(UnsupportedOperationException.class, () -> snapshot.remove(1));
        NavigableMap<Integer, String> sub = snapshot.tailMap(0, true);
        assertThrows(UnsupportedOperationException.class, () -> sub.pollFirstEntry());
        if (!copy.isEmpty()) {
            Map.Entry<Integer, String> first = snapshot.firstEntry();
            assertThrows(UnsupportedOperationException.class, () -> snapshot.entrySet().iterator().next()
                    .setValue(first.getValue()));
        }
    }
}
