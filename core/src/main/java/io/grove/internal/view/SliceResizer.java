package io.grove.internal.view;

import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;

/**
 * Grows or shrinks a value during an in-place update: moves the bytes to a new private slice and reopens the view
 * there. The map links the new slice in place of the original, and deletes the original, once the update ends;
 * slices made by intermediate resizes of the same update are private and deleted at once. A value that does not
 * start its slice (behind a value header, or behind an entry's fields and key: {@code headerBytes}) gets a new
 * slice with that many zero bytes before it, for the map to fill. If the update fails, {@link #abandon} deletes
 * the private slice; the original then still holds the value, with whatever the update wrote into it before its
 * first resize, which the update's {@link UndoJournal} restores.
 */
public final class SliceResizer implements SegmentView.Resizer {
    private final Pool pool;
    private int headerBytes;
    private long original;
    private long current;

    public SliceResizer(Pool pool) {
        this.pool = pool;
    }

    /** Starts an update of the value that begins {@code headerBytes} into the payload of slice {@code ref}. */
    public void start(long ref, int headerBytes) {
        this.headerBytes = headerBytes;
        original = ref;
        current = ref;
    }

    @Override
    public void resize(SegmentView view, int newSize) {
        long fresh = pool.allocate(headerBytes + newSize);
        MemorySegment target = pool.segment(fresh);
        long header = pool.payloadOffset(fresh);
        long at = header + headerBytes; // a new slice's payload is zero: the header room and any growth
        int kept = Math.min(view.size(), newSize);
        MemorySegment.copy(view.segment(), view.offset(), target, at, kept);
        if (current != original) {
            pool.deletePrivate(current);
        }
        current = fresh;
        view.close();
        view.open(target, at, newSize, true, this);
    }

    /**
     * Gives up the update's resizes: deletes the private slice the last resize made, if any, so that the value is
     * the original again (whose own bytes the update's {@link UndoJournal} restores).
     */
    public void abandon() {
        if (current != original) {
            pool.deletePrivate(current);
            current = original;
        }
    }

    /** The slice holding the value now: the original, or the last one a resize made. */
    public long current() {
        return current;
    }

    public boolean moved() {
        return current != original;
    }
}
