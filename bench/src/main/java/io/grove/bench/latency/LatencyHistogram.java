package io.grove.bench.latency;

/**
 * Latencies in nanoseconds, counted in log-linear bins (as HdrHistogram does): values below
 * 2<sup>{@value #SUB_BITS}+1</sup> ns each have their own bin, and every further power of two is split into
 * 2<sup>{@value #SUB_BITS}</sup> bins of equal width, so a value reported stands for every value within 1/128
 * (0.8%) of it. Up to 2<sup>63</sup> ns in a fixed array of 7,296 counts; {@link #record} never allocates. The
 * maximum is kept exactly. One thread records; merge threads' histograms with {@link #add} after joining them.
 */
final class LatencyHistogram {
    static final int SUB_BITS = 7;
    private static final int SUB_BINS = 1 << SUB_BITS;

    private final long[] counts = new long[(64 - SUB_BITS) * SUB_BINS];
    private long total;
    private long max;

    /** Counts one latency; a negative one (a clock that stepped back) counts as 0. */
    void record(long nanos) {
        long v = Math.max(0, nanos);
        counts[bin(v)]++;
        total++;
        if (v > max) {
            max = v;
        }
    }

    /** Adds the counts of {@code other} to this one. */
    void add(LatencyHistogram other) {
        for (int i = 0; i < counts.length; i++) {
            counts[i] += other.counts[i];
        }
        total += other.total;
        max = Math.max(max, other.max);
    }

    long count() {
        return total;
    }

    long max() {
        return max;
    }

    /**
     * The latency that {@code quantile} (in (0, 1]) of the values recorded do not exceed: the highest value of
     * the bin that holds the value of rank {@code ceil(quantile × count)}, at most {@link #max()}; 0 if empty.
     */
    long valueAt(double quantile) {
        if (!(quantile > 0 && quantile <= 1)) {
            throw new IllegalArgumentException("quantile must be in (0, 1], was " + quantile);
        }
        if (total == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(quantile * total));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(highestIn(i), max);
            }
        }
        return max;
    }

    /**
     * The bin of {@code v} (at least 0): {@code v} itself below 2<sup>SUB_BITS</sup>; above, the power of two
     * {@code v} falls in (its highest bit) picks a row of {@value #SUB_BINS} bins and the next {@value #SUB_BITS}
     * bits the bin in the row.
     */
    static int bin(long v) {
        if (v < SUB_BINS) {
            return (int) v;
        }
        int shift = 63 - Long.numberOfLeadingZeros(v) - SUB_BITS;
        return ((shift + 1) << SUB_BITS) + (int) ((v >>> shift) - SUB_BINS);
    }

    /** The highest value that falls into bin {@code i}. */
    static long highestIn(int i) {
        int row = i >>> SUB_BITS;
        if (row == 0) {
            return i;
        }
        int shift = row - 1;
        long lowest = (long) (SUB_BINS + (i & (SUB_BINS - 1))) << shift;
        return lowest + (1L << shift) - 1;
    }
}
