package io.grove.bench.ordered;

import io.grove.bench.ThreadContext;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;

/**
 * The baseline: {@code ConcurrentSkipListMap<ByteKey, byte[]>} on the Java heap (the Oak paper's Skiplist-OnHeap).
 * A write stores a new key object and a new value array (the map keeps references); a lookup uses the thread's
 * reusable key. Its object API hands out the stored array, so {@code zeroCopyGet} and {@code copyGet} are the same
 * {@code get} (Oak's performance evaluation: "Oak's gets with copy perform the same as CSLM's gets").
 * {@code upsert} is Oak's skiplist variant: a non-atomic in-place increment of the stored array's counter if
 * present, else {@code putIfAbsent}. Scans: the set API iterates {@code tailMap(from, true).entrySet()} (descending:
 * {@code headMap(from, true).descendingMap()}); "stream" is {@code entrySet().stream().limit(10,000).forEach} on the
 * same view, as the map has no stream that reuses objects (its entries are its own nodes' objects in both cases).
 */
final class CslmKv implements OrderedKv {
    /**
     * Not final only so that {@link #close} can drop it whole: {@code clear()} itself allocates (and fails on a full
     * heap).
     */
    private ConcurrentSkipListMap<ByteKey, byte[]> map = new ConcurrentSkipListMap<>();

    /** A thread's lookup key (wrapping its key buffer) and stream consumer. */
    private static final class Local implements Consumer<Map.Entry<ByteKey, byte[]>> {
        final ByteKey probe;
        final OrderedThread t;
        boolean descending;

        Local(OrderedThread t) {
            this.t = t;
            this.probe = new ByteKey(t.key);
        }

        @Override
        public void accept(Map.Entry<ByteKey, byte[]> e) {
            touch(e.getKey().bytes, e.getValue(), descending, t);
        }
    }

    private static Local local(OrderedThread t) {
        return t.own instanceof Local l ? l : (Local) (t.own = new Local(t));
    }

    private static ByteKey probe(int key, OrderedThread t) {
        OrderedCodec.setKey(t.key, key);
        return local(t).probe;
    }

    @Override
    public boolean putIfAbsent(int key, OrderedThread t) {
        OrderedCodec.setKey(t.key, key);
        OrderedCodec.setValue(t.value, key);
        return map.putIfAbsent(new ByteKey(t.key.clone()), t.value.clone()) == null;
    }

    @Override
    public void put(int key, OrderedThread t) {
        OrderedCodec.setKey(t.key, key);
        OrderedCodec.setValue(t.value, key);
        map.put(new ByteKey(t.key.clone()), t.value.clone());
    }

    @Override
    public void upsert(int key, OrderedThread t) {
        byte[] value = map.get(probe(key, t));
        if (value == null) {
            OrderedCodec.setValue(t.value, key);
            value = map.putIfAbsent(new ByteKey(t.key.clone()), t.value.clone());
            if (value == null) {
                return;
            }
        }
        OrderedCodec.LONGS.set(value, OrderedCodec.COUNTER,
                (long) OrderedCodec.LONGS.get(value, OrderedCodec.COUNTER) + 1);
    }

    @Override
    public boolean zeroCopyGet(int key, OrderedThread t, ThreadContext c) {
        byte[] value = map.get(probe(key, t));
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
    public boolean copyGet(int key, OrderedThread t, ThreadContext c) {
        return zeroCopyGet(key, t, c);
    }

    @Override
    public void scan(int from, boolean descending, boolean stream, OrderedThread t, ThreadContext c) {
        ByteKey probe = probe(from, t);
        NavigableMap<ByteKey, byte[]> view = descending ? map.headMap(probe, true).descendingMap()
                : map.tailMap(probe, true);
        if (stream) {
            Local l = local(t);
            l.descending = descending;
            view.entrySet().stream().limit(SCAN_PAIRS).forEach(l);
        } else {
            int n = 0;
            for (Map.Entry<ByteKey, byte[]> e : view.entrySet()) {
                touch(e.getKey().bytes, e.getValue(), descending, t);
                if (++n == SCAN_PAIRS) {
                    break;
                }
            }
        }
    }

    private static void touch(byte[] key, byte[] value, boolean descending, OrderedThread t) {
        t.see(OrderedCodec.keyOf(key), (long) OrderedCodec.LONGS.get(value, OrderedCodec.KEY_WORD),
                (long) OrderedCodec.LONGS.get(value, OrderedCodec.CHECK_WORD), descending);
    }

    @Override
    public long verify() {
        long wrong = 0;
        int previous = -1;
        for (Map.Entry<ByteKey, byte[]> e : map.entrySet()) {
            int key = OrderedCodec.keyOf(e.getKey().bytes);
            if (key <= previous || !OrderedCodec.keyIsWellFormed(e.getKey().bytes)
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

    /** Drops the map (e.g. after the ingestion ran out of heap, so that the JVM can report); idempotent. */
    @Override
    public void close() {
        map = null;
    }
}
