package io.grove.bench.rollup;

import io.grove.bench.Subject;

/**
 * An index that rolls events up into rows (the rollup family's subject): one row per (time bucket, dimension
 * values), its metrics aggregated as events arrive: count, sum and max of the event's metric.
 */
interface RollupIndex extends Subject {

    /** Aggregates event {@code e} of {@code events} into its row, creating the row if it is the first. */
    void ingest(RollupEvents events, int e, RollupThread t);

    /**
     * The time-range query: for dimension {@code d}, every value's count, sum and max over the rows of buckets
     * {@code [from, to)}, accumulated into {@code t}'s groups ({@link RollupThread#groups}, cleared first); returns
     * the rows read.
     */
    long query(int from, int to, int d, RollupThread t);

    /** The number of rows. */
    long size();

    /** Over every row: the sum of the counts and the sum of the sums (with no writer running). */
    long[] totals();

    @Override
    default long entries() {
        return size();
    }
}
