package io.grove.internal.view;

import io.grove.view.ReadView;
import io.grove.view.ResizableView;
import io.grove.view.WriteView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.util.Objects;

/**
 * A reusable, scoped {@link WriteView} over the region {@code [offset, offset + size)} of a {@link MemorySegment}.
 *
 * <p><b>Life cycle.</b> A view starts closed. The map {@linkplain #open opens} it on a key's or value's bytes
 * right before it calls a user callback and {@linkplain #close closes} it in a {@code finally} right after, so
 * one object serves any number of callbacks (a scan reuses one view for all its entries). While closed, every
 * method, {@link #size()} included, throws {@link IllegalStateException} ("view used outside its callback").
 * {@link #open} on an open view throws too: that catches a nested callback that would otherwise silently
 * repoint the view its caller is still using.
 *
 * <p><b>Read-only use.</b> A view opened with {@code writable == false} is handed to callbacks typed as
 * {@link ReadView}. A callback that casts it back to {@link WriteView} and writes gets
 * {@link IllegalStateException} ("view is read-only") and changes nothing.
 *
 * <p><b>Journaled use.</b> A view opened with {@link #openJournaled} saves, before each write, the bytes the write
 * overwrites in an {@link UndoJournal}, so that an in-place update whose user function fails can be undone. A plain
 * view pays one well-predicted branch per write for this and for <b>tracked use</b> ({@link #openTracked}), where
 * the view records how far the writes of a serializer reach.
 *
 * <p><b>Checks.</b> Each method checks, in this order: the view is open; it is writable (writes only); arguments
 * are not {@code null}; a {@link ByteBuffer} to write into is not read-only ({@link ReadOnlyBufferException});
 * all ranges, those of this view and those of the array, buffer or segment on the other side
 * ({@link IndexOutOfBoundsException} with index, length and size in the message; its subclass
 * {@link ViewBoundsException} when the range lies outside this view). Only then does it touch memory,
 * so a failed access changes nothing. Multi-byte values are big-endian. Offsets into the segment are {@code long}s
 * and layouts are {@code static final}, which keeps the memory access on the fast path; no accessor allocates.
 *
 * <p><b>Threads.</b> {@link #open} and {@link #close} are plain writes: a view belongs to the thread running the
 * callback. Reads alone may come from several threads once the open view was safely published, as long as no
 * thread opens or closes it meanwhile. A view leaked to another thread is not guaranteed to see {@link #close()};
 * such misuse can still never reach memory outside the segment, which the segment itself checks.
 */
public final class SegmentView implements ResizableView {

    /** Moves the bytes of an open view to a region of another size and reopens the view there. */
    public interface Resizer {
        void resize(SegmentView view, int newSize);
    }


    // the views' byte order, which a StreamHandle's quick reads share
    static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfChar CHAR = ValueLayout.JAVA_CHAR_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat FLOAT =
            ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfDouble DOUBLE =
            ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** The segment holding the region; {@code null} while the view is closed. */
    private MemorySegment segment;
    /** Offset of the region's first byte in {@link #segment}. */
    private long base;
    private int size;
    private boolean writable;
    private Resizer resizer;
    /** Whether writes are watched ({@link #noteWrite}): the one branch a write pays for journaling and tracking. */
    private boolean watched;
    /** Where a journaled view saves the bytes each write overwrites; {@code null} otherwise. */
    private UndoJournal journal;
    /** In a tracked view: the end of the highest range written so far. */
    private int writtenEnd;

    /** Creates a closed view. */
    public SegmentView() {}

    /**
     * Points this view at {@code [offset, offset + size)} of {@code segment} and makes it valid.
     *
     * @param writable whether puts are allowed; {@code false} for views handed out as {@link ReadView}
     * @return this view
     * @throws IllegalStateException if the view is already open
     * @throws IndexOutOfBoundsException if the region is not inside the segment or {@code size} is negative
     * @throws IllegalArgumentException if {@code writable} but the segment is read-only
     */
    public SegmentView open(MemorySegment segment, long offset, int size, boolean writable) {
        return open(segment, offset, size, writable, null);
    }

