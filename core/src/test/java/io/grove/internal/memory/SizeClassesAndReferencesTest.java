package io.grove.internal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SizeClassesAndReferencesTest {

    /** The lower bound of a class, found by search: the smallest capacity whose class it is. */
    private static long lowerBound(int c) {
        long lo = 1;
        long hi = 1L << 27;
        while (lo < hi) {
            long mid = (lo + hi) >>> 1;
            if (FreeLists.classOf(mid) >= c) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    @Test
    void roundedCapacityFitsItsClassAndWastesAtMostAQuarter() {
        for (long n = 2; n <= 1L << 26; n = n < 20_000 ? n + 1 : n + n / 7 + 1) {
            long rounded = FreeLists.roundedCapacity(n);
            assertTrue(rounded >= n && rounded <= n + n / 4 + 1, "n=" + n + " rounded=" + rounded);
            int c = FreeLists.classOf(rounded);
            assertEquals(rounded, lowerBound(c), "a rounded capacity is its class's lower bound, n=" + n);
            assertTrue(FreeLists.classOf(n) <= c);
        }
    }

    @Test
    void classesAreMonotoneAndSmallOnesExact() {
        int previous = FreeLists.classOf(2);
        for (long capacity = 3; capacity < 300_000; capacity++) {
            int c = FreeLists.classOf(capacity);
            assertTrue(c >= previous, "capacity " + capacity);
            if (capacity <= FreeLists.SMALL_MAX) {
                assertEquals(capacity, c);
            }
            previous = c;
        }
    }

    @Test
    void referenceFieldsRoundTrip() {
        long granule = Reference.GRANULE_MASK;
        int version = (int) Reference.VERSION_COUNT;
        long ref = Reference.of(granule, version);
        assertEquals(granule, Reference.granule(ref));
        assertEquals(version, Reference.version(ref));
        assertFalse(Reference.isDeleted(ref));
        long deleted = Reference.asDeleted(ref);
        assertTrue(Reference.isDeleted(deleted));
        assertEquals(Reference.granule(ref), Reference.granule(deleted));
        assertFalse(Reference.sameIncarnation(SliceHeader.state(version, 5), deleted));
        assertTrue(Reference.sameIncarnation(SliceHeader.state(version, 5), ref));
        assertFalse(Reference.sameIncarnation(SliceHeader.state(version - 1, 5), ref));
    }

    @Test
    void versionsWrapOntoOneToCountAndNeverZero() {
        assertEquals(1, Reference.versionOfEra(1));
        assertEquals((int) Reference.VERSION_COUNT, Reference.versionOfEra(Reference.VERSION_COUNT));
        assertEquals(1, Reference.versionOfEra(Reference.VERSION_COUNT + 1));
        assertEquals(2, Reference.versionOfEra(2 * Reference.VERSION_COUNT + 2));
        assertTrue(Reference.of(0, 1) != Reference.NULL);
    }
}
