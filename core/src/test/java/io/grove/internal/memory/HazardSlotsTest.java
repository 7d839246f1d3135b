package io.grove.internal.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/**
 * The announced granules a reclaim checks its batch against: sorted, every announced slice once per announcement,
 * and, when nothing is announced (the usual case, once per release batch), the same empty array without allocating.
 */
class HazardSlotsTest {
    @Test
    void announcedGranulesAreSortedAndNoneAllocatesNothing() {
        HazardSlots hazards = new HazardSlots();
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
