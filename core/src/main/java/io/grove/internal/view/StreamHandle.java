package io.grove.internal.view;

import io.grove.internal.memory.Pool;
import io.grove.internal.memory.Reference;
import io.grove.view.Handle;
import io.grove.view.ReadView;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.function.Function;

/**
 * The handle a zero-copy stream points at pair after pair (one for keys, one for values), read by one thread at a
 * time: a short read path for the common case, and a {@link SliceHandle#oneReader one-reader} {@link SliceHandle}
 * for everything else.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A getter's <i>quick read</i> is the one {@link SliceHandle}'s class notes describe for a handle with an origin:
 * (1) the stamp, kept from the last read that confirmed it or read now if no writer holds it (none for keys); (2) the
 * bytes; (3) a load-load fence and the stamp unchanged; (4) a load-load fence and the origin vouching for the slice.
 * {@link #read} runs its function between (1) and (3) the same way. A quick read reads the handle's own fields only:
 * where the bytes lie, the stamp and the origin, stored by {@link #pointAt} with no check beyond the slice's range.
 * Whatever it cannot prove (a writer at work, a stamp that moved, an origin that no longer vouches: a value replaced
 * or removed, a chunk replaced, bytes moved by a layout), and the other reads (the copies, {@link #isValid}), go to
 * the full handle, pointed then at the same slice and kept for the reads that follow until the next {@link #pointAt}:
 * it waits for writers, follows moved bytes and throws for removed ones. A quick read proves what the full protocol
 * proves, by the same steps, so the two give the same answers; the quick one leaves out the branches, checks and the
 * second object (the full handle's view) that a stream's reads, nearly all of them quick, do not need
 * (docs/ARCHITECTURE.md, ordered map item 20).
 */
public final class StreamHandle implements Handle {
    private static final long UNCONFIRMED = SliceStamp.REMOVED;

    private final SliceHandle full;
    private final SliceHandle.Origin origin;
    /** Where the handle's bytes start in each slice's payload. */
    private final int start;
    /** The payload offset of each slice's stamp, or {@link SliceHandle#NO_STAMP}. */
    private final int stampOffset;

    // what pointAt stored: the slice, its range and stamp, and where the map found it
    private long ref;
    private MemorySegment segment;
    private long payload;
    private int sliceLength;
    private long base;
    private int size;
    private long stampAt;
    private Object place;
    private int index;
    /** The stamp the last quick read found unchanged after it, or {@link #UNCONFIRMED}. */
    private long confirmedStamp;
    /** Whether reads go to {@link #full} until the next {@link #pointAt}. */
    private boolean delegated;
    /** The view {@link #read} hands to its function, made on first use; busy while a function runs. */
    private SegmentView callbackView;
    private boolean callbackViewBusy;

    /**
     * A handle on bytes {@code start} to the end of each slice's payload, with a stamp at {@code stampOffset} whose
     * writers {@code writers} can tell, or ({@link SliceHandle#NO_STAMP}, {@code writers} null) none; {@code origin}
     * vouches for the slices where the map found them.
     */
    public StreamHandle(Pool pool, SliceHandle.WriterCheck writers, SliceHandle.Origin origin, int start,
            int stampOffset) {
        if (stampOffset != SliceHandle.NO_STAMP && (stampOffset & (Long.BYTES - 1)) != 0) {
            throw new IllegalArgumentException("a stamp must be 8-byte aligned, was at " + stampOffset);
        }
        this.full = SliceHandle.oneReader(pool, writers, origin);
        this.origin = origin;
        this.start = start;
        this.stampOffset = stampOffset;
    }

    /**
     * Points this handle at slice {@code ref}, whose payload of {@code sliceLength} bytes its caller has just found
     * live at {@code payload} of {@code segment}, at {@code index} of {@code place}: as
     * {@link SliceHandle#pointAtNext}.
     *
     * @throws IndexOutOfBoundsException if the slice is too short for the handle's start or stamp
     */
    public void pointAt(long ref, MemorySegment segment, long payload, int sliceLength, Object place, int index) {
        if (start > sliceLength || (stampOffset != SliceHandle.NO_STAMP && stampOffset > sliceLength - Long.BYTES)) {
            throw new IndexOutOfBoundsException("a slice of " + sliceLength + " bytes for a handle from byte " + start
                    + (stampOffset == SliceHandle.NO_STAMP ? "" : " with a stamp at " + stampOffset));
        }
        this.ref = ref;
        this.segment = segment;
        this.payload = payload;
        this.sliceLength = sliceLength;
        this.base = payload + start;
        this.size = sliceLength - start;
        this.stampAt = stampOffset == SliceHandle.NO_STAMP ? -1 : payload + stampOffset;
        this.place = place;
        this.index = index;
        this.confirmedStamp = UNCONFIRMED;
        this.delegated = false;
    }

    /** The full handle, pointed at this handle's slice on first use since {@link #pointAt}. */
    private SliceHandle full() {
        if (!delegated) {
            full.pointAtNext(ref, segment, payload, sliceLength, start, stampOffset, place, index);
            delegated = true;
        }
        return full;
    }

