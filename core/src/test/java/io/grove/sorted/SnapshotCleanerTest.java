package io.grove.sorted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSnapshot;
import io.grove.GroveSortedMap;
import io.grove.SnapshotFootprint;
import io.grove.serial.Serializers;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Snapshots dropped without {@code close()}: once unreachable, a garbage collection lets the map's
 * {@link java.lang.ref.Cleaner} close them, which frees their slots and the older versions only they read; and a
 * program that keeps dropping snapshots does not run out of the 1,024 slots while the dropped ones can be collected
 * (an open that finds every slot taken asks for a collection and waits for the Cleaner before it gives up). Without
 * that wait the second test throws {@link IllegalStateException} at the 1,025th open (checked by hand).
 */
class SnapshotCleanerTest {
    private static final long PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(30);

    private static GroveSortedMap<Integer, String> map() {
        return GroveSortedMap.builder(Serializers.ints(), Serializers.strings()).snapshots().build();
    }

    @Test
    void aSnapshotDroppedUnclosedIsClosedOnceUnreachableAndTheVersionItPinnedIsFreed() throws InterruptedException {
        try (GroveSortedMap<Integer, String> map = map()) {
            map.put(1, "first");
            openAndDrop(map);
            map.put(1, "second"); // keeps "first" for the dropped snapshot, which is still open
            SnapshotFootprint pinned = map.snapshotFootprint();
            assertEquals(1, pinned.openSnapshots(), pinned::toString);
            assertEquals(1, pinned.versions(), pinned::toString);
            long deadline = System.nanoTime() + PATIENCE_NANOS;
            SnapshotFootprint now;
            while ((now = map.snapshotFootprint()).openSnapshots() != 0 || now.versions() != 0) {
                assertTrue(System.nanoTime() < deadline, () -> "still held after 30 s of collections: " + map
                        .snapshotFootprint());
                System.gc();
                Thread.sleep(10);
            }
            assertEquals(new SnapshotFootprint(0, 0, 0, 0, 0), now);
            assertEquals("second", map.get(1));
        }
    }

    @Test
    void snapshotsDroppedUnclosedDoNotExhaustTheSlots() {
        try (GroveSortedMap<Integer, String> map = map()) {
            map.put(1, "first");
            for (int i = 0; i < 3 * 1024; i++) {
                openAndDrop(map);
            }
            int open = map.snapshotFootprint().openSnapshots();
            assertTrue(open <= 1024, () -> open + " open");
        }
    }

    /** Opens a snapshot, reads it, and lets it become unreachable without closing it. */
    private static void openAndDrop(GroveSortedMap<Integer, String> map) {
        GroveSnapshot<Integer, String> snapshot = map.snapshot();
        assertEquals("first", snapshot.get(1));
    }
}