    /**
     * As {@link #open(MemorySegment, long, int, boolean)}, and {@link #resize} goes to {@code resizer}
     * ({@code null}: the view cannot be resized).
     */
    public SegmentView open(MemorySegment segment, long offset, int size, boolean writable, Resizer resizer) {
        Objects.requireNonNull(segment, "segment");
        if (this.segment != null) {
            throw new IllegalStateException("view is already open; a nested callback needs its own view");
        }
        Objects.checkFromIndexSize(offset, size, segment.byteSize());
        if (writable && segment.isReadOnly()) {
            throw new IllegalArgumentException("cannot open a writable view over a read-only segment");
        }
        this.base = offset;
        this.size = size;
        this.writable = writable;
        this.resizer = resizer;
        this.watched = false;
        this.journal = null;
        this.segment = segment;
        return this;
    }

    /**
     * As {@link #open(MemorySegment, long, int, boolean)} for writing, and the view tracks how far its writes reach
     * ({@link #writtenEnd}): for a serializer, which must write every byte it declared.
     */
    public SegmentView openTracked(MemorySegment segment, long offset, int size) {
        open(segment, offset, size, true, null);
        this.writtenEnd = 0;
        this.watched = true;
        return this;
    }

    /** In a view opened by {@link #openTracked}: the end of the highest range written since, 0 if none. */
    public int writtenEnd() {
        live();
        return writtenEnd;
    }

    /**
     * As {@link #open(MemorySegment, long, int, boolean)} read-only, on a view that may be open already: for a view
     * that an object keeps open on one region after another (a handle's), which saves the close and, when the view is
     * open read-only on the same segment, storing what did not change.
     */
    @SuppressWarnings("MemorySegmentReferenceEquality") // the same segment object, not equal regions, is what is kept
    public SegmentView reopenReadOnly(MemorySegment segment, long offset, int size) {
        if (this.segment != segment || writable || resizer != null || watched) {
            close();
            return open(segment, offset, size, false);
        }
        Objects.checkFromIndexSize(offset, size, segment.byteSize());
        this.base = offset;
        this.size = size;
        return this;
    }

    /**
     * As {@link #open(MemorySegment, long, int, boolean, Resizer)} for writing, and every write first saves the
     * bytes it overwrites in {@code journal} (which this starts), so that {@link UndoJournal#undo} can restore them.
     * A {@link #resize} moves the view to a private slice that is not journaled: undoing then restores the bytes
     * written here before the resize, and the caller deletes the private slice.
     */
    public SegmentView openJournaled(MemorySegment segment, long offset, int size, Resizer resizer,
            UndoJournal journal) {
        Objects.requireNonNull(journal, "journal");
        open(segment, offset, size, true, resizer);
        journal.begin(segment);
        this.journal = journal;
        this.watched = true;
        return this;
    }

    @Override
    public SegmentView resize(int newSize) {
        liveWritable();
        if (resizer == null) {
            throw new IllegalStateException("this view's value cannot be resized here");
        }
        if (newSize < 0) {
            throw new IllegalArgumentException("cannot resize a value to " + newSize + " bytes");
        }
        resizer.resize(this, newSize);
        return this;
    }

    /** The segment and offset the view covers now, for a {@link Resizer}; {@code null} segment while closed. */
    public MemorySegment segment() {
        return segment;
    }

    public long offset() {
        return base;
    }

    /** The resizer the view was opened with. */
    public Resizer resizer() {
        return resizer;
    }

    /** Invalidates this view; any later use throws {@link IllegalStateException} until it is opened again. */
    public void close() {
        segment = null;
    }

    /** Whether the view is open; the only method that may be called on a closed view besides {@link #open}. */
    public boolean isOpen() {
        return segment != null;
    }

    // ---- checks --------------------------------------------------------------------------------------------

    private MemorySegment live() {
        MemorySegment s = segment;
        if (s == null) {
            throw new IllegalStateException("view used outside its callback");
        }
        return s;
    }

