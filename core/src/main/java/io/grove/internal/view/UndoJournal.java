package io.grove.internal.view;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The old bytes of an in-place update, so that a failed update can be undone: a {@link SegmentView} opened
 * {@linkplain SegmentView#openJournaled journaled} saves here the bytes each write is about to overwrite, and
 * {@link #undo} writes them back, last write first, which leaves every byte as it was before the first write.
 *
 * <p>One journal serves one update at a time; a map keeps one per thread (in its per-thread scratch) and reuses
 * it, so an update allocates nothing once the log is large enough. A log grown beyond {@value #RETAINED_BYTES}
 * bytes, or room for more than {@value #RETAINED_RECORDS} records, by a large update is dropped when that update
 * ends ({@link #commit} or {@link #undo}), so one huge update does not keep a huge buffer for good.
 *
 * <p>Records, on the heap: record {@code r} saved {@code lengths[r]} bytes that stood at {@code offsets[r]} of the
 * segment, and keeps them in {@code log} from {@code starts[r]}. A write that continues the last record's range
 * extends that record, and a write inside it saves nothing (the record already holds those bytes as they were
 * before both writes): a loop that rewrites a value word by word, or a counter bumped many times, costs one record.
 * (Plain arrays, not longs packed into the byte log through a byte-array view: Lincheck's model checker, which runs
 * the maps' in-place updates, does not support such views.)
 */
public final class UndoJournal {
    /** The largest log kept from one update to the next. */
    static final int RETAINED_BYTES = 1 << 15;
    /** The most records kept room for from one update to the next. */
    static final int RETAINED_RECORDS = 1 << 10;
    private static final int INITIAL_BYTES = 256;
    private static final int INITIAL_RECORDS = 8;

    private byte[] log = new byte[INITIAL_BYTES];
    private int end;
    private long[] offsets = new long[INITIAL_RECORDS];
    private int[] starts = new int[INITIAL_RECORDS];
    private int[] lengths = new int[INITIAL_RECORDS];
    private int records;
    /** The segment the saved bytes come from; {@code null} between updates. */
    private MemorySegment segment;

    /** Starts the journal of an update of bytes in {@code segment}; forgets any earlier update. */
    void begin(MemorySegment segment) {
        this.segment = segment;
        end = 0;
        records = 0;
    }

    /** Saves the {@code length} bytes at {@code at} of the journaled segment, which a write is about to change. */
    void save(long at, int length) {
        int last = records - 1;
        if (last >= 0 && at >= offsets[last] && at + length <= offsets[last] + lengths[last]) {
            return; // inside the last record: its bytes are older
        }
        ensureRoom(length);
        if (last >= 0 && at == offsets[last] + lengths[last]) {
            lengths[last] += length; // continues the last record, whose bytes end the log
        } else {
            if (records == offsets.length) {
                offsets = Arrays.copyOf(offsets, records * 2);
                starts = Arrays.copyOf(starts, records * 2);
                lengths = Arrays.copyOf(lengths, records * 2);
            }
            offsets[records] = at;
            starts[records] = end;
            lengths[records] = length;
            records++;
        }
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, at, log, end, length);
        end += length;
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
        for (int r = records - 1; r >= 0; r--) {
            MemorySegment.copy(log, starts[r], segment, ValueLayout.JAVA_BYTE, offsets[r], lengths[r]);
        }
        commit();
    }

    /** Ends the update, keeping its writes: forgets the saved bytes. */
    public void commit() {
        segment = null;
        end = 0;
        records = 0;
        if (log.length > RETAINED_BYTES) {
            log = new byte[INITIAL_BYTES];
        }
        if (offsets.length > RETAINED_RECORDS) {
            offsets = new long[INITIAL_RECORDS];
            starts = new int[INITIAL_RECORDS];
            lengths = new int[INITIAL_RECORDS];
        }
    }

    /** The bytes the log holds now. */
    int loggedBytes() {
        return end;
    }

    /** The records of the update now. */
    int records() {
        return records;
    }

    /** The heap bytes the journal holds for its log and records, kept between updates. */
    int capacity() {
        return log.length + (Long.BYTES + 2 * Integer.BYTES) * offsets.length;
    }
}
