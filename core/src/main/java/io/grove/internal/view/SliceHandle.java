package io.grove.internal.view;

import io.grove.internal.memory.Pool;
import io.grove.internal.memory.Reference;
import io.grove.internal.sync.Backoff;
import io.grove.internal.sync.CallRegistry;
import io.grove.view.Handle;
import io.grove.view.ReadView;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ConcurrentModificationException;
import java.util.Objects;
import java.util.function.Function;

/**
 * An unscoped {@link Handle} on bytes of one slice: every read is an optimistic Nova read (Nova, Algorithm 1,
 * READ): read the bytes, then {@link Pool#validate} the reference, and throw {@link ConcurrentModificationException}
 * instead of returning anything if the slice was deleted before the validation.
 *
 * <p>Implementation notes.
 *
 * <p><b>Place.</b> The slice's place and length are captured when the handle is pointed at it and checked live
 * then, so bounds are checked against the true length and a read never leaves the block even if the slice is
 * reused meanwhile.
 *
 * <p><b>Stamp.</b> A handle on bytes that a map changes in place is pointed with the offset of the slice's
 * {@link SliceStamp}. Every read then runs between two readings of the stamp: (1) read the stamp (acquire); while it is
 * odd a writer is at work: wait ({@link Backoff}), giving up with {@link ConcurrentModificationException} once the
 * slice is not live (a stamp read from a deleted slice may stay odd for ever), unless the map says its holder does not
 * write the bytes ({@link WriterCheck#readableWhileHeld}: the odd stamp then serves as an even one); (2) read the
 * bytes, or run the reader of {@link #read}; (3) load-load fence, read the stamp again; (4) validate the slice. If the
 * stamp moved in (3), what was read is dropped (an exception thrown by the reader included) and the read starts over at
 * (1), unless (4) fails, which throws. A stamp with its removed bit set throws at once. So a read returns bytes of one
 * state of the slice between two writes (linearization point: the first stamp reading of the last attempt), and fails
 * only once the slice is gone. A reader can starve under writes without pause; writes are short, under a lock.
 *
 * <p>Without a stamp (keys, which never change) a read is (2) and (4).
 *
 * <p><b>Identity.</b> A map that replaces an entry's bytes in place, keeping its slice (the hash map's put of a value
 * of the same size), gives the entry a new identity, a 64-bit word it writes with the stamp odd. A handle pointed
 * with {@link #identifiedAt} records the identity and step (4) also checks it: once it changed, every read throws
 * {@link ConcurrentModificationException}, as for a deleted slice; the bytes read before the change were the entry's
 * own (a change moves the stamp, so a read that overlapped it started over and then found the new identity).
 *
 * <p><b>Origin.</b> A handle made with an {@link Origin} records where the map found its slice (a place and an
 * index, {@link #from}: an ordered map's chunk and entry). Step (4) first asks the origin whether the place still holds
 * the slice in a way that proves it live (an ordered map: the entry still refers to it and the chunk was not replaced,
 * as no slice is deleted before it leaves its entry or its chunk is replaced); only if it cannot say so is the slice's
 * header read. This spares a scan's reads the header of every slice they read (the origin is on the heap, in lines the
 * scan has just read). Its getters try a <i>quick read</i> first, which the compiler inlines into the caller: (1) the
 * stamp read now if no writer holds it; (2) the bytes; (3) the stamp unchanged and (4) the origin vouching; if any of
 * these fails, the read is made again under the whole protocol, out of line. It proves what the whole protocol
 * proves, by the same steps.
 *
 * <p><b>One reader.</b> A handle made {@link #oneReader} (what a stream's reused {@link StreamHandle} reads through
 * when its quick read cannot) is read by one thread at a time. It keeps the stamp its last read found unchanged
 * after it, and the next read starts from it instead of reading the stamp again (step (1)): that stamp was read
 * before the next read's bytes in that thread's program order, so equal stamps around them still mean that no
 * write overlapped them; a stamp that moved sends the read back to (1). (Another thread could load those bytes before
 * it loaded the kept stamp, which is why a handle read by several threads keeps none.)
 *
 * <p><b>Moves.</b> A map may move bytes that did not change to another slice (an ordered map laying its pairs out in
 * key order), deleting the old one. When a read of a one-reader handle with an origin finds the slice gone (the
 * stamp's removed bit, or step (4)), it asks the origin whether the bytes moved, and if so reads again from the new
 * slice, pointed at the same range. Bytes that were removed or replaced did not move: the read throws as before.
 * Such a read re-points the handle. A map hands out handles read by several threads only on slices it does not move
 * (an ordered map's set iterators mark their chunks, {@code Chunk#handOut}).
 *
 * <p><b>Lease.</b> A handle on bytes that stay unchanged only for a while (the versions an open snapshot reads:
 * nobody writes or frees them until it closes) reads without a stamp under a {@link Lease}: step (4) first checks that
 * the lease still holds, then validates the slice. A lease that held after the read held during it, so the bytes read
 * were unchanged; once it ended every read throws the lease's {@link IllegalStateException}.
 *
 * <p>Bulk copies fill the target before validating: on {@link ConcurrentModificationException} the target's bytes
 * in the copied range are unspecified (and a {@link ByteBuffer} target's position has advanced); a copy that is
 * started over rewinds the buffer's position first.
 *
 * <p>A handle that is not {@link #oneReader} may be read from several threads at once once safely published.
 * {@link #pointAt} (used by scans that reuse one handle) must not race with reads.
 */
