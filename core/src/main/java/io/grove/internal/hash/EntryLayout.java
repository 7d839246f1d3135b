package io.grove.internal.hash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The off-heap record of one hash-map entry, key and value included: the payload of one Nova slice. The only place
 * that computes offsets inside an entry.
 *
 * <pre>
 * byte offset 0              8                  16                20             24                 valueOffset     end
 *            +--------------+-------------------+-----------------+--------------+-----+------------+-------+
 *            | stamp (long) | identity (long)   | key word (int)  | check (int)  | key | padding    | value |
 *            +--------------+-------------------+-----------------+--------------+-----+------------+-------+
 * key word:   31  30 29                                   0
 *            +------+--------------------------------------+
 *            | uses |  key length in bytes (30 bits)       |
 *            +------+--------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li>stamp: a seqlock over the value's bytes ({@link io.grove.internal.view.SliceStamp}, whose protocol and
 *       memory ordering it follows). Even while nobody changes them; an in-place update of the zero-copy API (under
 *       the segment's lock) makes it odd before it writes the value and even again after. A lock-free reader
 *       reads it, waits while it is odd, reads the value and checks it is unchanged. Only readers of this entry's
 *       value wait for its in-place updates; the segment's version does not move for them. An update that resizes
 *       the value moves the whole entry to a new slice and leaves the old one's stamp odd: the old slice is
 *       deleted, which a waiting reader sees through Nova's validation. A put that replaces the value in place
 *       ({@link HashTable#replaceValue}) writes under it too.
 *   <li>identity: which entry of its segment this is: a number drawn from the segment's counter
 *       ({@link SegmentLayout}) when the entry is made and again when a put replaces its value in place, written
 *       with the stamp odd. Handles record it and fail once it changed: the entry they were made on was replaced,
 *       even though its slice lives on.
 *   <li>key length: the serialized key's length; a slice holds at most 2<sup>30</sup> bytes (the largest block
 *       size), so 30 bits hold it.
 *   <li>uses: the CLOCK counter of a bounded map, 0 to {@link #MAX_USES}: raised by reads (through Nova's write
 *       protocol, so a stale reader never writes into reused memory, with a compare-and-set of the whole key word,
 *       {@link #raiseUses}), lowered by the eviction sweep. Each writer stores the whole key word with the key
 *       length unchanged.
 *   <li>check: in a table in a file, a 32-bit hash of the key length, the key and the value ({@link #check}),
 *       written after them and before the entry is linked or its stamp made even again: an entry whose check does
 *       not match its bytes was torn (an operating-system crash wrote back some of its pages and not others).
 *       Not maintained (0) in a table in memory, where no crash can leave a torn entry behind.
 *   <li>key: the serialized key, immutable for the entry's lifetime. The hash is not stored: the slot that links
 *       the entry carries the bits a lookup compares ({@link SlotLayout}), and a repair or a check recomputes it.
 *   <li>value: the serialized value, from the first multiple of 8 after the key to the end of the slice: its
 *       length is the slice's payload length (in Nova's header, 16 bytes before the stamp, so mostly on the same
 *       cache line) minus {@link #valueOffset}. A lookup and the value it finds are one slice: one cache miss
 *       fewer than a separate value slice. Changed in place by an in-place update of the zero-copy API, and by a
 *       put of a value of the same size (a new identity; in a table in a file after a before-image); any other put,
 *       or an update that resizes the value, replaces the whole entry by a new slice.
 * </ul>
 * All fields are in the platform's byte order and, but for {@code uses}, written under the segment's lock
 * ({@link SegmentLayout}) or while the slice is still private.
 */
final class EntryLayout {
    static final int STAMP = 0;
    static final int IDENTITY = 8;
    static final int KEY_WORD = 16;
    static final int CHECK = 20;
    static final int KEY = 24;
    static final int MAX_USES = 3;
    private static final int KEY_LENGTH_MASK = (1 << 30) - 1;
    private static final int USES_SHIFT = 30;

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

    /** Where entry {@code entry}'s stamp is in its block: a {@link io.grove.internal.view.SliceStamp}. */
    static long stampAt(long entry) {
        return entry + STAMP;
    }

    /** Sets the stamp of an entry no other thread has seen yet to 0 (even). */
    static void resetStamp(MemorySegment block, long entry) {
        LONG.set(block, entry + STAMP, 0L);
    }

    /** Under the lock, with the stamp odd (or while the entry is private). */
    static void setIdentity(MemorySegment block, long entry, long identity) {
        LONG.set(block, entry + IDENTITY, identity);
    }

    static long identity(MemorySegment block, long entry) {
        return (long) LONG.get(block, entry + IDENTITY);
    }

    static int keyLength(MemorySegment block, long entry) {
        return (int) INT.get(block, entry + KEY_WORD) & KEY_LENGTH_MASK;
    }

    static int uses(MemorySegment block, long entry) {
        return (int) INT.get(block, entry + KEY_WORD) >>> USES_SHIFT;
    }

    static void setUses(MemorySegment block, long entry, int uses) {
        INT.set(block, entry + KEY_WORD, keyLength(block, entry) | uses << USES_SHIFT);
    }

    /**
     * Raises the use counter by one unless it is at {@link #MAX_USES}, by a compare-and-set of the key word, so
     * that the key length written is the one read (the cell may hold another entry by now); a lost race is not
     * retried. Whether it raised the counter.
     */
    static boolean raiseUses(MemorySegment block, long entry) {
        int word = (int) INT.getVolatile(block, entry + KEY_WORD);
        return word >>> USES_SHIFT < MAX_USES
                && (boolean) INT.compareAndSet(block, entry + KEY_WORD, word, word + (1 << USES_SHIFT));
    }

    static int storedCheck(MemorySegment block, long entry) {
        return (int) INT.get(block, entry + CHECK);
    }

    /**
     * The check of the entry at {@code entry} whose payload has {@code length} bytes: a hash of its key length and
     * of every byte from the key to the end of the value (the stamp and the use counter excluded, as they change
     * without the entry's content changing).
     */
    static int check(MemorySegment block, long entry, int length) {
        long h = KeyHash.of(block, entry + KEY, length - KEY) + keyLength(block, entry) * 0x9E3779B97F4A7C15L;
        return (int) (h ^ h >>> 32);
    }

    /** Stores the check of the entry's present bytes ({@link #check}). */
    static void seal(MemorySegment block, long entry, int length) {
        INT.set(block, entry + CHECK, check(block, entry, length));
    }

    /** Writes the fixed fields of a new entry and its key; the value is written separately. */
    static void initialize(MemorySegment block, long entry, long identity, MemorySegment key, int keyLength,
            int uses) {
        LONG.set(block, entry + STAMP, 0L);
        LONG.set(block, entry + IDENTITY, identity);
        INT.set(block, entry + KEY_WORD, keyLength | uses << USES_SHIFT);
        INT.set(block, entry + CHECK, 0);
        MemorySegment.copy(key, 0, block, entry + KEY, keyLength);
    }
}
