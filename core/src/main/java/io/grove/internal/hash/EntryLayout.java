package io.grove.internal.hash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The off-heap record of one hash-map entry, key and value included: the payload of one Nova slice. The only place
 * that computes offsets inside an entry.
 *
 * <pre>
 * byte offset 0            8              16           20           24            28           32      valueOffset
 *            +------------+--------------+------------+------------+-------------+------------+-----+--+-------------+
 *            | next (ref) | stamp (long) | hash (int) | keyLength  | valueLength | uses (int) | key |  | value       |
 *            +------------+--------------+------------+------------+-------------+------------+-----+--+-------------+
 * </pre>
 *
 * <ul>
 *   <li>next: the reference of the next entry in the bucket's chain, or 0.
 *   <li>stamp: a seqlock over the value's bytes ({@link io.grove.internal.view.SliceStamp}, whose protocol and
 *       memory ordering it follows). Even while nobody changes them; an in-place update of the zero-copy API (under
 *       the segment's lock) makes it odd before it writes the value and even again after. A lock-free reader
 *       reads it, waits while it is odd, reads the value and checks it is unchanged. Only
 *       readers of this entry's value wait for its in-place updates; the segment's version does not move for them.
 *       An update that resizes the value moves the whole entry to a new slice and leaves the old one's stamp odd:
 *       the old slice is deleted, which a waiting reader sees through Nova's validation.
 *   <li>hash: the low 32 bits of the key's 64-bit hash ({@link KeyHash}); compared before the key bytes.
 *   <li>valueLength: the value's length; the slice's payload is exactly {@link #sizeFor} bytes, so a reader
 *       that validates the slice may take the length from the slice instead. Kept here so that a lock-free
 *       {@code get} reads nothing outside the entry's first cache lines (the slice header may sit in the line
 *       before).
 *   <li>uses: the CLOCK counter of a bounded map, 0 to {@link #MAX_USES}: raised by reads (through Nova's
 *       write protocol, so a stale reader never writes into reused memory), lowered by the eviction sweep.
 *   <li>key: the serialized key, immutable for the entry's lifetime.
 *   <li>value: the serialized value, from the first multiple of 8 after the key to the end of the slice. A lookup
 *       and the value it finds are one slice: one cache miss fewer than a separate value slice. Changed in place
 *       only by an in-place update of the zero-copy API; a put, or an update that resizes the value, replaces the
 *       whole entry by a new slice.
 * </ul>
 * All fields are in the platform's byte order and, but for {@code uses}, written under the segment's lock
 * ({@link SegmentLayout}) or while the slice is still private.
 */
final class EntryLayout {
    static final int NEXT = 0;
    static final int STAMP = 8;
    static final int HASH = 16;
    static final int KEY_LENGTH = 20;
    static final int VALUE_LENGTH = 24;
    static final int USES = 28;
    static final int KEY = 32;
    static final int MAX_USES = 3;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle().withInvokeExactBehavior();

    private EntryLayout() {}

    /** Where the value starts in an entry whose key has {@code keyLength} bytes: 8-byte aligned. */
    static int valueOffset(int keyLength) {
        return (KEY + keyLength + 7) & ~7;
    }

    /** The payload length of an entry holding a key and a value of these lengths. */
    static int sizeFor(int keyLength, int valueLength) {
        return valueOffset(keyLength) + valueLength;
    }

    static long next(MemorySegment block, long entry) {
        return (long) LONG.get(block, entry + NEXT);
    }

    static void setNext(MemorySegment block, long entry, long next) {
        LONG.set(block, entry + NEXT, next);
    }

    /**
     * Release: the stores before it are ordered before it, by the compiler too, so that a process killed at any
     * instruction never leaves an entry linked before it is written, nor a chain cut.
     */
    static void setNextRelease(MemorySegment block, long entry, long next) {
        LONG.setRelease(block, entry + NEXT, next);
    }

    /** Where entry {@code entry}'s stamp is in its block: a {@link io.grove.internal.view.SliceStamp}. */
    static long stampAt(long entry) {
        return entry + STAMP;
    }

    /** Sets the stamp of an entry no other thread has seen yet to 0 (even). */
    static void resetStamp(MemorySegment block, long entry) {
        LONG.set(block, entry + STAMP, 0L);
    }

    static int hash(MemorySegment block, long entry) {
        return (int) INT.get(block, entry + HASH);
    }

    static int keyLength(MemorySegment block, long entry) {
        return (int) INT.get(block, entry + KEY_LENGTH);
    }

    static int valueLength(MemorySegment block, long entry) {
        return (int) INT.get(block, entry + VALUE_LENGTH);
    }

    static void setValueLength(MemorySegment block, long entry, int valueLength) {
        INT.set(block, entry + VALUE_LENGTH, valueLength);
    }

    static int uses(MemorySegment block, long entry) {
        return (int) INT.get(block, entry + USES);
    }

    static void setUses(MemorySegment block, long entry, int uses) {
        INT.set(block, entry + USES, uses);
    }

    /** Writes the fixed fields of a new entry and its key; the value is written separately. */
    static void initialize(MemorySegment block, long entry, int hash, MemorySegment key, int keyLength,
            int valueLength, int uses) {
        LONG.set(block, entry + NEXT, 0L);
        LONG.set(block, entry + STAMP, 0L);
        INT.set(block, entry + HASH, hash);
        INT.set(block, entry + KEY_LENGTH, keyLength);
        INT.set(block, entry + VALUE_LENGTH, valueLength);
        INT.set(block, entry + USES, uses);
        MemorySegment.copy(key, 0, block, entry + KEY, keyLength);
    }
}