    private MemorySegment liveWritable() {
        MemorySegment s = live();
        if (!writable) {
            throw new IllegalStateException("view is read-only");
        }
        return s;
    }

    /** The segment, once the view is open and {@code [index, index + length)} is inside it. */
    private MemorySegment forRead(int index, int length) {
        MemorySegment s = live();
        Bounds.checkView(index, length, size);
        return s;
    }

    /** As {@link #forRead}, and the view is writable; tells a watcher of the write ({@link #noteWrite}). */
    private MemorySegment forWrite(int index, int length) {
        MemorySegment s = liveWritable();
        Bounds.checkView(index, length, size);
        if (watched) {
            noteWrite(index, length);
        }
        return s;
    }

    /** Called before a write of {@code [index, index + length)} that passed every check, in a watched view. */
    private void noteWrite(int index, int length) {
        if (journal != null) {
            journal.save(base + index, length);
        } else if (length > 0 && index + length > writtenEnd) {
            writtenEnd = index + length;
        }
    }

    // ---- reads ---------------------------------------------------------------------------------------------

    @Override
    public int size() {
        live();
        return size;
    }

    @Override
    public byte getByte(int index) {
        return forRead(index, Byte.BYTES).get(BYTE, base + index);
    }

    @Override
    public short getShort(int index) {
        return forRead(index, Short.BYTES).get(SHORT, base + index);
    }

    @Override
    public char getChar(int index) {
        return forRead(index, Character.BYTES).get(CHAR, base + index);
    }

    @Override
    public int getInt(int index) {
        return forRead(index, Integer.BYTES).get(INT, base + index);
    }

    @Override
    public long getLong(int index) {
        return forRead(index, Long.BYTES).get(LONG, base + index);
    }

    @Override
    public float getFloat(int index) {
        return forRead(index, Float.BYTES).get(FLOAT, base + index);
    }

    @Override
    public double getDouble(int index) {
        return forRead(index, Double.BYTES).get(DOUBLE, base + index);
    }

    @Override
    public void copyTo(int index, byte[] target, int targetIndex, int length) {
        MemorySegment s = live();
        Objects.requireNonNull(target, "target");
        Bounds.checkView(index, length, size);
        Bounds.checkArray(targetIndex, length, target.length);
        ByteCopy.toArray(s, base + index, target, targetIndex, length);
    }

    @Override
    public void copyTo(int index, ByteBuffer target) {
        MemorySegment s = live();
        Objects.requireNonNull(target, "target");
        if (target.isReadOnly()) {
            throw new ReadOnlyBufferException();
        }
        int position = target.position();
        int length = target.limit() - position;
        Bounds.checkView(index, length, size);
        if (target.hasArray()) {
            ByteCopy.toArray(s, base + index, target.array(), target.arrayOffset() + position, length);
        } else {
            copyToBuffer(s, base + index, target, position, length);
        }
        target.position(position + length);
    }

    @Override
    public void copyTo(int index, MemorySegment target, long targetOffset, int length) {
        MemorySegment s = live();
        Objects.requireNonNull(target, "target");
        Bounds.checkView(index, length, size);
        Bounds.checkSegment(targetOffset, length, target.byteSize());
        // Fails before copying if the target is read-only, closed or confined to another thread.
        MemorySegment.copy(s, base + index, target, targetOffset, length);
    }

    // ---- writes --------------------------------------------------------------------------------------------

    @Override
    public SegmentView putByte(int index, byte value) {
        forWrite(index, Byte.BYTES).set(BYTE, base + index, value);
        return this;
    }

    @Override
    public SegmentView putShort(int index, short value) {
        forWrite(index, Short.BYTES).set(SHORT, base + index, value);
        return this;
    }

    @Override
    public SegmentView putChar(int index, char value) {
        forWrite(index, Character.BYTES).set(CHAR, base + index, value);
        return this;
    }

    @Override
    public SegmentView putInt(int index, int value) {
        forWrite(index, Integer.BYTES).set(INT, base + index, value);
        return this;
    }

