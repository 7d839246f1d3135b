package io.grove.bench.rollup;

import java.util.Arrays;

/**
 * One worker thread's buffers for the rollup family: the query's groups, and the counts of what it ingested, which
 * the family checks against the index after the run. A contender keeps its own reusable objects in {@link #own}.
 */
final class RollupThread {
    /** Per value of the queried dimension: count, sum and max, at {@code 3 * value}. */
    final long[] groups = new long[3 * maxCardinality()];
    /** Events ingested by this thread, and the sum of their metrics. */
    long ingested;
    long metricSum;
    /** The contender's own per-thread objects (key buffers, reused consumers). */
    Object own;

    void clearGroups(int d) {
        Arrays.fill(groups, 0, 3 * RollupEvents.CARDINALITIES[d], 0);
    }

    /** Adds a row's metrics to the group of {@code value}. */
    void group(int value, long count, long sum, long max) {
        int g = 3 * value;
        groups[g] += count;
        groups[g + 1] += sum;
        if (max > groups[g + 2]) {
            groups[g + 2] = max;
        }
    }

    /** The count over every group of dimension {@code d}. */
    long groupedCount(int d) {
        long total = 0;
        for (int v = 0; v < RollupEvents.CARDINALITIES[d]; v++) {
            total += groups[3 * v];
        }
        return total;
    }

    private static int maxCardinality() {
        return Arrays.stream(RollupEvents.CARDINALITIES).max().orElseThrow();
    }
}
