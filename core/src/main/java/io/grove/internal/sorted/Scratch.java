package io.grove.internal.sorted;

import io.grove.internal.sync.ScratchPool;
import io.grove.internal.view.KeyBuffer;
import io.grove.internal.view.SegmentView;
import io.grove.internal.view.SliceResizer;
import io.grove.internal.view.UndoJournal;
import io.grove.serial.Serializer;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Per-thread working memory of an ordered-map operation: the probe key serialized on the heap, reusable views and
 * the chunk the operation published in, so that an operation allocates nothing. Taken from the map's
 * {@link ScratchPool} (a platform thread's own instance, or an idle one for a virtual thread) and given back by
 * {@link #release}; an operation that finds its thread's instance in use (a user callback called the map again)
 * gets another.
 */
final class Scratch extends ScratchPool.Reusable {
    private static final VarHandle TIME;

    static {
        try {
            TIME = MethodHandles.lookup().findVarHandle(Scratch.class, "time", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final KeyBuffer key = new KeyBuffer();
    final SegmentView valueView = new SegmentView();
    final SegmentView writeView = new SegmentView();
    final SliceResizer resizer;
    /** The old bytes of the in-place update the current operation runs, to undo it if it fails. */
    final UndoJournal journal = new UndoJournal();
    /** The chunk of the entry the last {@code enter} returned, published in. */
    Chunk chunk;
    /**
     * A chunk searched for the probe by this operation, without publishing, and the probe's window found there
     * (the chunk was not replaced after the search), or {@code null}: lets an insertion skip searching again.
     */
    Chunk searched;
    long searchedWindow;
    final EntryUpdates.Outcome outcome = new EntryUpdates.Outcome();
    /** The last time this operation stamped on a version ({@link #publishTime}). */
    @SuppressWarnings("unused") private long time;

    Scratch(Values<?> values) {
        this.resizer = new SliceResizer(values.pool(), null);
    }

    /**
     * Stores {@code time} by a volatile store, so the clock read it came from precedes the caller's next volatile
     * reads ({@link SnapshotRegistry}).
     */
    void publishTime(long time) {
        TIME.setVolatile(this, time);
    }

    void release() {
        chunk = null;
        searched = null;
        key.release();
        giveBack();
    }

    /** Serializes {@code key} as the probe, unless it has more than {@code maxLength} bytes ({@link #keyFits}). */
    <K> void setKey(Serializer<K> serializer, K key, int maxLength) {
        searched = null;
        this.key.set(serializer, key, maxLength);
    }

    boolean keyFits() {
        return key.fits();
    }

    IllegalArgumentException keyTooLarge(int maxLength, String why) {
        return key.tooLarge(maxLength, why);
    }

    /** Copies serialized key bytes as the probe. */
    void setKeyBytes(MemorySegment source, int length) {
        searched = null;
        key.setBytes(source, length);
    }

    MemorySegment key() {
        return key.segment();
    }

    int keyLength() {
        return key.length();
    }
}
