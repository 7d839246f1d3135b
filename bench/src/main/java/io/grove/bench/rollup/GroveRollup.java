package io.grove.bench.rollup;

import io.grove.GroveSortedMap;
import io.grove.ZeroCopySortedMap;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import io.grove.view.ReadView;
import io.grove.view.ResizableView;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Grove's ordered map as a rollup index, the way Oak serves Druid's incremental index: a row's key is 28 bytes
 * (timestamp, then the {@value RollupEvents#DIMENSIONS} dimension values, each big-endian, so that the map's
 * unsigned byte order is time, then dimensions), its value 24 bytes (count, sum, max). An event is aggregated in
 * place with {@code zc().putIfAbsentComputeIfPresent}: no object per event, the row's bytes updated off heap under
 * the value's lock. A query streams {@code zc().subMap(from, to).entryStream()} and reads each row's three metrics
 * in one consistent read ({@link Handle#read}).
 */
final class GroveRollup implements RollupIndex {
    static final int KEY_SIZE = Long.BYTES + Integer.BYTES * RollupEvents.DIMENSIONS;
    static final int VALUE_SIZE = 3 * Long.BYTES;
    private static final int COUNT = 0;
    private static final int SUM = 8;
    private static final int MAX = 16;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private final GroveSortedMap<byte[], byte[]> map;
    private final ZeroCopySortedMap<byte[], byte[]> zc;

    /** An index with an off-heap limit of {@code memoryLimit}; {@code layOut}: built with {@code layOutForScans()}. */
    GroveRollup(long memoryLimit, boolean layOut) {
        GroveSortedMap.Builder<byte[], byte[]> builder =
                GroveSortedMap.builder(Serializers.bytes(), Serializers.bytes()).memoryLimit(memoryLimit);
        this.map = (layOut ? builder.layOutForScans() : builder).build();
        this.zc = map.zc();
    }

    /** A thread's buffers and reused functions. */
    private static final class Local implements Consumer<Map.Entry<Handle, Handle>> {
        final byte[] key = new byte[KEY_SIZE];
        final byte[] from = new byte[KEY_SIZE];
        final byte[] to = new byte[KEY_SIZE];
        final byte[] value = new byte[VALUE_SIZE];
        final Aggregator aggregator = new Aggregator();
        final Metrics metrics = new Metrics();
        final RollupThread t;
        /** The query's dimension. */
        int dimension;
        long rows;

        Local(RollupThread t) {
            this.t = t;
        }

        @Override
        public void accept(Map.Entry<Handle, Handle> row) {
            int groupValue = row.getKey().getInt(Long.BYTES + Integer.BYTES * dimension);
            row.getValue().read(metrics);
            t.group(groupValue, metrics.count, metrics.sum, metrics.max);
            rows++;
        }
    }

    /**
     * Reads a row's metrics in one consistent read. Without side effects beyond its fields, as {@link Handle#read}
     * asks: it runs again if the value changes or moves under it.
     */
    private static final class Metrics implements Function<ReadView, Object> {
        long count;
        long sum;
        long max;

        @Override
        public Object apply(ReadView value) {
            count = value.getLong(COUNT);
            sum = value.getLong(SUM);
            max = value.getLong(MAX);
            return null;
        }
    }

    /** Adds one event's metric to a row's value in place. */
    private static final class Aggregator implements Consumer<ResizableView> {
        long metric;

        @Override
        public void accept(ResizableView v) {
            v.putLong(COUNT, v.getLong(COUNT) + 1);
            v.putLong(SUM, v.getLong(SUM) + metric);
            if (metric > v.getLong(MAX)) {
                v.putLong(MAX, metric);
            }
        }
    }

    private static Local local(RollupThread t) {
        return t.own instanceof Local l ? l : (Local) (t.own = new Local(t));
    }

    @Override
    public void ingest(RollupEvents events, int e, RollupThread t) {
        Local l = local(t);
        LONGS.set(l.key, 0, RollupEvents.bucketMillis(events.bucket(e)));
        for (int d = 0; d < RollupEvents.DIMENSIONS; d++) {
            INTS.set(l.key, Long.BYTES + Integer.BYTES * d, events.dimension(e, d));
        }
        long metric = events.metric(e);
        LONGS.set(l.value, COUNT, 1L);
        LONGS.set(l.value, SUM, metric);
        LONGS.set(l.value, MAX, metric);
        l.aggregator.metric = metric;
        zc.putIfAbsentComputeIfPresent(l.key, l.value, l.aggregator);
    }

    @Override
    public long query(int from, int to, int d, RollupThread t) {
        Local l = local(t);
        LONGS.set(l.from, 0, RollupEvents.bucketMillis(from)); // the dimension bytes stay 0: the bucket's first row
        LONGS.set(l.to, 0, RollupEvents.bucketMillis(to));
        t.clearGroups(d);
        l.dimension = d;
        l.rows = 0;
        zc.subMap(l.from, true, l.to, false).entryStream().forEach(l);
        return l.rows;
    }

    @Override
    public long size() {
        return map.size();
    }

    @Override
    public long[] totals() {
        long[] totals = new long[2];
        zc.valueStream().forEach(v -> {
            totals[0] += v.getLong(COUNT);
            totals[1] += v.getLong(SUM);
        });
        return totals;
    }

    @Override
    public OffHeap offHeap() {
        return OffHeap.of(map.footprint());
    }

    @Override
    public void close() {
        map.close();
    }
}
