package io.grove.internal.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** How a table is sized for its expected entries ({@link HashTable#segmentCount}, {@code initialSlotBits}). */
class TableSizingTest {
    private static final int SLICE = (8 << 20) - 16; // the largest slice with 8 MiB blocks
    /** A memory limit too small to ask for more segments than the expected sizes below do. */
    private static final long LIMIT = 64L << 20;
    private static final int SLOTS = SlotLayout.SLOT_CELL;

    @Test
    void theSegmentShareIsTheMostThatFitsAThousandAndTwentyFourSlots() {
        assertTrue(HashTable.slotsPerSegment(HashTable.SEGMENT_SHARE * 100L, 100) <= 1024);
        assertTrue(HashTable.slotsPerSegment((HashTable.SEGMENT_SHARE + 1) * 100L, 100) > 1024);
    }

    /**
     * At any expected size for which a table in memory starts whole (up to 2,048 segments of 1,024 slots: 16 MiB),
     * it starts with 1,024 slots per segment and is between 0.5 and 0.65 full at its expected size: not the 3/8 to
     * 3/4 a power-of-two number of segments gave (0.48 at 1M).
     */
    @Test
    void aTableSizedForItsExpectedSizeIsAboutTwoThirdsFullThere() {
        for (long expected = 11_000; expected <= 1_350_000; expected = expected * 11 / 10) {
            int segments = HashTable.segmentCount(expected, Long.MAX_VALUE, LIMIT, SLICE, SLOTS);
            int bits = HashTable.initialSlotBits(expected, segments, SLICE, false, SLOTS);
            double load = (double) expected / segments / (1 << bits);
            assertEquals(10, bits, "expected " + expected + ", " + segments + " segments");
            assertTrue(load > 0.5 && load <= 0.65, "expected " + expected + ": load " + load);
        }
        assertEquals(1511, HashTable.segmentCount(1_000_000, Long.MAX_VALUE, LIMIT, SLICE, SLOTS));
    }

    @Test
    void theSegmentCountHasItsBounds() {
        assertEquals(HashTable.MIN_SEGMENTS, HashTable.segmentCount(0, Long.MAX_VALUE, 1 << 20, SLICE, SLOTS));
        assertEquals(HashTable.MAX_SEGMENTS, HashTable.segmentCount(1L << 40, Long.MAX_VALUE, LIMIT, SLICE, SLOTS));
        assertEquals(3, HashTable.segmentCount(1_000_000, 3, LIMIT, SLICE, SLOTS),
                "a bounded map: an entry per segment");
        // 9 GB of the smallest entries: 409 segments before the slot arrays of fewer could hold them all
        assertEquals(409, HashTable.segmentCount(0, Long.MAX_VALUE, 9_000_000_000L, SLICE, SLOTS));
    }

    /**
     * Cells that hold entries (here of 8-byte keys and 248-byte values: 304 bytes) change only the bounds that
     * depend on a cell's size: the cells an array may have, and how many segments a pool's memory fills.
     */
    @Test
    void cellsOfEntriesScaleTheBoundsThatDependOnTheirSize() {
        int cell = (int) HashTable.cellBytesFor(8, 248);
        assertEquals(304, cell, "16 bytes of cell header, 24 of fields, the key and the value");
        assertEquals(1511, HashTable.segmentCount(1_000_000, Long.MAX_VALUE, LIMIT, SLICE, cell));
        assertEquals(10, HashTable.initialSlotBits(1_000_000, 1511, SLICE, false, cell));
        assertEquals(14, SegmentGrowth.maxSlotBits(SLICE, cell), "8 MiB holds 27,594 cells: 2^14 of them");
        // 9 GB of 304-byte cells: 29.6 million entries, 14,336 (7/8 of 2^14) per segment
        assertEquals(2066, HashTable.segmentCount(0, Long.MAX_VALUE, 9_000_000_000L, SLICE, cell));
        assertEquals(HashTable.MIN_CELL, HashTable.cellBytesFor(0, 0));
        assertEquals(1511L * 1024 * (cell + 1), HashTable.slotBytesAt(1_000_000, 1511, cell));
        assertEquals(Long.MAX_VALUE, HashTable.slotBytesAt(Long.MAX_VALUE / 2, HashTable.MAX_SEGMENTS, cell));
    }

    /** Every segment gets its share of hashes, whatever the segment count, and the top 24 bits alone choose it. */
    @Test
    void hashesSpreadOverAnyNumberOfSegments() {
        for (int segments : new int[] {1, 3, 16, 1511, HashTable.MAX_SEGMENTS}) {
            long[] counts = new long[segments];
            for (long top = 0; top < 1 << 24; top++) {
                counts[HashTable.segmentOf(top << 40 | 0xFF_FFFF_FFFFL, segments)]++;
            }
            long fair = (1L << 24) / segments;
            for (int s = 0; s < segments; s++) {
                assertTrue(counts[s] == fair || counts[s] == fair + 1, segments + " segments: " + counts[s]);
            }
            assertEquals(0, HashTable.segmentOf(0xFF_FFFF_FFFFL, segments));
        }
    }
}
