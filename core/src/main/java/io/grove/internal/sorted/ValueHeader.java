package io.grove.internal.sorted;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The off-heap record of an ordered map's value: the payload of a Nova slice, a header word (Oak §3.3: the value's
 * lock and deleted bit) followed by the serialized value. The only place that computes offsets inside a value.
 *
 * <pre>
 * byte offset 0                                                                8
 *            +---+---+---+---+--------------------------------------------------+--------------------------------+
 *            | D | A | C | S | sequence (60 bits; odd while write-locked)       | value bytes (slice length - 8) |
 *            +---+---+---+---+--------------------------------------------------+--------------------------------+
 *             63  62  61  60
 *
 * claimed by a batch:
 *            +---+---+---+---+------------------------------------------+---+
 *            | 0 | A | 1 | 0 | batch id (59 bits)                       | 1 |
 *            +---+---+---+---+------------------------------------------+---+
 * </pre>
 *
 * <p>In a map that takes snapshots ({@link Versions}) a value also records when it was written and the value it
 * replaced, so its bytes start at {@link #VERSIONED}:
 *
 * <pre>
 * byte offset 0        8                    16                            24
 *            | header | version (time, long) | previous version (reference) | value bytes
 * </pre>
 *
 * <ul>
 *   <li>D (deleted): set once, by the thread holding the lock, when the value leaves its entry (removed, replaced,
 *       or moved by a resize); the slice is deleted from the pool right after. A thread that finds D re-reads the
 *       entry.
 *   <li>A (absent): the value is a placeholder that {@code compute} on an absent key installs, locked, so that its
 *       function runs once; readers treat a placeholder as no value.
 *   <li>sequence: a seqlock. A writer takes the lock by a CAS from an even sequence to the next (odd) one and
 *       releases it by a release store of the following even one; an optimistic reader reads the word, the bytes,
 *       then the word again (after a load-load fence) and accepts the bytes if both reads are the same even
 *       sequence without D. (2^60 writes of one value would carry into S: centuries at any write rate.)
 *   <li>C (claimed): an atomic batch ({@link BatchUpdates}) holds the value, which it replaces or removes if it
 *       commits. The batch takes the header from an unlocked one by a CAS and keeps that header to write it back
 *       if it gives the claim up. A claimed header is odd, so code that knows nothing of batches treats it as
 *       locked; it carries the batch's id ({@link BatchTable}), by which readers learn whether the batch committed.
 *       The value's bytes never change while it is claimed. A placeholder keeps A when claimed.
 *   <li>S (stamping): in a map that takes snapshots, set by the lock holder of a value it is about to take out of
 *       its entry, before it reads the time of what replaces it ({@link Versions}): from then on the change counts
 *       as made, and a reader that finds S waits until the value has left its entry ({@link #isStamping}). Cleared
 *       by every write of the header that follows (unlock, deletion).
 * </ul>
 * The word is in the platform's byte order; accesses are through a {@code static final} VarHandle.
 */
final class ValueHeader {
    static final int HEADER = 8;
    /** Where the bytes of a value of a map that takes snapshots start: after the header, version and previous. */
    static final int VERSIONED = 24;
    static final int VERSION = 8;
    static final int PREVIOUS = 16;
    /**
     * Where the header is in the value's slice: the header is the value's {@link io.grove.internal.view.SliceStamp}
     * (odd while locked, deleted bit where the stamp has its removed bit), so handles read under it.
     */
    static final int STAMP = 0;
    static final long DELETED = 1L << 63;
    static final long ABSENT = 1L << 62;
    static final long CLAIMED = 1L << 61;
    static final long STAMPING = 1L << 60;
    private static final long FLAGS = DELETED | ABSENT | CLAIMED | STAMPING;
    /** The header of a value that is live, unlocked and was never written in place. */
    static final long FRESH = 0;
    /** The header of a placeholder nobody holds: a batch that gave up its claim on a key it inserts leaves one. */
    static final long UNLOCKED_PLACEHOLDER = ABSENT;
    /** The header of a placeholder as {@code compute} installs it: absent and locked. */
    static final long LOCKED_PLACEHOLDER = ABSENT | 1;

    private static final VarHandle LONG =
            java.lang.foreign.ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();

    private ValueHeader() {}

    /** Writes the header of a slice no other thread has seen yet. */
    static void initialize(MemorySegment block, long value, long header) {
        LONG.set(block, value, header);
    }

    static long headerAcquire(MemorySegment block, long value) {
        return (long) LONG.getAcquire(block, value);
    }

    /** Whether {@code header} is a live value nobody holds: not deleted, not locked. */
    static boolean isUnlocked(long header) {
        return (header & (DELETED | 1)) == 0;
    }

    static boolean isDeleted(long header) {
        return (header & DELETED) != 0;
    }

    static boolean isPlaceholder(long header) {
        return (header & ABSENT) != 0;
    }

    static boolean isClaimed(long header) {
        return (header & CLAIMED) != 0;
    }

    /** Whether the lock holder of a value with {@code header} is taking it out of its entry (see S above). */
    static boolean isStamping(long header) {
        return (header & STAMPING) != 0;
    }

    /** The header by which batch {@code batchId} claims a value whose header was {@code unlocked}. */
    static long claimedBy(long batchId, long unlocked) {
        return (unlocked & ABSENT) | CLAIMED | (batchId << 1) | 1;
    }

    /** The id of the batch that claims a value with header {@code claimed}. */
    static long batchOf(long claimed) {
        return (claimed & ~FLAGS) >>> 1;
    }

    /** Sets the header from {@code expected} to {@code header}; whether it was {@code expected}. */
    static boolean compareAndSet(MemorySegment block, long value, long expected, long header) {
        return LONG.compareAndSet(block, value, expected, header);
    }

    /** Writes back the header a batch claimed the value under: gives the claim up. */
    static void release(MemorySegment block, long value, long unlocked) {
        LONG.setRelease(block, value, unlocked);
    }

    /**
     * Marks a value deleted, whose header was {@code header} (claimed by a batch, or locked by this thread): it left
     * its entry. A placeholder stays one: as an older version (a tombstone) it still reads as absent.
     */
    static void markDeleted(MemorySegment block, long value, long header) {
        LONG.setRelease(block, value, DELETED | (header & ABSENT));
    }

    /**
     * Sets S on a value this thread holds locked as {@code locked}, and orders the store before the reads that
     * follow (the clock's above all: a volatile store).
     */
    static void markStamping(MemorySegment block, long value, long locked) {
        LONG.setVolatile(block, value, locked | STAMPING);
    }

    /** Locks the value if its header is still {@code unlocked}; the locked header, or -1 if the CAS failed. */
    static long tryLock(MemorySegment block, long value, long unlocked) {
        long locked = unlocked + 1;
        return LONG.compareAndSet(block, value, unlocked, locked) ? locked : -1;
    }

    /** Releases the lock taken as {@code locked}: the next even sequence, publishing the writes made under it. */
    static void unlock(MemorySegment block, long value, long locked) {
        LONG.setRelease(block, value, (locked + 1) & ~ABSENT);
    }

    /** Releases the lock taken as {@code locked} and marks the value deleted. */
    static void unlockDeleted(MemorySegment block, long value, long locked) {
        LONG.setRelease(block, value, ((locked + 1) & ~FLAGS) | DELETED);
    }

    /** Whether an optimistic read that began at {@code header} saw a stable value: the header did not change. */
    static boolean isStable(MemorySegment block, long value, long header) {
        VarHandle.loadLoadFence();
        return (long) LONG.getAcquire(block, value) == header;
    }
}
