package io.grove.internal.sorted;

import io.grove.internal.sync.ScratchPool;
import io.grove.internal.view.KeyBuffer;
import io.grove.internal.view.SegmentView;
import io.grove.internal.view.SliceResizer;
import io.grove.internal.view.UndoJournal;
import io.grove.serial.Serializer;
import java.lang.foreign.MemorySegment;

/**
 * Per-thread working memory of an ordered-map operation: the probe key serialized on the heap, reusable views and
 * the chunk the operation published in, so that an operation allocates nothing. Taken from the map's
 * {@link ScratchPool} (a platform thread's own instance, or an idle one for a virtual thread) and given back by
 * {@link #release}; an operation that finds its thread's instance in use (a user callback called the map again)
 * gets another.
 */
final class Scratch extends ScratchPool.Reusable {
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

    Scratch(Values<?> values) {
        this.resizer = new SliceResizer(values.pool());
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
