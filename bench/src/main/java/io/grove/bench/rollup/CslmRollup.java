package io.grove.bench.rollup;

import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The baseline: {@code ConcurrentSkipListMap<Row, Aggregate>} on the Java heap, as a Java programmer writes a
 * concurrent rollup: a row key object (timestamp and the {@value RollupEvents#DIMENSIONS} dimension values, ordered
 * by time, then dimensions), an immutable aggregate, and {@code merge} to fold each event in (a new key and a new
 * aggregate per event; the map keeps the key of a new row and the newest aggregate). A query iterates
 * {@code subMap(from, to)}.
 */
final class CslmRollup implements RollupIndex {
    /** Not final only so that {@link #close} can drop it whole. */
    private ConcurrentSkipListMap<Row, Aggregate> map = new ConcurrentSkipListMap<>();

    /** A row's key. */
    record Row(long time, int d0, int d1, int d2, int d3, int d4) implements Comparable<Row> {
        @Override
        public int compareTo(Row o) {
            int c = Long.compare(time, o.time);
            c = c != 0 ? c : Integer.compare(d0, o.d0);
            c = c != 0 ? c : Integer.compare(d1, o.d1);
            c = c != 0 ? c : Integer.compare(d2, o.d2);
            c = c != 0 ? c : Integer.compare(d3, o.d3);
            return c != 0 ? c : Integer.compare(d4, o.d4);
        }

        int dimension(int d) {
            return switch (d) {
                case 0 -> d0;
                case 1 -> d1;
                case 2 -> d2;
                case 3 -> d3;
                default -> d4;
            };
        }

        /** The first row of a bucket starting at {@code time}. */
        static Row first(long time) {
            return new Row(time, 0, 0, 0, 0, 0);
        }
    }

    /** A row's metrics. */
    record Aggregate(long count, long sum, long max) {
        static Aggregate combine(Aggregate a, Aggregate b) {
            return new Aggregate(a.count + b.count, a.sum + b.sum, Math.max(a.max, b.max));
        }
    }

    @Override
    public void ingest(RollupEvents events, int e, RollupThread t) {
        long metric = events.metric(e);
        Row row = new Row(RollupEvents.bucketMillis(events.bucket(e)), events.dimension(e, 0),
                events.dimension(e, 1), events.dimension(e, 2), events.dimension(e, 3), events.dimension(e, 4));
        map.merge(row, new Aggregate(1, metric, metric), Aggregate::combine);
    }

    @Override
    public long query(int from, int to, int d, RollupThread t) {
        t.clearGroups(d);
        long rows = 0;
        for (var e : map.subMap(Row.first(RollupEvents.bucketMillis(from)), true,
                Row.first(RollupEvents.bucketMillis(to)), false).entrySet()) {
            Aggregate a = e.getValue();
            t.group(e.getKey().dimension(d), a.count, a.sum, a.max);
            rows++;
        }
        return rows;
    }

    @Override
    public long size() {
        return map.size();
    }

    @Override
    public long[] totals() {
        long[] totals = new long[2];
        for (Aggregate a : map.values()) {
            totals[0] += a.count;
            totals[1] += a.sum;
        }
        return totals;
    }

    @Override
    public void close() {
        map = new ConcurrentSkipListMap<>();
    }
}
