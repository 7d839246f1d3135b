package io.grove.bench.slices;

import io.grove.bench.ThreadContext;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The on-heap baseline: an {@link AtomicReferenceArray} of {@code byte[]} values, freed by the garbage collector.
 * Same value layout and the same work per operation as {@link PoolSliceTable}: read 4 words, update 8 bytes in
 * place (plain store; the collector, not a protocol, keeps the array alive), replace = a new array copied from
 * the template, patched, published with {@code compareAndSet}.
 */
final class HeapSliceTable implements SliceTable {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final AtomicReferenceArray<byte[]> slots;
    private final int valueSize;
    private final int checkOffset;
    private final byte[] template;

    HeapSliceTable(int keys, int valueSize) {
        SliceValues.checkSize(valueSize);
        this.slots = new AtomicReferenceArray<>(keys);
        this.valueSize = valueSize;
        this.checkOffset = SliceValues.checkOffset(valueSize);
        long[] words = SliceValues.template(valueSize);
        this.template = new byte[valueSize];
        for (int i = 0; i < words.length; i++) {
            LONGS.set(template, i * 8, words[i]);
        }
    }

    @Override
    public void install(int key) {
        slots.set(key, fresh(key, SliceValues.initialStamp(key)));
    }

    private byte[] fresh(int key, long stamp) {
        byte[] v = template.clone();
        LONGS.set(v, SliceValues.KEY, (long) key);
        LONGS.set(v, SliceValues.STAMP, stamp);
        LONGS.set(v, SliceValues.UPDATE, SliceValues.updateWord(key, 0));
        LONGS.set(v, checkOffset, SliceValues.check(key, stamp));
        return v;
    }

    @Override
    public void read(int key, ThreadContext context) {
        byte[] v = slots.get(key);
        long keyWord = (long) LONGS.get(v, SliceValues.KEY);
        long stamp = (long) LONGS.get(v, SliceValues.STAMP);
        long updateWord = (long) LONGS.get(v, SliceValues.UPDATE);
        long checkWord = (long) LONGS.get(v, checkOffset);
        if (!SliceValues.matches(key, keyWord, stamp, updateWord, checkWord)) {
            context.mismatches++;
        }
        context.sink += stamp ^ updateWord;
    }

    @Override
    public void update(int key, ThreadContext context) {
        LONGS.set(slots.get(key), SliceValues.UPDATE, SliceValues.updateWord(key, ++context.sequence));
    }

    @Override
    public void replace(int key, ThreadContext context) {
        byte[] fresh = fresh(key, context.nextLong());
        while (true) {
            byte[] old = slots.get(key);
            if (slots.compareAndSet(key, old, fresh)) {
                return;
            }
            context.lostRaces++;
        }
    }

    @Override
    public boolean verifyFully(int key) {
        byte[] v = slots.get(key);
        if (v.length != valueSize) {
            return false;
        }
        boolean ok = SliceValues.matches(key, (long) LONGS.get(v, SliceValues.KEY),
                (long) LONGS.get(v, SliceValues.STAMP), (long) LONGS.get(v, SliceValues.UPDATE),
                (long) LONGS.get(v, checkOffset));
        for (int i = 3; ok && i < valueSize / 8 - 1; i++) {
            ok = (long) LONGS.get(v, i * 8) == SliceValues.filler(i);
        }
        return ok;
    }

    @Override
    public void close() {}
}
