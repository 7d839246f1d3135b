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
 * first resize, which the update's {@link UndoJournal} restores. An {@link Intent}, if given, is told of each private
 * slice a resize makes, and of its end, so that a map in a file can name it where the repair after a killed process
 * looks.
 */
public final class SliceResizer implements SegmentView.Resizer {
    /** Told which private slice the update holds now: after a resize made it, and 0 before an abandon deletes it. */
    public interface Intent {
        void holding(long ref);
    }

    private final Pool pool;
    /** The update's intent, or {@code null}. */
    private final Intent intent;
    private int headerBytes;
    private long original;
    private long current;

    public SliceResizer(Pool pool, Intent intent) {
        this.pool = pool;
        this.intent = intent;
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
        if (intent != null) {
            intent.holding(fresh); // before the previous private slice goes: that one is gone from the intent now
        }
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
            if (intent != null) {
                intent.holding(0);
            }
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
