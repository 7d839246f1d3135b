package io.grove.internal.sorted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSnapshot;
import io.grove.GroveSortedMap;
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
 * {@code get}, {@code containsKey}, navigation, iteration in both orders and sub-maps; the map itself is compared
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
                    }
                } else if (op < 79) {
                    if (!snapshots.isEmpty()) {
                        int i = random.nextInt(snapshots.size());
                        GroveSnapshot<Integer, String> closed = snapshots.remove(i);
                        copies.remove(i);
                        closed.close();
                        assertEquals(model, new TreeMap<>(map), "after a snapshot's close");
                        assertThrows(IllegalStateException.class, () -> closed.get(key));
                        assertThrows(IllegalStateException.class, () -> closed.entrySet().iterator().hasNext());
                    }
                } else if (!snapshots.isEmpty()) {
                    int i = random.nextInt(snapshots.size());
                    check(snapshots.get(i), copies.get(i), random, op >= 97);
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
                snapshots.get(i).close();
            }
            assertEquals(model, new TreeMap<>(map));
            VersionsProbe.assertNoVersionsLeft(map);
        }
    }

    private static String text(Handle handle) {
        return new String(handle.toByteArray(), StandardCharsets.UTF_8);
    }

    @Test
    void snapshotsAreRefusedWithIllegalStateWhereTheMapCannotTakeThem() {
        try (GroveSortedMap<Integer, String> plain =
                GroveSortedMap.builder(Serializers.ints(), Serializers.strings()).build()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, plain::snapshot);
            assertTrue(e.getMessage().contains("snapshots()"), e.getMessage());
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
