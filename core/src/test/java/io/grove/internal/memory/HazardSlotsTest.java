package io.grove.internal.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The announced granules a reclaim checks its batch against: sorted, every announced slice once per announcement,
 * and, when nothing is announced (the usual case, once per release batch), the same empty array without allocating.
 */
class HazardSlotsTest {
    @Test
    void announcedGranulesAreSortedAndNoneAllocatesNothing() {
        check(new HazardSlots.OnHeap());
    }

    /**
     * A file's slots (here in memory of the same size) hold the writer's process record beside the granule: the
     * granules come back without it; emptied at once by a process that opens the file alone.
     */
    @Test
    void aFilesSlotsGiveTheGranulesAlone() {
        try (Arena arena = Arena.ofConfined()) {
            HazardSlots.InFile hazards = new HazardSlots.InFile(arena.allocate(64 * 1024, 64), 255);
            check(hazards);
            hazards.announce(Reference.of(Reference.GRANULE_MASK, 7));
            assertArrayEquals(new long[] {Reference.GRANULE_MASK}, hazards.announcedGranules());
            hazards.clearAll();
            assertEquals(0, hazards.announcedGranules().length);
        }
    }

    /** The slots a process that ended left filled are emptied; another process's stay. */
    @Test
    void aFilesSlotsOfAnEndedProcessAreEmptiedAlone() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment area = arena.allocate(64 * 1024, 64);
            HazardSlots.InFile ended = new HazardSlots.InFile(area, 3);
            HazardSlots.InFile alive = new HazardSlots.InFile(area, 4);
            ended.announce(Reference.of(100, 1));
            ended.announce(Reference.of(200, 1));
            alive.announce(Reference.of(300, 1));
            assertEquals(0, alive.clearOf(2));
            assertEquals(2, alive.clearOf(3));
            assertArrayEquals(new long[] {300}, alive.announcedGranules());
        }
    }

    private static void check(HazardSlots hazards) {
        long[] none = hazards.announcedGranules();
        assertEquals(0, none.length);
        assertSame(none, hazards.announcedGranules(), "no new array when no write is announced");

        long[] tokens = new long[40]; // more than the first array the scan grows from
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = hazards.announce(Reference.of(1_000 - i * 10L, 1));
        }
        long[] expected = new long[tokens.length];
        for (int i = 0; i < tokens.length; i++) {
            expected[i] = 1_000 - (tokens.length - 1 - i) * 10L;
        }
        assertArrayEquals(expected, hazards.announcedGranules());
        for (long token : tokens) {
            hazards.clear(token);
        }
        assertSame(none, hazards.announcedGranules());
    }
}
