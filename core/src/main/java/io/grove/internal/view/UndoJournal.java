package io.grove.internal.view;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The old bytes of an in-place update, so that a failed update can be undone: a {@link SegmentView} opened
 * {@linkplain SegmentView#openJournaled journaled} saves here the bytes each write is about to overwrite, and
 * {@link #undo} writes them back, last write first, which leaves every byte as it was before the first write.
 *
 * <p>One journal serves one update at a time; a map keeps one per thread (in its per-thread scratch) and reuses
 * it, so an update allocates nothing once the log is large enough. A log grown beyond {@value #RETAINED_BYTES}
 * bytes by a large update is dropped when that update ends ({@link #commit} or {@link #undo}), so one huge update
 * does not keep a huge buffer for good.
 *
 * <p>Log format, on the heap: records one after another, each the saved bytes followed by a 12-byte trailer
 * (offset of the bytes in the segment as a {@code long}, their count as an {@code int}), so that {@link #undo}
 * walks them backwards from the end. A write that continues the last record's range extends that record, and a
 * write inside it saves nothing (the record already holds those bytes as they were before both writes): a loop
 * that rewrites a value word by word, or a counter bumped many times, costs one record.
 */
public final class UndoJournal {
    /** The largest log kept from one update to the next. */
    static final int RETAINED_BYTES = 1 << 15;
    private static final int INITIAL_BYTES = 256;
    private static final int TRAILER = Long.BYTES + Integer.BYTES;
    private static final VarHandle LOG_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final VarHandle LOG_INT =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private byte[] log = new byte[INITIAL_BYTES];
    private int end;
    /** The segment the saved bytes come from; {@code null} between updates. */
    private MemorySegment segment;
    /** The last record's range, {@code [lastAt, lastAt + lastLength)}; {@code lastLength} 0 if there is none. */
    private long lastAt;
    private int lastLength;

    /** Starts the journal of an update of bytes in {@code segment}; forgets any earlier update. */
    void begin(MemorySegment segment) {
        this.segment = segment;
        end = 0;
        lastLength = 0;
    }

    /** Saves the {@code length} bytes at {@code at} of the journaled segment, which a write is about to change. */
    void save(long at, int length) {
        if (at >= lastAt && at + length <= lastAt + lastLength) {
            return; // inside the last record: its bytes are older
        }
        if (lastLength > 0 && at == lastAt + lastLength) {
            end -= TRAILER; // continues the last record: append to its bytes, then its trailer again
            lastLength += length;
        } else {
            lastAt = at;
            lastLength = length;
        }
        ensureRoom(length + TRAILER);
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, at, log, end, length);
        end += length;
        LOG_LONG.set(log, end, lastAt);
        LOG_INT.set(log, end + Long.BYTES, lastLength);
        end += TRAILER;
    }

    private void ensureRoom(int bytes) {
        if (log.length - end < bytes) {
            long needed = (long) end + bytes;
            if (needed > Integer.MAX_VALUE - 8) {
                throw new OutOfMemoryError("an in-place update overwrote more than 2 GiB of bytes");
            }
            log = Arrays.copyOf(log, (int) Math.max(needed, Math.min(Integer.MAX_VALUE - 8, 2L * log.length)));
        }
    }

    /** Writes every saved byte back, last write first, and ends the update. */
    public void undo() {
        int at = end;
        while (at > 0) {
            at -= TRAILER;
            long target = (long) LOG_LONG.get(log, at);
            int length = (int) LOG_INT.get(log, at + Long.BYTES);
            at -= length;
            MemorySegment.copy(log, at, segment, ValueLayout.JAVA_BYTE, target, length);
        }
        commit();
    }

    /** Ends the update, keeping its writes: forgets the saved bytes. */
    public void commit() {
        segment = null;
        end = 0;
        lastLength = 0;
        if (log.length > RETAINED_BYTES) {
            log = new byte[INITIAL_BYTES];
        }
    }

    /** The bytes the log holds now (saved bytes and trailers). */
    int loggedBytes() {
        return end;
    }

    /** The log's capacity, kept between updates. */
    int capacity() {
        return log.length;
    }
}
