package io.grove.internal.sorted;

import io.grove.internal.view.SegmentView;
import io.grove.internal.view.SliceResizer;
import io.grove.internal.view.SliceWriter;
import io.grove.serial.Serializer;
import java.lang.foreign.MemorySegment;

/**
 * Per-thread working memory of an ordered-map operation: the probe key serialized on the heap, reusable views and
 * the chunk the operation published in, so that an operation allocates nothing. One instance per thread is
 * cached; an operation that finds it in use (a user callback called the map again) takes a fresh one.
 */
final class Scratch {
    private byte[] keyBytes = new byte[64];
    private MemorySegment keySegment = MemorySegment.ofArray(keyBytes);
    private int keyLength;
    final SegmentView keyView = new SegmentView();
    final SegmentView valueView = new SegmentView();
    final SegmentView writeView = new SegmentView();
    final SliceResizer resizer;
    /** The chunk of the entry the last {@code enter} returned, published in. */
    Chunk chunk;
    final ChunkMap.Outcome outcome = new ChunkMap.Outcome();
    private boolean inUse;

    Scratch(Values<?> values) {
        this.resizer = new SliceResizer(values.pool(), ValueHeader.HEADER);
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
    }

    /** Serializes {@code key} as the probe. */
    <K> void setKey(Serializer<K> serializer, K key) {
        int size = SliceWriter.sizeOf(serializer, key);
        if (size > keyBytes.length) {
            keyBytes = new byte[Math.max(size, keyBytes.length * 2)];
            keySegment = MemorySegment.ofArray(keyBytes);
        }
        SliceWriter.writeInto(serializer, key, size, keyView, keySegment, 0);
        keyLength = size;
    }

    /** Copies serialized key bytes as the probe. */
    void setKeyBytes(MemorySegment source, int length) {
        if (length > keyBytes.length) {
            keyBytes = new byte[Math.max(length, keyBytes.length * 2)];
            keySegment = MemorySegment.ofArray(keyBytes);
        }
        MemorySegment.copy(source, 0, keySegment, 0, length);
        keyLength = length;
    }

    MemorySegment key() {
        return keySegment;
    }

    int keyLength() {
        return keyLength;
    }
}
