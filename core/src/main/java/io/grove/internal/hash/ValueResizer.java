package io.grove.internal.hash;

import io.grove.internal.memory.Pool;
import io.grove.internal.view.SegmentView;
import java.lang.foreign.MemorySegment;

/**
 * Grows or shrinks a value during an in-place update: moves the bytes to a new private slice and reopens the view
 * there. The entry is repointed, and the original slice deleted, once the update ends ({@link #finish}); slices
 * made by intermediate resizes of the same update are private and deleted at once.
 */
final class ValueResizer implements SegmentView.Resizer {
    private final Pool pool;
    private long original;
    private long current;

    ValueResizer(Pool pool) {
        this.pool = pool;
    }

    /** Starts an update of the value slice {@code ref}. */
    void start(long ref) {
        original = ref;
        current = ref;
    }

    @Override
    public void resize(SegmentView view, int newSize) {
        long fresh = pool.allocate(newSize);
        MemorySegment target = pool.segment(fresh);
        long targetOffset = pool.payloadOffset(fresh);
        int kept = Math.min(view.size(), newSize);
        MemorySegment.copy(view.segment(), view.offset(), target, targetOffset, kept);
        target.asSlice(targetOffset + kept, newSize - kept).fill((byte) 0);
        if (current != original) {
            pool.deletePrivate(current);
        }
        current = fresh;
        view.close();
        view.open(target, targetOffset, newSize, true, this);
    }

    /** The slice holding the value now: the original, or the last one a resize made. */
    long current() {
        return current;
    }

    boolean moved() {
        return current != original;
    }
}
