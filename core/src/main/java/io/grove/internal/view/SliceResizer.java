package io.grove.internal.view;

import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;

/**
 * Grows or shrinks a value during an in-place update: moves the bytes to a new private slice and reopens the view
 * there. The map repoints its entry, and deletes the original slice, once the update ends; slices made by
 * intermediate resizes of the same update are private and deleted at once. A map whose value slices start with a
 * header of its own ({@code headerBytes}) gets the new slice with that header zeroed.
 */
public final class SliceResizer implements SegmentView.Resizer {
    private final Pool pool;
    private final int headerBytes;
    private long original;
    private long current;

    public SliceResizer(Pool pool, int headerBytes) {
        this.pool = pool;
        this.headerBytes = headerBytes;
    }

    /** Starts an update of the value slice {@code ref}. */
    public void start(long ref) {
        original = ref;
        current = ref;
    }

    @Override
    public void resize(SegmentView view, int newSize) {
        long fresh = pool.allocate(headerBytes + newSize);
        MemorySegment target = pool.segment(fresh);
        long header = pool.payloadOffset(fresh);
        long at = header + headerBytes;
        int kept = Math.min(view.size(), newSize);
        target.asSlice(header, headerBytes).fill((byte) 0);
        MemorySegment.copy(view.segment(), view.offset(), target, at, kept);
        target.asSlice(at + kept, newSize - kept).fill((byte) 0);
        if (current != original) {
            pool.deletePrivate(current);
        }
        current = fresh;
        view.close();
        view.open(target, at, newSize, true, this);
    }

    /** The slice holding the value now: the original, or the last one a resize made. */
    public long current() {
        return current;
    }

    public boolean moved() {
        return current != original;
    }
}
