package io.grove.internal.hash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The off-heap record of one hash-map entry: the payload of a Nova slice. The only place that computes offsets
 * inside an entry.
 *
 * <pre>
 * byte offset 0                8                16           20           24           28
 *            +----------------+----------------+------------+------------+------------+---------------------+
 *            | next (ref)     | value (ref)    | hash (int) | keyLength  | uses (int) | key (keyLength)     |
 *            +----------------+----------------+------------+------------+------------+---------------------+
 * </pre>
 *
 * <ul>
 *   <li>next: the reference of the next entry in the bucket's chain, or 0.
 *   <li>value: the reference of the value's slice; replaced (and the old slice deleted) when a value is put or
 *       grows.
 *   <li>hash: the low 32 bits of the key's 64-bit hash ({@link KeyHash}); compared before the key bytes.
 *   <li>uses: the CLOCK counter of a bounded map, 0 to {@link #MAX_USES}: raised by reads (through Nova's
 *       write protocol, so a stale reader never writes into reused memory), lowered by the eviction sweep.
 *   <li>key: the serialized key, immutable for the entry's lifetime.
 * </ul>
 * All fields are in the platform's byte order and, but for {@code uses}, written under the segment's lock ({@link SegmentLayout}).
 */
final class EntryLayout {
    static final int NEXT = 0;
    static final int VALUE = 8;
    static final int HASH = 16;
    static final int KEY_LENGTH = 20;
    static final int USES = 24;
    static final int KEY = 28;
    static final int MAX_USES = 3;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle().withInvokeExactBehavior();

    private EntryLayout() {}

    static int sizeFor(int keyLength) {
        return KEY + keyLength;
    }

    static long next(MemorySegment block, long entry) {
        return (long) LONG.get(block, entry + NEXT);
    }

    static void setNext(MemorySegment block, long entry, long next) {
        LONG.set(block, entry + NEXT, next);
    }

    static long value(MemorySegment block, long entry) {
        return (long) LONG.get(block, entry + VALUE);
    }

    static void setValue(MemorySegment block, long entry, long value) {
        LONG.set(block, entry + VALUE, value);
    }

    static int hash(MemorySegment block, long entry) {
        return (int) INT.get(block, entry + HASH);
    }

    static int keyLength(MemorySegment block, long entry) {
        return (int) INT.get(block, entry + KEY_LENGTH);
    }

    static int uses(MemorySegment block, long entry) {
        return (int) INT.get(block, entry + USES);
    }

    static void setUses(MemorySegment block, long entry, int uses) {
        INT.set(block, entry + USES, uses);
    }

    static void initialize(MemorySegment block, long entry, long next, long value, int hash, int keyLength) {
        INT.set(block, entry + USES, 1);
        LONG.set(block, entry + NEXT, next);
        LONG.set(block, entry + VALUE, value);
        INT.set(block, entry + HASH, hash);
        INT.set(block, entry + KEY_LENGTH, keyLength);
    }
}
