package io.grove.bench.rollup;

import io.grove.bench.maps.ZipfTrace;
import java.util.SplittableRandom;

/**
 * The synthetic event stream of the rollup scenarios, the same for every contender (fixed seeds): {@code count}
 * events of one day in time order, each with a timestamp, {@value #DIMENSIONS} dimension values and one metric.
 * Druid's incremental index groups such events into rows by (time bucket, dimension values) and aggregates their
 * metrics per row; here a bucket is one hour ({@value #BUCKETS} buckets) and the row keeps count, sum and max.
 *
 * <p>Dimension {@code d} takes values in {@code [0, CARDINALITIES[d])} with Zipf(1.0) frequencies (value 0 the most
 * frequent), as dictionary-encoded dimensions are; the metric is uniform in {@code [0, 1000)}. The cardinalities
 * were chosen so that the default 2,000,000 events roll up into about 5 events per row (the index's row count is the
 * run's {@code entries}).
 */
final class RollupEvents {
    static final int DIMENSIONS = 5;
    static final int[] CARDINALITIES = {2, 4, 8, 16, 32};
    static final double ZIPF_EXPONENT = 1.0;
    static final int BUCKETS = 24;
    static final long BUCKET_MILLIS = 3_600_000L;
    /** 2026-01-01T00:00:00Z. */
    static final long DAY_START_MILLIS = 1_767_225_600_000L;
    static final int METRIC_BOUND = 1_000;

    final int count;
    /** Dimension {@code d} of event {@code e} at {@code e * DIMENSIONS + d}. */
    private final int[] dimensions;
    private final int[] metrics;
    /** The first event of each bucket, and {@code count} at index {@link #BUCKETS}. */
    private final int[] bucketStarts = new int[BUCKETS + 1];

    RollupEvents(int count) {
        this.count = count;
        this.dimensions = new int[count * DIMENSIONS];
        for (int d = 0; d < DIMENSIONS; d++) {
            int[] values = ZipfTrace.generate(CARDINALITIES[d], ZIPF_EXPONENT, count, 0xD1_0000L + d);
            for (int e = 0; e < count; e++) {
                dimensions[e * DIMENSIONS + d] = values[e];
            }
        }
        SplittableRandom random = new SplittableRandom(0x3E7_41CL);
        this.metrics = new int[count];
        for (int e = 0; e < count; e++) {
            metrics[e] = random.nextInt(METRIC_BOUND);
        }
        for (int b = 0; b <= BUCKETS; b++) {
            bucketStarts[b] = (int) ((b * (long) count + BUCKETS - 1) / BUCKETS);
        }
    }

    /** Event {@code e}'s time bucket: events are spread evenly over the day, in order. */
    int bucket(int e) {
        return (int) ((long) e * BUCKETS / count);
    }

    /** The timestamp that starts {@code bucket} (a query's bound; {@link #BUCKETS} ends the day). */
    static long bucketMillis(int bucket) {
        return DAY_START_MILLIS + bucket * BUCKET_MILLIS;
    }

    int dimension(int e, int d) {
        return dimensions[e * DIMENSIONS + d];
    }

    int metric(int e) {
        return metrics[e];
    }

    /** Events whose bucket lies in {@code [from, to)}. */
    int eventsIn(int from, int to) {
        return bucketStarts[to] - bucketStarts[from];
    }
}