public final class SliceHandle implements Handle {
    /** The stamp offset that says "no stamp" ({@link #pointAt(long, int, int, int)}). */
    public static final int NO_STAMP = -1;
    /** What {@link #confirmedStamp} holds when no read confirmed a stamp: a removed one, which no read confirms. */
    private static final long UNCONFIRMED = SliceStamp.REMOVED;

    private static final VarHandle CALLBACK_VIEW_BUSY;

    static {
        try {
            CALLBACK_VIEW_BUSY = MethodHandles.lookup().findVarHandle(SliceHandle.class, "callbackViewBusy", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Told now and then while a read waits for a writer of the slice (its stamp odd), since {@code waitingSince}
     * ({@link System#nanoTime}); throws if that writer is the calling thread itself (a map's user function reading,
     * through a handle, the value it is updating in place), or, in a map whose writers may be other processes, if the
     * wait must end (see {@code HashTable#watchHolder}).
     */
    public interface WriterCheck {
        void checkWriter(long ref, long waitingSince);

        /**
         * Whether the slice's bytes may be read under odd stamp {@code stamp} as if it were even: the map holds the
         * slice without writing it (an ordered map's value claimed by a pending batch). May throw
         * {@link ConcurrentModificationException} if the stamp says the slice was replaced.
         */
        default boolean readableWhileHeld(long ref, long stamp) {
            return false;
        }
    }

    /**
     * Where the map found the slices a handle is pointed at ({@link #from}): it vouches for a slice still found there,
     * and knows where the bytes went if the map moved them (see the class notes).
     */
    public interface Origin {
        /**
         * Whether {@code place} still holds slice {@code ref} at {@code index} in a way that proves the slice live
         * now; called after a read, behind a load-load fence. {@code false} proves nothing: the handle then reads the
         * slice's header.
         */
        boolean holds(Object place, int index, long ref);

        /**
         * Points {@code handle}, whose slice is gone, at the slice its bytes were moved to
         * ({@link SliceHandle#pointAtMoved}), and returns whether they were moved; {@code false} if they were removed
         * or replaced instead. {@code place} and {@code index} are what the handle was pointed {@link #from}. Asked
         * only by {@link #oneReader} handles.
         */
        boolean follow(SliceHandle handle, Object place, int index);
    }

    /**
     * What keeps the bytes of the slices a handle reads without a stamp unchanged and allocated while it holds (see
     * the class notes).
     */
    public interface Lease {
        /** Whether the lease holds now; a {@code true} may be outdated when it returns. */
        boolean holds();

        /** Throws {@link IllegalStateException} if the lease ended. */
        void check();
    }

    private final Pool pool;
    /** The map's check for a read that would wait for its own thread; {@code null} for slices without a stamp. */
    private final WriterCheck writers;
    /** What the bytes are read under, or {@code null}: they never change, or a stamp tells when they do. */
    private final Lease lease;
    /** Where the map found the slice (see the class notes), or {@code null}: reads validate against its header. */
    private final Origin origin;
    /** Whether one thread at a time reads the handle, which then keeps a confirmed stamp and follows moves. */
    private final boolean oneReader;
    /** Always open on the slice, read-only; the getters read through it. Never handed to user code. */
    private final SegmentView view = new SegmentView();
    /**
     * The view {@link #read} hands to its callback, opened and closed around it; claimed by a CAS on the flag, and
     * made by the first claim (a scan's handles are mostly read by getters, which need none).
     */
    private SegmentView callbackView;
    @SuppressWarnings("unused") // accessed through CALLBACK_VIEW_BUSY
    private volatile int callbackViewBusy;
    private long ref;
    /** The stamp's offset in the view's segment, or -1 without a stamp. */
    private long stampAt = -1;
    /** The identity word's offset in the view's segment, or -1 without one (see the class notes). */
    private long identityAt = -1;
    /** The identity the handle was made on. */
    private long identity;
    /** The payload length of the slice the handle was last pointed at. */
    private int sliceLength;
    /** What the handle was last pointed at: the range and stamp in the slice, and where the map found it. */
    private int start;
    private int length;
    private int stampOffset;
    private Object place;
    private int index;
    /**
     * In a {@link #oneReader} handle: the stamp the last read found unchanged after it, which serves as step (1) of the
     * next read; {@link #UNCONFIRMED} if none.
     */
    private long confirmedStamp = UNCONFIRMED;

    /** A handle on {@code ref}'s slice; throws {@link ConcurrentModificationException} if it is not live. */
    public SliceHandle(Pool pool, long ref) {
        this(pool);
        pointAt(ref);
    }

    /** A handle not yet pointed at anything, for scans that point one handle at entry after entry. */
    public SliceHandle(Pool pool) {
        this(pool, null, null);
    }

    /**
     * A handle not yet pointed at anything, on slices with a stamp whose writers are the threads {@code writers}
     * can tell ({@link WriterCheck}).
     */
    public SliceHandle(Pool pool, WriterCheck writers) {
        this(pool, writers, null, null, false);
    }

    /**
     * A handle not yet pointed at anything, that is told where the map found each slice ({@link #from}) and asks
     * {@code origin} to vouch for it; with a stamp whose writers {@code writers} can tell, or ({@code writers} null)
     * without one. It may be read by several threads; its bytes must not be moved (see the class notes).
     */
    public SliceHandle(Pool pool, WriterCheck writers, Origin origin) {
        this(pool, writers, null, origin, false);
    }

    /** A handle not yet pointed at anything, on slices read without a stamp under {@code lease}. */
    public SliceHandle(Pool pool, Lease lease) {
        this(pool, null, lease, null, false);
    }

    private SliceHandle(Pool pool, WriterCheck writers, Lease lease, Origin origin, boolean oneReader) {
        this.pool = pool;
        this.writers = writers;
        this.lease = lease;
        this.origin = origin;
        this.oneReader = oneReader;
    }

    /**
     * As {@link #SliceHandle(Pool, WriterCheck, Origin)}, for one thread at a time: it keeps the stamp its last read
     * confirmed, and follows bytes the map moves (see the class notes).
     */
    public static SliceHandle oneReader(Pool pool, WriterCheck writers, Origin origin) {
        return new SliceHandle(pool, writers, null, Objects.requireNonNull(origin, "origin"), true);
    }

    /**
     * Points this handle at another live slice; throws {@link ConcurrentModificationException} (and stays
     * pointed at the previous slice) if {@code ref} is not live.
     */
    public SliceHandle pointAt(long ref) {
        return pointAt(ref, 0, -1, NO_STAMP);
    }

    /** As {@link #pointAt(long, int, int, int)} without a stamp: for bytes that never change (keys). */
    public SliceHandle pointAt(long ref, int start, int length) {
        return pointAt(ref, start, length, NO_STAMP);
    }

    /**
     * Points this handle at bytes {@code [start, start + length)} of a live slice's payload ({@code length} -1:
     * to the end); reads are validated against the whole slice. With a {@code stampOffset} (the payload offset of
     * the slice's {@link SliceStamp}, a multiple of 8), every read returns bytes of one state of the slice between
     * in-place writes; {@link #NO_STAMP} for bytes that never change. Throws
     * {@link ConcurrentModificationException} (and stays pointed where it was) if {@code ref} is not live.
     *
     * @throws IndexOutOfBoundsException if the range or the stamp lies outside the slice, or the stamp is not
     *     8-byte aligned
     */
    public SliceHandle pointAt(long ref, int start, int length, int stampOffset) {
        int sliceLength = pool.length(ref);
        return point(ref, pool.segment(ref), pool.payloadOffset(ref), sliceLength, start, length, stampOffset, null,
                0);
    }

    /**
     * As {@link #pointAt(long, int, int, int) pointAt(ref, start, -1, stampOffset)}{@code .from(place, index)} for a
     * caller that has just read the slice's payload length {@code sliceLength} from its live header and knows where
     * the payload lies ({@code payload} of {@code segment}: {@link Pool#segment}, {@link Pool#payloadOffset}), which
     * saves finding them again: a stream's pointing of its reused handles, pair after pair. The slice may have been
     * deleted since; reads then fail.
     */
    public SliceHandle pointAtNext(long ref, MemorySegment segment, long payload, int sliceLength, int start,
            int stampOffset, Object place, int index) {
        return point(ref, segment, payload, sliceLength, start, -1, stampOffset, place, index);
    }

    /** Points this handle (see {@link #pointAt(long, int, int, int)}) at a slice found where its caller says. */
    private SliceHandle point(long ref, MemorySegment segment, long payload, int sliceLength, int start, int length,
            int stampOffset, Object place, int index) {
        int size = length < 0 ? sliceLength - start : length;
        Objects.checkFromIndexSize(start, size, sliceLength);
        if (stampOffset != NO_STAMP) {
            Objects.checkFromIndexSize(stampOffset, Long.BYTES, sliceLength);
            if ((stampOffset & (Long.BYTES - 1)) != 0) {
                throw new IndexOutOfBoundsException("a stamp must be 8-byte aligned, was at " + stampOffset);
            }
        }
        view.reopenReadOnly(segment, payload + start, size);
        this.ref = ref;
        this.stampAt = stampOffset == NO_STAMP ? -1 : payload + stampOffset;
        this.start = start;
        this.length = length;
        this.stampOffset = stampOffset;
        this.identityAt = -1;
        this.sliceLength = sliceLength;
        this.place = place;
        this.index = index;
        this.confirmedStamp = UNCONFIRMED;
        return this;
    }

    /**
     * Makes this handle, just pointed at a slice, also fail once the 8-byte word at payload offset
     * {@code identityOffset} no longer holds the identity it holds now (see the class notes). The caller reads the
     * slice through this handle afterwards, which validates it, so an identity read from a deleted slice is never
     * trusted.
     *
     * @throws IndexOutOfBoundsException if the word lies outside the slice or is not 8-byte aligned
     */
    public SliceHandle identifiedAt(int identityOffset) {
        Objects.checkFromIndexSize(identityOffset, Long.BYTES, sliceLength);
        if ((identityOffset & (Long.BYTES - 1)) != 0) {
            throw new IndexOutOfBoundsException("an identity must be 8-byte aligned, was at " + identityOffset);
        }
        this.identityAt = pool.payloadOffset(ref) + identityOffset;
        this.identity = SliceStamp.acquire(view.segment(), identityAt);
        return this;
    }

    /** Whether the identity the handle was made on is the slice's still (true for a handle without one). */
    private boolean sameIdentity() {
        return identityAt < 0 || SliceStamp.acquire(view.segment(), identityAt) == identity;
    }

    /**
     * Records where the map found the slice this handle was just pointed at, for its {@link Origin}: a handle not
     * pointed from anywhere validates its reads against the slice's header and is never relocated.
     */
    public SliceHandle from(Object place, int index) {
        this.place = place;
        this.index = index;
        return this;
    }

    /**
     * Points this handle, for its {@link Origin}, at the same range of live slice {@code ref}, where the map
     * moved its bytes, found at {@code place} and {@code index}. Throws {@link ConcurrentModificationException} if
     * {@code ref} is not live.
     */
    public void pointAtMoved(long ref, Object place, int index) {
        pointAt(ref, start, length, stampOffset).from(place, index);
    }

    /** Whether the handle's slice, found gone, had its bytes moved: then the handle now points where they went. */
    private boolean moved() {
        return oneReader && place != null && origin.follow(this, place, index);
    }

    /** The reference this handle reads. */
    public long reference() {
        return ref;
    }

    /**
     * Whether the slice is live (and the lease, if any, holds); {@code false} once its pool is closed too (the closed
     * arena would make the header read throw), so a handle of a closed map answers the same whether the map had its
     * own pool or shared one.
     */
    @Override
    public boolean isValid() {
        try {
            return (lease == null || lease.holds()) && !pool.isClosed() && (pool.isLive(ref) || moved())
                    && sameIdentity();
        } catch (IllegalStateException closedMeanwhile) {
            if (pool.isClosed()) {
                return false;
            }
            throw closedMeanwhile;
        }
    }

    // ---- the read protocol (see the class notes) -------------------------------------------------------------

    /** Step (1): a stamp no writer holds (0 without a stamp). */
    private long stableStamp() {
        if (stampAt < 0) {
            return 0;
        }
        if (confirmedStamp != UNCONFIRMED) {
            return confirmedStamp;
        }
        long waitingSince = 0;
        for (int attempt = 0; ; attempt++) {
            long stamp = SliceStamp.acquire(view.segment(), stampAt);
            if (SliceStamp.isRemoved(stamp)) {
                if (moved()) {
                    continue;
                }
                throw Pool.stale(ref);
            }
            if (!SliceStamp.isWriting(stamp)) {
                return stamp;
            }
            if (!pool.isLive(ref)) {
                if (moved()) {
                    continue;
                }
                throw Pool.stale(ref);
            }
            if (writers != null && writers.readableWhileHeld(ref, stamp)) {
                return stamp;
            }
            if (writers != null && CallRegistry.timeToCheck(attempt)) {
                waitingSince = waitingSince == 0 ? System.nanoTime() : waitingSince;
                writers.checkWriter(ref, waitingSince);
            }
            Backoff.pause(attempt);
        }
    }

    /**
     * Steps (3) and (4): whether what was read since {@code stamp} is one state of the live slice; {@code false}:
     * read again (also where moved bytes went); throws {@link ConcurrentModificationException} if the slice is gone,
     * {@link IllegalStateException} if the lease ended.
     */
    private boolean unchangedSince(long stamp) {
        boolean unchanged = stampAt < 0 || SliceStamp.unchanged(view.segment(), stampAt, stamp);
        if (lease != null) {
            lease.check();
        }
        VarHandle.loadLoadFence();
        if ((origin != null && place != null && origin.holds(place, index, ref)) || pool.isLive(ref)) {
            if (!sameIdentity()) {
                throw Pool.stale(ref); // the entry was replaced in place
            }
            if (oneReader) {
                confirmedStamp = unchanged ? stamp : UNCONFIRMED;
            }
            return unchanged;
        }
        if (moved()) {
            return false;
        }
        throw Pool.stale(ref);
    }

    /**
     * Step (1) of the quick read of a handle with an origin ({@link #vouchedSince}): the stamp the last read
     * confirmed ({@link #oneReader}), else the stamp read now if no writer holds it; 0 without a stamp;
     * {@link #UNCONFIRMED} if the read must follow the whole protocol ({@link #readBits}).
     */
    private long quickStamp() {
        if (origin == null || place == null) {
            return UNCONFIRMED;
        }
        if (stampAt < 0) {
            return 0;
        }
        long stamp = confirmedStamp;
        if (stamp == UNCONFIRMED) {
            stamp = SliceStamp.acquire(view.segment(), stampAt);
            if (SliceStamp.isWriting(stamp) || SliceStamp.isRemoved(stamp)) {
                return UNCONFIRMED;
            }
        }
        return stamp;
    }

    /**
     * Steps (3) and (4) of a quick read, which started from {@code stamp} ({@link #quickStamp}): whether the stamp is
     * unchanged and the origin vouches for the slice. {@code false} proves nothing: the read is made again under the
     * whole protocol. A handle with an origin has no lease; one with an identity always takes the whole protocol.
     */
    private boolean vouchedSince(long stamp) {
        if (identityAt >= 0 || (stampAt >= 0 && !SliceStamp.unchanged(view.segment(), stampAt, stamp))) {
            return false;
        }
        VarHandle.loadLoadFence();
        if (!origin.holds(place, index, ref)) {
            return false;
        }
        if (oneReader) {
            confirmedStamp = stamp;
        }
        return true;
    }

    /** Reads the {@code width}-byte value at {@code index} (1, 2, 4 or 8 bytes, big-endian) under the protocol. */
    private long readBits(int index, int width) {
        while (true) {
            long stamp = stableStamp();
            long bits = switch (width) {
                case Byte.BYTES -> view.getByte(index);
                case Short.BYTES -> view.getShort(index);
                case Integer.BYTES -> view.getInt(index);
                default -> view.getLong(index);
            };
            if (unchangedSince(stamp)) {
                return bits;
            }
        }
    }

    @Override
    public <T> T read(Function<? super ReadView, ? extends T> reader) {
        boolean cached = CALLBACK_VIEW_BUSY.compareAndSet(this, 0, 1);
        SegmentView scoped;
        if (cached) {
            if (callbackView == null) {
                callbackView = new SegmentView(); // seen by the next claim: the flag's release, then its CAS
            }
            scoped = callbackView;
        } else {
            scoped = new SegmentView(); // another thread is in read(): its own view
        }
        try {
            while (true) {
                long stamp = stableStamp();
                T result;
                scoped.open(view.segment(), view.offset(), view.size(), false);
                try {
                    result = reader.apply(scoped);
                } catch (RuntimeException | Error e) {
                    if (unchangedSince(stamp)) {
                        throw e; // a failure on bytes that did not change: the reader's own
                    }
                    continue; // a failure caused by a concurrent write: read again
                } finally {
                    scoped.close();
                }
                if (unchangedSince(stamp)) {
                    return result;
                }
            }
        } finally {
            if (cached) {
                CALLBACK_VIEW_BUSY.setRelease(this, 0);
            }
        }
    }

    // ---- reads -------------------------------------------------------------------------------------------------

    @Override
    public int size() {
        return view.size();
    }

    // Each getter first tries the quick read of a handle with an origin (the handles of an ordered map's scans): a few
    // lines that the compiler inlines into the caller, the whole protocol kept out of line.

    @Override
    public byte getByte(int index) {
        long stamp = quickStamp();
        if (stamp != UNCONFIRMED) {
            byte b = view.getByte(index);
            if (vouchedSince(stamp)) {
                return b;
            }
        }
        return (byte) readBits(index, Byte.BYTES);
    }

    @Override
    public short getShort(int index) {
        long stamp = quickStamp();
        if (stamp != UNCONFIRMED) {
            short s = view.getShort(index);
            if (vouchedSince(stamp)) {
                return s;
            }
        }
        return (short) readBits(index, Short.BYTES);
    }

    @Override
    public char getChar(int index) {
        long stamp = quickStamp();
        if (stamp != UNCONFIRMED) {
            char c = view.getChar(index);
            if (vouchedSince(stamp)) {
                return c;
            }
        }
        return (char) readBits(index, Character.BYTES);
    }

    @Override
    public int getInt(int index) {
        long stamp = quickStamp();
        if (stamp != UNCONFIRMED) {
            int i = view.getInt(index);
            if (vouchedSince(stamp)) {
                return i;
            }
        }
        return (int) readBits(index, Integer.BYTES);
    }

    @Override
    public long getLong(int index) {
        long stamp = quickStamp();
        if (stamp != UNCONFIRMED) {
            long l = view.getLong(index);
            if (vouchedSince(stamp)) {
                return l;
            }
        }
        return readBits(index, Long.BYTES);
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
        while (true) {
            long stamp = stableStamp();
            view.copyTo(index, target, targetIndex, length);
            if (unchangedSince(stamp)) {
                return;
            }
        }
    }

    @Override
    public void copyTo(int index, ByteBuffer target) {
        int position = Objects.requireNonNull(target, "target").position();
        while (true) {
            long stamp = stableStamp();
            view.copyTo(index, target);
            if (unchangedSince(stamp)) {
                return;
            }
            target.position(position);
        }
    }

    @Override
    public void copyTo(int index, MemorySegment target, long targetOffset, int length) {
        while (true) {
            long stamp = stableStamp();
            view.copyTo(index, target, targetOffset, length);
            if (unchangedSince(stamp)) {
                return;
            }
        }
    }

    @Override
    public String toString() {
        if (!view.isOpen()) {
            return "Handle[not pointed at a slice]";
        }
        return "Handle[" + Reference.toString(ref) + ", size=" + view.size() + (stampAt < 0 ? "]" : ", stamped]");
    }
}
