package io.grove.internal.view;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The stamp of a slice whose bytes are changed in place: a 64-bit word at a fixed, 8-byte aligned offset of the
 * slice's payload, in the platform's byte order, that tells optimistic readers ({@link SliceHandle}) whether the
 * bytes they read belong to one state of the slice. A seqlock (the ordered map's value header, Oak §3.3, is one).
 *
 * <pre>
 *  63  62                                                                      1   0
 * +---+-------------------------------------------------------------------------+---+
 * | R |  sequence: changes with every write                                      | W |
 * +---+-------------------------------------------------------------------------+---+
 * </pre>
 *
 * <ul>
 *   <li>W (writing): set while a writer changes the slice's bytes. A writer makes the stamp odd before its first
 *       change and even, and different from every earlier even stamp, after its last.
 *   <li>R (removed): optional. A map may set it when the slice leaves its entry, before deleting it; readers then
 *       report the removal at once instead of reading bytes that no longer belong to the entry.
 * </ul>
 * Other bits are the map's own (the ordered map keeps an "absent" flag in bit 62, where a handle never points, and
 * a "claimed by a batch" flag in bit 61, with W set: {@link SliceHandle.WriterCheck#readableWhileHeld} tells the
 * handle whether the bytes may be read under it). Writers must exclude each other by other means (a lock);
 * {@link #beginWrite} and {@link #endWrite} are for a writer that holds one. A map whose stamp word is also its lock
 * word (the ordered map) takes the odd stamp with a compare-and-set and needs neither.
 *
 * <p>Memory ordering (a seqlock): the writer's odd store is followed by a store-store fence, so no byte it changes
 * becomes visible before the stamp turned odd; its even store is a release, so every byte it changed is visible
 * to whoever reads that even stamp with acquire. A reader reads the stamp with acquire, the bytes, then, after a
 * load-load fence, the stamp again: equal even stamps mean no write overlapped the bytes it read.
 */
public final class SliceStamp {
    /** The writing bit. */
    static final long WRITING = 1L;
    /** The removed bit. */
    static final long REMOVED = 1L << 63;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();

    private SliceStamp() {}

    /** The stamp at {@code offset} of {@code segment}, read with acquire semantics. */
    public static long acquire(MemorySegment segment, long offset) {
        return (long) LONG.getAcquire(segment, offset);
    }

    /**
     * Whether the stamp at {@code offset} is still {@code stamp}: orders the reads made since {@code stamp} was read
     * before this one.
     */
    public static boolean unchanged(MemorySegment segment, long offset, long stamp) {
        VarHandle.loadLoadFence();
        return (long) LONG.getAcquire(segment, offset) == stamp;
    }

    public static boolean isWriting(long stamp) {
        return (stamp & WRITING) != 0;
    }

    static boolean isRemoved(long stamp) {
        return (stamp & REMOVED) != 0;
    }

    /**
     * Starts an in-place write of a slice whose writers hold a lock: makes the stamp odd and returns it for
     * {@link #endWrite}. The slice must be live for as long as the write lasts.
     */
    public static long beginWrite(MemorySegment segment, long offset) {
        long odd = ((long) LONG.get(segment, offset)) | WRITING;
        LONG.set(segment, offset, odd);
        VarHandle.storeStoreFence(); // the changes that follow cannot be seen before the odd stamp
        return odd;
    }

    /** Ends the write begun as {@code odd}: the next even stamp, publishing every change made since. */
    public static void endWrite(MemorySegment segment, long offset, long odd) {
        LONG.setRelease(segment, offset, odd + 1);
    }
}
