package io.grove.bench.ordered;

import io.grove.bench.ThreadContext;
import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;

/**
 * The Oak paper's Skiplist-OffHeap: a {@link ConcurrentSkipListMap} over intermediate {@link Cell} objects on the heap,
 * each referencing a key slice and a value slice allocated off heap through Grove's memory layer ({@link Pool},
 * Nova reclamation), written simply as the paper's baseline, not as a product.
 *
 * <p>The map maps each cell to itself; a lookup passes a probe cell that holds the thread's key buffer on the
 * heap, and the comparator compares the probe's bytes with a stored key's off-heap bytes (big-endian longs, the
 * first one decides for distinct keys). Key slices are never deleted while the map is open, so key reads need no
 * validation. Values follow the pool's protocols: optimistic read then {@code validate} (retried if the value was
 * replaced meanwhile); {@code put} on a present key writes a new slice, swaps the cell's reference and deletes the
 * old slice; {@code upsert} increments the counter in place under {@code beginWrite}/{@code endWrite} but, like
 * the paper's skiplist merge, not atomically with other increments of the same key. {@code copyGet} copies the
 * whole value into a new {@code byte[]}. Scans: as {@link CslmKv}'s, reading each key and value off heap.
 */
final class OffHeapSkiplistKv implements OrderedKv {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final VarHandle VALUE_REF;