    @Override
    public SegmentView putLong(int index, long value) {
        forWrite(index, Long.BYTES).set(LONG, base + index, value);
        return this;
    }

    @Override
    public SegmentView putFloat(int index, float value) {
        forWrite(index, Float.BYTES).set(FLOAT, base + index, value);
        return this;
    }

    @Override
    public SegmentView putDouble(int index, double value) {
        forWrite(index, Double.BYTES).set(DOUBLE, base + index, value);
        return this;
    }

    @Override
    public SegmentView copyFrom(byte[] source, int sourceIndex, int index, int length) {
        MemorySegment s = liveWritable();
        Objects.requireNonNull(source, "source");
        Bounds.checkView(index, length, size);
        Bounds.checkArray(sourceIndex, length, source.length);
        if (watched) {
            noteWrite(index, length);
        }
        MemorySegment.copy(source, sourceIndex, s, BYTE, base + index, length);
        return this;
    }

    @Override
    public SegmentView copyFrom(ByteBuffer source, int index) {
        MemorySegment s = liveWritable();
        Objects.requireNonNull(source, "source");
        int position = source.position();
        int length = source.limit() - position;
        Bounds.checkView(index, length, size);
        if (watched) {
            noteWrite(index, length);
        }
        if (source.hasArray()) {
            MemorySegment.copy(source.array(), source.arrayOffset() + position, s, BYTE, base + index, length);
        } else {
            copyFromBuffer(source, position, s, base + index, length);
        }
        source.position(position + length);
        return this;
    }

    @Override
    public SegmentView copyFrom(MemorySegment source, long sourceOffset, int index, int length) {
        MemorySegment s = liveWritable();
        Objects.requireNonNull(source, "source");
        Bounds.checkView(index, length, size);
        Bounds.checkSegment(sourceOffset, length, source.byteSize());
        if (watched) {
            noteWrite(index, length);
        }
        // Overlapping regions are copied correctly; a closed or foreign-thread source fails before copying.
        MemorySegment.copy(source, sourceOffset, s, base + index, length);
        return this;
    }

    @Override
    public SegmentView fill(int index, int length, byte value) {
        MemorySegment s = forWrite(index, length);
        long at = base + index;
        long pattern = (value & 0xFFL) * 0x0101_0101_0101_0101L;
        int i = 0;
        for (; i <= length - Long.BYTES; i += Long.BYTES) {
            s.set(LONG, at + i, pattern);
        }
        for (; i < length; i++) {
            s.set(BYTE, at + i, value);
        }
        return this;
    }

    // ---- buffers without a backing array (direct or read-only) ---------------------------------------------
    // MemorySegment.ofBuffer would allocate a segment per call; absolute long accesses in the buffer's own byte
    // order copy the bytes unchanged without allocating.

    private static void copyToBuffer(MemorySegment s, long from, ByteBuffer target, int position, int length) {
        ValueLayout.OfLong layout = target.order() == ByteOrder.BIG_ENDIAN ? LONG : LONG_LE;
        int i = 0;
        for (; i <= length - Long.BYTES; i += Long.BYTES) {
            target.putLong(position + i, s.get(layout, from + i));
        }
        for (; i < length; i++) {
            target.put(position + i, s.get(BYTE, from + i));
        }
    }

    private static void copyFromBuffer(ByteBuffer source, int position, MemorySegment s, long to, int length) {
        ValueLayout.OfLong layout = source.order() == ByteOrder.BIG_ENDIAN ? LONG : LONG_LE;
        int i = 0;
        for (; i <= length - Long.BYTES; i += Long.BYTES) {
            s.set(layout, to + i, source.getLong(position + i));
        }
        for (; i < length; i++) {
            s.set(BYTE, to + i, source.get(position + i));
        }
    }

    /** Describes the state, never the contents. */
    @Override
    public String toString() {
        return segment == null
                ? "SegmentView[closed]"
                : "SegmentView[size=" + size + (writable ? ", writable]" : ", read-only]");
    }
}
