package io.grove.bench.ordered;

import io.grove.GroveSortedMap;
import io.grove.ZeroCopySortedMap;
import io.grove.bench.ThreadContext;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import io.grove.view.ReadView;
import io.grove.view.ResizableView;
import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Grove's ordered map ({@link GroveSortedMap}, byte-array keys and values through {@link Serializers#bytes()}, so
 * keys are ordered by their unsigned bytes), used through its zero-copy API ({@link GroveSortedMap#zc()}) except
 * for {@code copyGet}, which is {@code Map.get} (deserializes the whole value into a new {@code byte[]}). Keys and
 * values passed in are the thread's reusable buffers: the map copies them off heap.
 *
 * <p>Scans: the set API iterates {@code zc().tailMap(from, true).entrySet()} (or {@code headMap(from, true)
 * .descendingMap()}), a new entry and two handles per pair; the stream API is {@code entryStream()} on the same
 * view, one entry and two handles reused for the whole scan. A stream scan whose handle finds its value replaced by a
 * writer ({@link ConcurrentModificationException}, as the zero-copy API promises) resumes after the last pair it read,
 * counted as a read retry.
 */
final class GroveSortedKv implements OrderedKv {
    /** Increments the 8-byte counter in place (Oak's computeIfPresent of Fig. 4b). */
    private static final Consumer<ResizableView> INCREMENT =
            v -> v.putLong(OrderedCodec.COUNTER, v.getLong(OrderedCodec.COUNTER) + 1);

    private final GroveSortedMap<byte[], byte[]> map;
    private final ZeroCopySortedMap<byte[], byte[]> zc;

    GroveSortedKv(GroveSortedMap<byte[], byte[]> map) {
        this.map = map;
        this.zc = map.zc();
    }

    /** The builder of the contenders' maps: byte arrays, off-heap limit {@code memoryLimit}. */
    static GroveSortedMap.Builder<byte[], byte[]> builder(long memoryLimit) {
        return GroveSortedMap.builder(Serializers.bytes(), Serializers.bytes()).memoryLimit(memoryLimit);
    }

    /** The map itself, for the ingestion scenario. */
    GroveSortedMap<byte[], byte[]> map() {
        return map;
    }

    @Override
    public boolean putIfAbsent(int key, OrderedThread t) {
        OrderedCodec.setKey(t.key, key);
        OrderedCodec.setValue(t.value, key);
        return zc.putIfAbsent(t.key, t.value);
    }

    @Override
    public void put(int key, OrderedThread t) {
        OrderedCodec.setKey(t.key, key);
        OrderedCodec.setValue(t.value, key);
        zc.put(t.key, t.value);
    }

    @Override
    public void upsert(int key, OrderedThread t) {
        OrderedCodec.setKey(t.key, key);
        OrderedCodec.setValue(t.value, key);
        zc.putIfAbsentComputeIfPresent(t.key, t.value, INCREMENT);
    }

    @Override
    public boolean zeroCopyGet(int key, OrderedThread t, ThreadContext c) {
        OrderedCodec.setKey(t.key, key);
        while (true) {
            Handle h = zc.get(t.key);
            if (h == null) {
                return false;
            }
            try {
                long keyWord = h.getLong(OrderedCodec.KEY_WORD);
                long counter = h.getLong(OrderedCodec.COUNTER);
                long check = h.getLong(OrderedCodec.CHECK_WORD);
                if (!OrderedCodec.wordsMatch(key, keyWord, check)) {
                    c.mismatches++;
                }
                c.sink += counter ^ check;
                return true;
            } catch (ConcurrentModificationException replaced) {
                c.readRetries++;
            }
        }
    }

    @Override
    public boolean copyGet(int key, OrderedThread t, ThreadContext c) {
        OrderedCodec.setKey(t.key, key);
        byte[] value = map.get(t.key);
        if (value == null) {
            return false;
        }
        long keyWord = (long) OrderedCodec.LONGS.get(value, OrderedCodec.KEY_WORD);
        long check = (long) OrderedCodec.LONGS.get(value, OrderedCodec.CHECK_WORD);
        if (!OrderedCodec.wordsMatch(key, keyWord, check)) {
            c.mismatches++;
        }
        c.sink += (long) OrderedCodec.LONGS.get(value, OrderedCodec.COUNTER) ^ check;
        return true;
    }

    @Override
    public void scan(int from, boolean descending, boolean stream, OrderedThread t, ThreadContext c) {
        OrderedCodec.setKey(t.key, from);
        ZeroCopySortedMap<byte[], byte[]> view = descending ? zc.headMap(t.key, true).descendingMap()
                : zc.tailMap(t.key, true);
        if (stream) {
            Sink sink = t.own instanceof Sink s ? s : (Sink) (t.own = new Sink(t));
            sink.descending = descending;
            while (true) {
                try {
                    view.entryStream().limit(SCAN_PAIRS - t.scanned).forEach(sink);
                    return;
                } catch (ConcurrentModificationException replaced) {
                    // a value replaced by a writer under its handle (the zero-copy contract): resume after the
                    // last pair read, as a consumer under writes must
                    c.readRetries++;
                    if (t.scanned > 0) {
                        OrderedCodec.setKey(t.key, t.lastKey);
                        view = descending ? zc.headMap(t.key, false).descendingMap() : zc.tailMap(t.key, false);
                    }
                }
            }
        } else {
            int n = 0;
            for (Map.Entry<Handle, Handle> e : view.entrySet()) {
                touch(e.getKey(), e.getValue(), descending, t);
                if (++n == SCAN_PAIRS) {
                    break;
                }
            }
        }
    }

    private static void touch(ReadView key, ReadView value, boolean descending, OrderedThread t) {
        t.see(key.getInt(0), value.getLong(OrderedCodec.KEY_WORD), value.getLong(OrderedCodec.CHECK_WORD),
                descending);
    }

    /** The stream scan's consumer, one per thread, reused from scan to scan. */
    private static final class Sink implements Consumer<Map.Entry<Handle, Handle>> {
        private final OrderedThread t;
        boolean descending;

        Sink(OrderedThread t) {
            this.t = t;
        }

        @Override
        public void accept(Map.Entry<Handle, Handle> e) {
            touch(e.getKey(), e.getValue(), descending, t);
        }
    }

    @Override
    public long verify() {
        long wrong = 0;
        int previous = -1;
        for (Map.Entry<byte[], byte[]> e : map.entrySet()) {
            int key = OrderedCodec.keyOf(e.getKey());
            if (key <= previous || !OrderedCodec.keyIsWellFormed(e.getKey())
                    || !OrderedCodec.valueIsWellFormed(key, e.getValue())) {
                wrong++;
            }
            previous = key;
        }
        return wrong;
    }

    @Override
    public long size() {
        return map.size();
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