    static {
        try {
            VALUE_REF = MethodHandles.lookup().findVarHandle(Cell.class, "valueRef", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A stored entry (key slice, value slice) or a thread's lookup probe (key bytes on the heap). */
    static final class Cell {
        final long keyRef;
        final byte[] probe;
        volatile long valueRef;

        Cell(long keyRef, long valueRef) {
            this.keyRef = keyRef;
            this.probe = null;
            this.valueRef = valueRef;
        }

        Cell(byte[] probe) {
            this.keyRef = 0;
            this.probe = probe;
        }
    }

    private final Pool pool;
    private final ConcurrentSkipListMap<Cell, Cell> map = new ConcurrentSkipListMap<>(this::compare);

    OffHeapSkiplistKv(Pool pool) {
        this.pool = pool;
    }

    /** The key's bytes {@code at..at+7} as a big-endian long, from the probe's array or the key slice. */
    private long keyLong(Cell c, int at) {
        if (c.probe != null) {
            return (long) OrderedCodec.LONGS.get(c.probe, at);
        }
        return pool.segment(c.keyRef).get(LONG, pool.payloadOffset(c.keyRef) + at);
    }

    /** Unsigned byte order of the 100-byte keys: 12 longs, then the last 4 bytes. */
    private int compare(Cell a, Cell b) {
        for (int at = 0; at + 8 <= OrderedCodec.KEY_SIZE; at += 8) {
            int r = Long.compareUnsigned(keyLong(a, at), keyLong(b, at));
            if (r != 0) {
                return r;
            }
        }
        int tail = OrderedCodec.KEY_SIZE - 4;
        return Integer.compareUnsigned(keyInt(a, tail), keyInt(b, tail));
    }

    private int keyInt(Cell c, int at) {
        if (c.probe != null) {
            return (int) OrderedCodec.INTS.get(c.probe, at);
        }
        return pool.segment(c.keyRef).get(INT, pool.payloadOffset(c.keyRef) + at);
    }

    /** A thread's probe (wrapping its key buffer) and stream consumer. */
    private final class Local implements Consumer<Map.Entry<Cell, Cell>> {
        final Cell probe;
        final OrderedThread t;
        boolean descending;

        Local(OrderedThread t) {
            this.t = t;
            this.probe = new Cell(t.key);
        }

        @Override
        public void accept(Map.Entry<Cell, Cell> e) {
            touch(e.getValue(), descending, t);
        }
    }

    private Local local(OrderedThread t) {
        return t.own instanceof Local l ? l : (Local) (t.own = new Local(t));
    }

    private Cell probe(int key, OrderedThread t) {
        OrderedCodec.setKey(t.key, key);
        return local(t).probe;
    }

    /** A new private slice holding {@code bytes}. */
    private long slice(byte[] bytes) {
        long ref = pool.allocate(bytes.length);
        MemorySegment.copy(bytes, 0, pool.segment(ref), ValueLayout.JAVA_BYTE, pool.payloadOffset(ref),
                bytes.length);
        return ref;
    }

    /** Inserts a new cell for the key and value in the thread's buffers; the present cell if there is one. */
    private Cell insert(OrderedThread t) {
        long keyRef = slice(t.key);
        long valueRef = slice(t.value);
        Cell fresh = new Cell(keyRef, valueRef);
        Cell present = map.putIfAbsent(fresh, fresh);
        if (present != null) {
            pool.deletePrivate(keyRef);
            pool.deletePrivate(valueRef);
        }
        return present;
    }

    @Override
    public boolean putIfAbsent(int key, OrderedThread t) {
        if (map.get(probe(key, t)) != null) {
            return false;
        }
        OrderedCodec.setValue(t.value, key);
        return insert(t) == null;
    }

    @Override
    public void put(int key, OrderedThread t) {
        Cell c = map.get(probe(key, t));
        OrderedCodec.setValue(t.value, key);
        if (c == null && (c = insert(t)) == null) {
            return;
        }
        long old = (long) VALUE_REF.getAndSet(c, slice(t.value));
        pool.delete(old);
    }

    @Override
    public void upsert(int key, OrderedThread t) {
        Cell c = map.get(probe(key, t));
        if (c == null) {
            OrderedCodec.setValue(t.value, key);
            if ((c = insert(t)) == null) {
                return;
            }
        }
        while (true) {
            long ref = c.valueRef;
            long token = pool.beginWrite(ref);
            if (token < 0) {
                continue; // replaced by a put meanwhile: increment the new value
            }
            MemorySegment s = pool.segment(ref);
            long at = pool.payloadOffset(ref) + OrderedCodec.COUNTER;
            s.set(LONG, at, s.get(LONG, at) + 1);
            pool.endWrite(token);
            return;
        }
    }

    @Override
    public boolean zeroCopyGet(int key, OrderedThread t, ThreadContext c) {
        Cell cell = map.get(probe(key, t));
        if (cell == null) {
            return false;
        }
        while (true) {
            long ref = cell.valueRef;
            MemorySegment s = pool.segment(ref);
            long p = pool.payloadOffset(ref);
            long keyWord = s.get(LONG, p + OrderedCodec.KEY_WORD);
            long counter = s.get(LONG, p + OrderedCodec.COUNTER);
            long check = s.get(LONG, p + OrderedCodec.CHECK_WORD);
            try {
                pool.validate(ref);
            } catch (ConcurrentModificationException replaced) {
                c.readRetries++;
                continue;
            }
            if (!OrderedCodec.wordsMatch(key, keyWord, check)) {
                c.mismatches++;
            }
            c.sink += counter ^ check;
            return true;
        }
    }

    @Override
    public boolean copyGet(int key, OrderedThread t, ThreadContext c) {
        Cell cell = map.get(probe(key, t));
        if (cell == null) {
            return false;
        }
        byte[] value = copyValue(cell, c);
        long check = (long) OrderedCodec.LONGS.get(value, OrderedCodec.CHECK_WORD);
        if (!OrderedCodec.wordsMatch(key, (long) OrderedCodec.LONGS.get(value, OrderedCodec.KEY_WORD), check)) {
            c.mismatches++;
        }
        c.sink += (long) OrderedCodec.LONGS.get(value, OrderedCodec.COUNTER) ^ check;
        return true;
    }

    /** A validated copy of the cell's value on the heap ({@code c} may be null: retries are then not counted). */
    private byte[] copyValue(Cell cell, ThreadContext c) {
        while (true) {
            long ref = cell.valueRef;
            int length = pool.length(ref);
            byte[] value = new byte[length];
            MemorySegment.copy(pool.segment(ref), ValueLayout.JAVA_BYTE, pool.payloadOffset(ref), value, 0, length);
            try {
                pool.validate(ref);
                return value;
            } catch (ConcurrentModificationException replaced) {
                if (c != null) {
                    c.readRetries++;
                }
            }
        }
    }

    @Override
    public void scan(int from, boolean descending, boolean stream, OrderedThread t, ThreadContext c) {
        Cell probe = probe(from, t);
        NavigableMap<Cell, Cell> view = descending ? map.headMap(probe, true).descendingMap()
                : map.tailMap(probe, true);
        if (stream) {
            Local l = local(t);
            l.descending = descending;
            view.entrySet().stream().limit(SCAN_PAIRS).forEach(l);
        } else {
            int n = 0;
            for (Map.Entry<Cell, Cell> e : view.entrySet()) {
                touch(e.getValue(), descending, t);
                if (++n == SCAN_PAIRS) {
                    break;
                }
            }
        }
    }

    /** Reads the key's int and the value's key word and check word (retried if the value is replaced). */
    private void touch(Cell cell, boolean descending, OrderedThread t) {
        int key = pool.segment(cell.keyRef).get(INT, pool.payloadOffset(cell.keyRef));
        while (true) {
            long ref = cell.valueRef;
            MemorySegment s = pool.segment(ref);
            long p = pool.payloadOffset(ref);
            long keyWord = s.get(LONG, p + OrderedCodec.KEY_WORD);
            long check = s.get(LONG, p + OrderedCodec.CHECK_WORD);
            try {
                pool.validate(ref);
            } catch (ConcurrentModificationException replaced) {
                continue;
            }
            t.see(key, keyWord, check, descending);
            return;
        }
    }

    @Override
    public long verify() {
        long wrong = 0;
        int previous = -1;
        for (Cell cell : map.keySet()) {
            byte[] key = new byte[OrderedCodec.KEY_SIZE];
            MemorySegment.copy(pool.segment(cell.keyRef), ValueLayout.JAVA_BYTE, pool.payloadOffset(cell.keyRef),
                    key, 0, key.length);
            int k = OrderedCodec.keyOf(key);
            if (k <= previous || !OrderedCodec.keyIsWellFormed(key)
                    || !OrderedCodec.valueIsWellFormed(k, copyValue(cell, null))) {
                wrong++;
            }
            previous = k;
        }
        return wrong;
    }

    @Override
    public long size() {
        return map.size();
    }

    @Override
    public OffHeap offHeap() {
        return OffHeap.of(pool.footprint());
    }

    @Override
    public void close() {
        map.clear();
        pool.close();
    }
}
