package io.grove.internal.hash;

import io.grove.internal.memory.Pool;
import io.grove.internal.sync.ScratchPool;
import io.grove.internal.view.KeyBuffer;
import io.grove.internal.view.SegmentView;
import io.grove.internal.view.SliceResizer;
import io.grove.internal.view.UndoJournal;
import io.grove.serial.Serializer;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Per-thread working memory of a map operation: the probe key serialized on heap, and reusable views, so that an
 * operation allocates nothing. Taken from the map's {@link ScratchPool} (a platform thread's own instance, or an
 * idle one for a virtual thread) and given back by {@link #release}; an operation that finds its thread's instance
 * in use (a user callback running inside an operation called the map again) gets another, so nested calls never
 * overwrite the outer operation's key.
 */
final class Scratch extends ScratchPool.Reusable implements SliceResizer.Intent {
    private final KeyBuffer key = new KeyBuffer();
    private long keyHash;
    final SegmentView readView = new SegmentView();
    final SegmentView writeView = new SegmentView();
    final SliceResizer resizer;
    /** The old bytes of the in-place update the current operation runs, to undo it if it fails. */
    final UndoJournal journal = new UndoJournal();
    /** Set by {@link ClockEviction#chooseVictim}: the slot of the victim it returned. */
    long victimSlot;
    /** Set by {@link OffHeapHashMap#findLinked}: the segment version it checked, the found entry's value length. */
    long version;
    int valueLength;
    /** The token of the segment lock the current operation holds ({@link HashTable#lock}). */
    long lockToken;
    /** Where a put serializes a value it then copies over an entry's value of the same size ({@link #valueBuffer}). */
    private byte[] valueBytes = new byte[64];
    private MemorySegment valueBuffer = MemorySegment.ofArray(valueBytes);
    /** Keys and values evicted by the current operation, alternating, for the listener; null until needed. */
    private java.util.ArrayList<Object> evicted;

    /** The table and segment of the in-place update the current operation runs ({@link #updating}). */
    private HashTable updatingTable;
    private int updatingSegment;

    Scratch(Pool pool) {
        this.resizer = new SliceResizer(pool, this);
    }

    /** Before an in-place update of an entry of segment {@code s} of {@code table}: where its resizes are named. */
    void updating(HashTable table, int s) {
        updatingTable = table;
        updatingSegment = s;
    }

    /** The resizer's private slice: named as the segment's adding intent. */
    @Override
    public void holding(long ref) {
        updatingTable.intendAdding(updatingSegment, ref);
    }

    void evicted(Object key, Object value) {
        if (evicted == null) {
            evicted = new java.util.ArrayList<>();
        }
        evicted.add(key);
        evicted.add(value);
    }

    int evictedCount() {
        return evicted == null ? 0 : evicted.size() / 2;
    }

    Object evictedKey(int i) {
        return evicted.get(2 * i);
    }

    Object evictedValue(int i) {
        return evicted.get(2 * i + 1);
    }

    void clearEvicted() {
        if (evicted != null) {
            evicted.clear();
        }
    }

    void release() {
        key.release();
        giveBack();
    }

    /**
     * Serializes {@code key} into this scratch and hashes it; a key of more than {@code maxLength} bytes is not
     * serialized ({@link #keyFits}) and matches no entry: its length exceeds every stored key's.
     */
    <K> void setKey(Serializer<K> serializer, K key, int maxLength) {
        keyHash = this.key.set(serializer, key, maxLength) ? KeyHash.of(this.key.segment(), 0, this.key.length()) : 0;
    }

    boolean keyFits() {
        return key.fits();
    }

    IllegalArgumentException keyTooLarge(int maxLength, String why) {
        return key.tooLarge(maxLength, why);
    }

    /** Takes the serialized key {@code [start, start + length)} of {@code source} as the probe and hashes it. */
    void setKeyBytes(MemorySegment source, int start, int length) {
        this.key.setBytes(source.asSlice(start, length), length);
        keyHash = KeyHash.of(this.key.segment(), 0, length);
    }

    /** The most bytes {@link #valueBuffer} holds: larger values go to a new entry instead. */
    static final int MAX_VALUE_BUFFER = 4096;

    /**
     * A buffer whose first {@code size} bytes ({@code size} at most {@link #MAX_VALUE_BUFFER}) are zero, kept for the
     * next operation.
     */
    MemorySegment valueBuffer(int size) {
        if (valueBytes.length < size) {
            valueBytes = new byte[Math.max(size, valueBytes.length * 2)];
            valueBuffer = MemorySegment.ofArray(valueBytes);
        }
        Arrays.fill(valueBytes, 0, size, (byte) 0);
        return valueBuffer;
    }

    MemorySegment key() {
        return key.segment();
    }

    int keyLength() {
        return key.length();
    }

    long keyHash() {
        return keyHash;
    }
}
