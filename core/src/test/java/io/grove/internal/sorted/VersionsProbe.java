package io.grove.internal.sorted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;

/** White-box checks of a map that takes snapshots, for tests in other packages. */
public final class VersionsProbe {
    private VersionsProbe() {}

    /** With no snapshot open, every value stands alone: no older version, no tombstone. */
    public static void assertNoVersionsLeft(GroveSortedMap<?, ?> map) {
        ChunkMap<?, ?> chunks = ((OffHeapSortedMap<?, ?>) map).map;
        Versions versions = chunks.values.versions;
        int entries = 0;
        for (Chunk c : chunks.index.snapshot()) {
            for (int e = c.first(); e != Chunk.NONE; e = c.next(e)) {
                long ref = c.valueRef(e);
                if (ref != 0) {
                    entries++;
                    boolean noted = c.mayHoldVersions();
                    assertEquals(0, versions.previous(ref), () -> "an older version left behind a value (chunk "
                            + (noted ? "" : "not ") + "noted)");
                    assertTrue(!ValueHeader.isPlaceholder(chunks.values.header(ref)), "a tombstone left");
                }
            }
            assertEquals(0, c.tombstones(), "tombstones counted");
        }
        assertEquals(map.size(), entries);
        assertEquals(2L * entries, map.footprint().liveSlices() - deadKeys(chunks), "slices beyond keys and values");
    }

    /** Key slices of entries without a value (kept until their chunk is compacted). */
    private static long deadKeys(ChunkMap<?, ?> chunks) {
        long dead = 0;
        for (Chunk c : chunks.index.snapshot()) {
            for (int e = c.first(); e != Chunk.NONE; e = c.next(e)) {
                dead += c.valueRef(e) == 0 ? 1 : 0;
            }
        }
        return dead;
    }
}