    /** The slice this handle reads now: where its bytes went once a read followed them. */
    public long reference() {
        return delegated ? full.reference() : ref;
    }

    /** Step (1) of a quick read: the stamp to read under (0 without one), or {@link #UNCONFIRMED}: read fully. */
    private long quickStamp() {
        if (delegated) {
            return UNCONFIRMED;
        }
        if (stampAt < 0) {
            return 0;
        }
        long stamp = confirmedStamp;
        if (stamp == UNCONFIRMED) {
            stamp = SliceStamp.acquire(segment, stampAt);
            if (SliceStamp.isWriting(stamp) || SliceStamp.isRemoved(stamp)) {
                return UNCONFIRMED;
            }
        }
        return stamp;
    }

    /** Steps (3) and (4) of a quick read started from {@code stamp}; {@code false} proves nothing. */
    private boolean vouchedSince(long stamp) {
        if (stampAt >= 0 && !SliceStamp.unchanged(segment, stampAt, stamp)) {
            return false;
        }
        VarHandle.loadLoadFence();
        if (!origin.holds(place, index, ref)) {
            return false;
        }
        confirmedStamp = stamp;
        return true;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public byte getByte(int index) {
        Bounds.checkView(index, Byte.BYTES, size);
        long stamp = quickStamp();
        if (stamp != UNCONFIRMED) {
            byte b = segment.get(SegmentView.BYTE, base + index);
            if (vouchedSince(stamp)) {
                return b;
            }
        }
        return full().getByte(index);
    }

    @Override
    public short getShort(int index) {
        Bounds.checkView(index, Short.BYTES, size);
        long stamp = quickStamp();
        if (stamp != UNCONFIRMED) {
            short s = segment.get(SegmentView.SHORT, base + index);
            if (vouchedSince(stamp)) {
                return s;
            }
        }
        return full().getShort(index);
    }

    @Override
    public char getChar(int index) {
        Bounds.checkView(index, Character.BYTES, size);
        long stamp = quickStamp();
        if (stamp != UNCONFIRMED) {
            char c = segment.get(SegmentView.CHAR, base + index);
            if (vouchedSince(stamp)) {
                return c;
            }
        }
        return full().getChar(index);
    }

    @Override
    public int getInt(int index) {
        Bounds.checkView(index, Integer.BYTES, size);
        long stamp = quickStamp();
        if (stamp != UNCONFIRMED) {
            int i = segment.get(SegmentView.INT, base + index);
            if (vouchedSince(stamp)) {
                return i;
            }
        }
        return full().getInt(index);
    }

    @Override
    public long getLong(int index) {
        Bounds.checkView(index, Long.BYTES, size);
        long stamp = quickStamp();
        if (stamp != UNCONFIRMED) {
            long l = segment.get(SegmentView.LONG, base + index);
            if (vouchedSince(stamp)) {
                return l;
            }
        }
        return full().getLong(index);
    }

    @Override
    public float getFloat(int index) {
        return Float.intBitsToFloat(getInt(index));
    }

    @Override
    public double getDouble(int index) {
        return Double.longBitsToDouble(getLong(index));
    }

    @Override
    public void copyTo(int index, byte[] target, int targetIndex, int length) {
        full().copyTo(index, target, targetIndex, length);
    }

    @Override
    public void copyTo(int index, ByteBuffer target) {
        full().copyTo(index, target);
    }

    @Override
    public void copyTo(int index, MemorySegment target, long targetOffset, int length) {
        full().copyTo(index, target, targetOffset, length);
    }

    @Override
    public boolean isValid() {
        return full().isValid();
    }

    /**
     * As {@link SliceHandle#read}, with a quick read first: the function runs on a view of the bytes between the
     * steps (1) and (3) of a quick read; if the stamp moved or the origin no longer vouches, what it returned or threw
     * is dropped and the full handle runs it again. A read of this handle inside the function goes to the full handle.
     */
    @Override
    public <T> T read(Function<? super ReadView, ? extends T> reader) {
        long stamp = quickStamp();
        if (stamp != UNCONFIRMED && !callbackViewBusy) {
            if (callbackView == null) {
                callbackView = new SegmentView();
            }
            callbackViewBusy = true;
            SegmentView bytes = callbackView.open(segment, base, size, false);
            try {
                T result = reader.apply(bytes);
                if (vouchedSince(stamp)) {
                    return result;
                }
            } catch (RuntimeException | Error e) {
                if (vouchedSince(stamp)) {
                    throw e; // a failure on bytes that did not change: the function's own
                }
            } finally {
                bytes.close();
                callbackViewBusy = false;
            }
        }
        return full().read(reader);
    }

    @Override
    public String toString() {
        if (segment == null) {
            return "Handle[not pointed at a slice]";
        }
        return delegated ? full.toString()
                : "Handle[" + Reference.toString(ref) + ", size=" + size + (stampAt < 0 ? "]" : ", stamped]");
    }
}
