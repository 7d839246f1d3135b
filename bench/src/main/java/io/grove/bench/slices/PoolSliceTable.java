package io.grove.bench.slices;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.grove.bench.ThreadContext;
import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;
import java.util.ConcurrentModificationException;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A slice table over Grove's memory layer ({@link Pool}): an {@link AtomicLongArray} of slice references.
 *
 * <p>Protocols, as {@link Pool} prescribes them:
 * <ul>
 *   <li>read: load the reference (volatile), read the four words from {@code segment(ref)} at
 *       {@code payloadOffset(ref)}, then {@code validate(ref)}; if validation throws, the value was replaced (and
 *       its memory may be reused): drop what was read, count a retry, start over with the slot's new reference.
 *   <li>update: {@code beginWrite(ref)}; if -1 the value was replaced: count a retry and start over; else store the
 *       update word, {@code endWrite}.
 *   <li>replace: {@code allocate}, copy the filler template and set key, stamp, update and check words while the
 *       slice is private; publish with {@code compareAndSet} on the slot (a volatile store, so the payload writes
 *       happen-before any reader that loads the new reference), then {@code delete} the old reference. A lost CAS
 *       retries against the newer value (last writer wins), so every replace frees exactly one value.
 * </ul>
 */
final class PoolSliceTable implements SliceTable {
    private final Pool pool;
    private final AtomicLongArray slots;
    private final int valueSize;
    private final long checkOffset;
    private final MemorySegment template;

    PoolSliceTable(Pool pool, int keys, int valueSize) {
        SliceValues.checkSize(valueSize);
        this.pool = pool;
        this.slots = new AtomicLongArray(keys);
        this.valueSize = valueSize;
        this.checkOffset = SliceValues.checkOffset(valueSize);
        this.template = MemorySegment.ofArray(SliceValues.template(valueSize));
    }

    @Override
    public void install(int key) {
        slots.set(key, fresh(key, SliceValues.initialStamp(key)));
    }

    /** A new private slice holding a complete value of {@code key}. */
    private long fresh(int key, long stamp) {
        long ref = pool.allocate(valueSize);
        MemorySegment s = pool.segment(ref);
        long p = pool.payloadOffset(ref);
        MemorySegment.copy(template, 0, s, p, valueSize);
        s.set(JAVA_LONG, p + SliceValues.KEY, key);
        s.set(JAVA_LONG, p + SliceValues.STAMP, stamp);
        s.set(JAVA_LONG, p + SliceValues.UPDATE, SliceValues.updateWord(key, 0));
        s.set(JAVA_LONG, p + checkOffset, SliceValues.check(key, stamp));
        return ref;
    }

    @Override
    public void read(int key, ThreadContext context) {
        while (true) {
            long ref = slots.get(key);
            MemorySegment s = pool.segment(ref);
            long p = pool.payloadOffset(ref);
            long keyWord = s.get(JAVA_LONG, p + SliceValues.KEY);
            long stamp = s.get(JAVA_LONG, p + SliceValues.STAMP);
            long updateWord = s.get(JAVA_LONG, p + SliceValues.UPDATE);
            long checkWord = s.get(JAVA_LONG, p + checkOffset);
            try {
                pool.validate(ref);
            } catch (ConcurrentModificationException stale) {
                context.readRetries++;
                continue;
            }
            if (!SliceValues.matches(key, keyWord, stamp, updateWord, checkWord)) {
                context.mismatches++;
            }
            context.sink += stamp ^ updateWord;
            return;
        }
    }

    @Override
    public void update(int key, ThreadContext context) {
        long word = SliceValues.updateWord(key, ++context.sequence);
        while (true) {
            long ref = slots.get(key);
            long token = pool.beginWrite(ref);
            if (token < 0) {
                context.writeRetries++;
                continue;
            }
            pool.segment(ref).set(JAVA_LONG, pool.payloadOffset(ref) + SliceValues.UPDATE, word);
            pool.endWrite(token);
            return;
        }
    }

    @Override
    public void replace(int key, ThreadContext context) {
        long fresh = fresh(key, context.nextLong());
        while (true) {
            long old = slots.get(key);
            if (slots.compareAndSet(key, old, fresh)) {
                if (!pool.delete(old)) {
                    context.anomalies++;
                }
                return;
            }
            context.lostRaces++;
        }
    }

    @Override
    public boolean verifyFully(int key) {
        long ref = slots.get(key);
        MemorySegment s = pool.segment(ref);
        long p = pool.payloadOffset(ref);
        if (pool.length(ref) != valueSize) {
            return false;
        }
        long stamp = s.get(JAVA_LONG, p + SliceValues.STAMP);
        boolean ok = SliceValues.matches(key, s.get(JAVA_LONG, p + SliceValues.KEY), stamp,
                s.get(JAVA_LONG, p + SliceValues.UPDATE), s.get(JAVA_LONG, p + checkOffset));
        for (int i = 3; ok && i < valueSize / 8 - 1; i++) {
            ok = s.get(JAVA_LONG, p + 8L * i) == SliceValues.filler(i);
        }
        pool.validate(ref);
        return ok;
    }

    @Override
    public OffHeap offHeap() {
        return OffHeap.of(pool.footprint());
    }

    @Override
    public void close() {
        pool.close();
    }
}
