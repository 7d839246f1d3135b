package io.grove.bench.latency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    /** Every value falls into a bin whose values are within 1/128 of it, and bins are in value order. */
    @Test
    void binsHoldTheirValuesWithinTheResolution() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 1_000_000; i++) {
            long v = i < 10_000 ? i : random.nextLong(Long.MAX_VALUE) >>> random.nextInt(63);
            int bin = LatencyHistogram.bin(v);
            long highest = LatencyHistogram.highestIn(bin);
            long lowest = bin == 0 ? 0 : LatencyHistogram.highestIn(bin - 1) + 1;
            assertTrue(lowest <= v && v <= highest, v + " outside its bin [" + lowest + ", " + highest + "]");
            assertTrue((highest - lowest) * 128 <= Math.max(lowest, 1), "bin of " + v + " too wide: " + lowest
                    + ".." + highest);
        }
        assertEquals(Long.MAX_VALUE, LatencyHistogram.highestIn(LatencyHistogram.bin(Long.MAX_VALUE)));
    }

    @Test
    void quantilesOfKnownValues() {
        LatencyHistogram h = new LatencyHistogram();
        for (long v = 1; v <= 100_000; v++) {
            h.record(v * 1_000);
        }
        assertEquals(100_000, h.count());
        assertEquals(100_000_000, h.max());
        assertWithinResolution(50_000_000, h.valueAt(0.5));
        assertWithinResolution(99_000_000, h.valueAt(0.99));
        assertWithinResolution(99_900_000, h.valueAt(0.999));
        assertEquals(100_000_000, h.valueAt(1.0), "the top quantile is the maximum itself");
        assertWithinResolution(1_000, h.valueAt(1e-9));
    }

    @Test
    void oneSlowSampleAmongManyFastOnesIsOnlyTheTopRank() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < 99_999; i++) {
            h.record(300);
        }
        h.record(200_000_000);
        assertWithinResolution(300, h.valueAt(0.9999));
        assertWithinResolution(300, h.valueAt(0.99999)); // rank 99,999 of 100,000
        assertEquals(200_000_000, h.valueAt(0.999991));
        assertEquals(200_000_000, h.max());
    }

    @Test
    void addMergesCountsAndMaximum() {
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        for (int i = 0; i < 1_000; i++) {
            a.record(100);
            b.record(5_000_000);
        }
        a.add(b);
        assertEquals(2_000, a.count());
        assertEquals(5_000_000, a.max());
        assertEquals(100, a.valueAt(0.5));
        assertWithinResolution(5_000_000, a.valueAt(0.5001));
    }

    @Test
    void emptyNegativeAndBadQuantiles() {
        LatencyHistogram h = new LatencyHistogram();
        assertEquals(0, h.valueAt(0.99));
        h.record(-5);
        assertEquals(0, h.max());
        assertEquals(0, h.valueAt(1));
        assertThrows(IllegalArgumentException.class, () -> h.valueAt(0));
        assertThrows(IllegalArgumentException.class, () -> h.valueAt(1.5));
        assertThrows(IllegalArgumentException.class, () -> h.valueAt(Double.NaN));
    }

    private static void assertWithinResolution(long expected, long actual) {
        assertTrue(actual >= expected && actual - expected <= expected / 128 + 1,
                "expected " + expected + " (up to 1/128 above), was " + actual);
    }
}
