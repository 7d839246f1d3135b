package io.grove.internal.view;

import io.grove.internal.memory.Pool;
import io.grove.internal.memory.Reference;
import io.grove.view.Handle;
import io.grove.view.ReadView;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ConcurrentModificationException;
import java.util.function.Function;

/**
 * An unscoped {@link Handle} on one slice: every read is an optimistic Nova read (paper Algorithm 1, READ):
 * read the bytes, then {@link Pool#validate} the reference, and throw {@link ConcurrentModificationException}
 * instead of returning anything if the slice was deleted before the validation.
 *
 * <p>The slice's place and length are captured when the handle is pointed at it and checked live then, so bounds
 * are checked against the true length and a read never leaves the block even if the slice is reused meanwhile.
 * Bulk copies fill the target before validating: on {@link ConcurrentModificationException} the target's bytes in
 * the copied range are unspecified (and a {@link ByteBuffer} target's position has advanced).
 *
 * <p>A handle may be read from several threads at once once safely published. {@link #pointAt} (used by scans
 * that reuse one handle) must not race with reads.
 */
public final class SliceHandle implements Handle {
    private static final VarHandle CALLBACK_VIEW_BUSY;

    static {
        try {
            CALLBACK_VIEW_BUSY = MethodHandles.lookup().findVarHandle(SliceHandle.class, "callbackViewBusy", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Pool pool;
    /** Always open on the slice, read-only; the getters read through it. Never handed to user code. */
    private final SegmentView view = new SegmentView();
    /** The view {@link #read} hands to its callback, opened and closed around it; claimed by a CAS on the flag. */
    private final SegmentView callbackView = new SegmentView();
    @SuppressWarnings("unused") // accessed through CALLBACK_VIEW_BUSY
    private volatile int callbackViewBusy;
    private long ref;

    /** A handle on {@code ref}'s slice; throws {@link ConcurrentModificationException} if it is not live. */
    public SliceHandle(Pool pool, long ref) {
        this.pool = pool;
        pointAt(ref);
    }

    /**
     * Points this handle at another live slice; throws {@link ConcurrentModificationException} (and stays
     * pointed at the previous slice) if {@code ref} is not live.
     */
    public SliceHandle pointAt(long ref) {
        return pointAt(ref, 0, -1);
    }

    /**
     * Points this handle at bytes {@code [start, start + length)} of a live slice's payload ({@code length} -1:
     * to the end); reads are validated against the whole slice. Used for a key stored inside an entry's slice.
     * Throws {@link ConcurrentModificationException} (and stays pointed where it was) if {@code ref} is not live.
     */
    public SliceHandle pointAt(long ref, int start, int length) {
        int sliceLength = pool.length(ref);
        int size = length < 0 ? sliceLength - start : length;
        java.util.Objects.checkFromIndexSize(start, size, sliceLength);
        MemorySegment segment = pool.segment(ref);
        long offset = pool.payloadOffset(ref) + start;
        if (view.isOpen()) {
            view.close();
        }
        view.open(segment, offset, size, false);
        this.ref = ref;
        return this;
    }

    /** A handle not yet pointed at anything, for scans that point one handle at entry after entry. */
    public SliceHandle(Pool pool) {
        this.pool = pool;
    }

    /** The reference this handle reads. */
    public long reference() {
        return ref;
    }

    @Override
    public boolean isValid() {
        return pool.isLive(ref);
    }

    @Override
    public <T> T read(Function<? super ReadView, ? extends T> reader) {
        boolean cached = CALLBACK_VIEW_BUSY.compareAndSet(this, 0, 1);
        SegmentView scoped = cached ? callbackView : new SegmentView(); // another thread is in read(): its own view
        T result;
        try {
            scoped.open(view.segment(), view.offset(), view.size(), false);
            result = reader.apply(scoped);
        } catch (RuntimeException | Error e) {
            pool.validate(ref); // a failure caused by bytes of a removed entry is reported as the removal
            throw e;
        } finally {
            scoped.close();
            if (cached) {
                CALLBACK_VIEW_BUSY.setRelease(this, 0);
            }
        }
        pool.validate(ref);
        return result;
    }

    @Override
    public int size() {
        return view.size();
    }

    @Override
    public byte getByte(int index) {
        byte value = view.getByte(index);
        pool.validate(ref);
        return value;
    }

    @Override
    public short getShort(int index) {
        short value = view.getShort(index);
        pool.validate(ref);
        return value;
    }

    @Override
    public char getChar(int index) {
        char value = view.getChar(index);
        pool.validate(ref);
        return value;
    }

    @Override
    public int getInt(int index) {
        int value = view.getInt(index);
        pool.validate(ref);
        return value;
    }

    @Override
    public long getLong(int index) {
        long value = view.getLong(index);
        pool.validate(ref);
        return value;
    }

    @Override
    public float getFloat(int index) {
        float value = view.getFloat(index);
        pool.validate(ref);
        return value;
    }

    @Override
    public double getDouble(int index) {
        double value = view.getDouble(index);
        pool.validate(ref);
        return value;
    }

    @Override
    public void copyTo(int index, byte[] target, int targetIndex, int length) {
        view.copyTo(index, target, targetIndex, length);
        pool.validate(ref);
    }

    @Override
    public void copyTo(int index, ByteBuffer target) {
        view.copyTo(index, target);
        pool.validate(ref);
    }

    @Override
    public void copyTo(int index, MemorySegment target, long targetOffset, int length) {
        view.copyTo(index, target, targetOffset, length);
        pool.validate(ref);
    }

    @Override
    public String toString() {
        return "Handle[" + Reference.toString(ref) + ", size=" + view.size() + "]";
    }
}
