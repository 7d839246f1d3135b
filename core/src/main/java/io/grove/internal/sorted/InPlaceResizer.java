package io.grove.internal.sorted;

import io.grove.internal.view.SegmentView;
import java.lang.foreign.MemorySegment;

/**
 * Grows or shrinks a value during an in-place update: moves the bytes to a new private value slice and reopens the
 * view there. The caller repoints the entry and retires the original once the update ends; slices made by
 * intermediate resizes of the same update are private and deleted at once.
 */
final class InPlaceResizer implements SegmentView.Resizer {
    private final Values<?> values;
    private long original;
    private long current;

    InPlaceResizer(Values<?> values) {
        this.values = values;
    }

    void start(long ref) {
        original = ref;
        current = ref;
    }

    @Override
    public void resize(SegmentView view, int newSize) {
        long fresh = values.allocate(newSize);
        MemorySegment target = values.block(fresh);
        long at = values.bytesOffset(fresh);
        int kept = Math.min(view.size(), newSize);
        MemorySegment.copy(view.segment(), view.offset(), target, at, kept);
        target.asSlice(at + kept, newSize - kept).fill((byte) 0);
        if (current != original) {
            values.pool().deletePrivate(current);
        }
        current = fresh;
        view.close();
        view.open(target, at, newSize, true, this);
    }

    long current() {
        return current;
    }

    boolean moved() {
        return current != original;
    }
}
