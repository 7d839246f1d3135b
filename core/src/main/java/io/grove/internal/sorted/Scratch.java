package io.grove.internal.sorted;

import io.grove.internal.view.SegmentView;
import io.grove.internal.view.SliceResizer;
import io.grove.internal.view.KeyBuffer;
import io.grove.serial.Serializer;
import java.lang.foreign.MemorySegment;

/**
 * Per-thread working memory of an ordered-map operation: the probe key serialized on the heap, reusable views and
 * the chunk the operation published in, so that an operation allocates nothing. One instance per thread is
 * cached; an operation that finds it in use (a user callback called the map again) takes a fresh one.
 */
final class Scratch {
    private final KeyBuffer key = new KeyBuffer();
    final SegmentView valueView = new SegmentView();
    final SegmentView writeView = new SegmentView();
    final SliceResizer resizer;
    /** The chunk of the entry the last {@code enter} returned, published in. */
    Chunk chunk;
    /**
     * A chunk searched for the probe by this operation, without publishing, and the probe's window found there
     * (the chunk was not replaced after the search), or {@code null}: lets an insertion skip searching again.
     */
    Chunk searched;
    long searchedWindow;
    final EntryUpdates.Outcome outcome = new EntryUpdates.Outcome();
    private boolean inUse;

    Scratch(Values<?> values) {
        this.resizer = new SliceResizer(values.pool());
    }

    static Scratch acquire(ThreadLocal<Scratch> cache, Values<?> values) {
        Scratch s = cache.get();
        if (s.inUse) {
            s = new Scratch(values);
        }
        s.inUse = true;
        return s;
    }

    void release() {
        inUse = false;
        chunk = null;
        searched = null;
    }

    /** Serializes {@code key} as the probe. */
    <K> void setKey(Serializer<K> serializer, K key) {
        searched = null;
        this.key.set(serializer, key);
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
