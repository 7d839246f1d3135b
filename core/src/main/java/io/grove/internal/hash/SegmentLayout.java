package io.grove.internal.hash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The off-heap record of one segment of the hash map: its writer lock, its seqlock version, its entry count and
 * its slot array ({@link SlotLayout}) and tag array ({@link TagLayout}). The only place that computes offsets inside
 * a segment record.
 *
 * <pre>
 * segment record (payload of a slice, 112 bytes):
 * byte offset 0              4              8                   16                  24                32
 *            +--------------+--------------+-------------------+-------------------+-----------------+
 *            | lock (int)   | log2 slots   | version (long)    | count (long)      | slots (ref)     |
 *            +--------------+--------------+-------------------+-------------------+-----------------+
 *         32 | hand (long)                 | bytes (long)      | owner (long)      | spare entries   |
 *            +-----------------------------+-------------------+-------------------+-----------------+
 *         64 | spare bytes (long)          | journal (ref)     | tags (ref)        | identities      |
 *            +-----------------------------+-------------------+-------------------+-----------------+
 *         96 | adding (ref)                | removing (ref)    |
 *            +-----------------------------+-------------------+
 * </pre>
 *
 * <ul>
 *   <li>lock: 0 free; while held, its holder's process record in the file's process table plus one (1 in a pool
 *       in memory), so that a process waiting for it knows whose it is; -1 closed (the map was closed, on a pool
 *       that stays open or by the last process to close a file: the segment is locked for good and, on a pool that
 *       stays open, its version stays odd, so every operation that still reaches it fails). Writers take it with a
 *       CAS (acquire) and drop it with {@code setRelease}. It lives off heap so that a file-backed table is
 *       locked across processes.
 *   <li>version: a seqlock for lock-free readers. Even while the segment is stable; a writer holding the lock makes
 *       it odd ({@link #beginMutation}: an opaque store followed by a store-store fence, so no store of the
 *       mutation becomes visible before it) before it changes any slot or the slot array, and even
 *       again ({@link #endMutation}, release) after. A reader reads it (acquire), reads what it needs, issues a
 *       load-load fence and checks that it is unchanged; so a reader that saw any store of a mutation sees the
 *       odd or the later version and retries.
 *   <li>log2 slots: the slot array holds {@code 1 << log2 slots} slots, the tag array as many tags. Changed together
 *       with {@code slots} and {@code tags}, inside a mutation.
 *   <li>count: the number of entries, changed only under the lock; {@code size()} adds the counts of all segments.
 *   <li>slots: the reference of the slot array slice; replaced by one twice as large when the segment grows.
 *   <li>tags: the reference of the tag array slice, replaced with the slot array.
 *   <li>identities: the next entry identity of the segment ({@link EntryLayout}); taken, under the lock, by every
 *       new entry and every value a put replaces in place.
 *   <li>hand: the slot the CLOCK eviction sweep of a bounded map looks at next.
 *   <li>bytes: the payload bytes of the segment's entries (fields, key and value: {@link EntryLayout#sizeFor}), for
 *       a map bounded in bytes. Changed only under the lock.
 *   <li>owner: while the lock is held, the holder's lock value in the high 16 bits and the low 48 bits of its
 *       thread's {@link Thread#threadId() id} ({@link #ownerWord}: thread ids repeat across processes), 0 while it
 *       is free; written by the holder only, so a thread that reads its own word there holds the lock. A thread
 *       about to wait for the lock,
 *       or for something only the holder ends, checks it first: a user function that runs under the lock and
 *       calls the map again would otherwise wait for itself for ever.
 *   <li>spare entries, spare bytes: in a bounded map, the part of the bound ({@link Budget}) the segment holds
 *       but does not use (resource {@link Budget#ENTRIES}, {@link Budget#BYTES}: offset {@code 56 + 8 * r});
 *       changed atomically, by the holder of the lock and by other segments' writers that take it.
 *   <li>journal: in a map in a file, while an in-place update of an entry of the segment runs, the
 *       {@link BeforeImage} of its value, else 0: what a reopen after a killed process puts back.
 *   <li>adding, removing: in a map in a file, the intents of the lock's holder, else 0, so that the repair of a
 *       segment whose holder was killed finds the slices the holder's operation had in hand, which nothing else in
 *       the file names ({@code TableRecovery}). Adding names the private slice of an entry being made for the
 *       segment (by a put or a move out of a cell), from its allocation until it is linked or just before it is
 *       deleted; removing names an entry slice being unlinked, from before its unlinking until just before its
 *       deletion. Each is cleared by its holder before the slice leaves its hands (a private slice deleted, a slice
 *       handed to reclamation, the lock released), so while set it names a slice that is live and that nothing but
 *       the holder can free. Plain stores: only a repair reads them, after the holder ended and its lock was taken
 *       over.
 * </ul>
 */
final class SegmentLayout {
    static final int SIZE = 112;
    private static final int LOCK = 0;
    private static final int CLOSED = -1;
    private static final int SLOT_BITS = 4;
    private static final int VERSION = 8;
    private static final int COUNT = 16;
    private static final int SLOTS = 24;
    private static final int HAND = 32;
    private static final int BYTES = 40;
    private static final int OWNER = 48;
    private static final int OWNER_THREAD_BITS = 48;
    private static final long OWNER_THREAD_MASK = (1L << OWNER_THREAD_BITS) - 1;
    private static final int SPARE = 56;
    private static final int JOURNAL = 72;
    private static final int TAGS = 80;
    private static final int IDENTITIES = 88;
    private static final int ADDING = 96;
    private static final int REMOVING = 104;

    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle().withInvokeExactBehavior();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();

    private SegmentLayout() {}

    /** Takes the lock for {@code holder} (a process record plus one) if it is free. */
    static boolean tryLock(MemorySegment block, long segment, int holder) {
        return (int) INT.getVolatile(block, segment + LOCK) == 0
                && INT.compareAndSet(block, segment + LOCK, 0, holder);
    }

    /**
     * Takes for thread {@code threadId} of {@code holder} the lock that {@code from}, the holder value of a process
     * that ended holding it, still holds; {@code false}, changing nothing, if it does not. Only the thread that took
     * the ended process's record over calls it for that record, so the lock names {@code from} until its
     * compare-and-set, which therefore succeeds.
     */
    static boolean takeOver(MemorySegment block, long segment, int from, int holder, long threadId) {
        if ((int) INT.getVolatile(block, segment + LOCK) != from) {
            return false;
        }
        setOwner(block, segment, holder, threadId);
        return INT.compareAndSet(block, segment + LOCK, from, holder);
    }

    /**
     * Gives a lock that {@code holder} took over ({@link #takeOver}) back to {@code to}, the holder value of the
     * process that ended holding it, for the recovery of the whole file.
     */
    static void giveBack(MemorySegment block, long segment, int holder, int to) {
        clearOwner(block, segment);
        INT.compareAndSet(block, segment + LOCK, holder, to);
    }

    /** Whether the lock is held now (not free, not closed), for a check of a table at rest. */
    static boolean isLocked(MemorySegment block, long segment) {
        return (int) INT.getAcquire(block, segment + LOCK) > 0;
    }

    /**
     * Whether the calling thread, {@code threadId} of the process whose lock value is {@code holder}, holds the lock:
     * whether the owner word is its own ({@link #ownerWord}), which only it writes there and clears before it gives
     * the lock back. The lock word is not read: a thread reading it and then the owner word could see its process's
     * lock, held by another of its threads, and then the owner word of a thread of another process with the same id,
     * which took the lock in between.
     */
    static boolean heldBy(MemorySegment block, long segment, int holder, long threadId) {
        return (long) LONG.getOpaque(block, segment + OWNER) == ownerWord(holder, threadId);
    }

    /**
     * The owner word of thread {@code threadId} (its low 48 bits) of the process whose lock value is {@code holder}:
     * thread ids repeat across processes (each JVM numbers its threads from 1), this word does not.
     */
    static long ownerWord(int holder, long threadId) {
        return ((long) holder << OWNER_THREAD_BITS) | (threadId & OWNER_THREAD_MASK);
    }

    /** The owner word, 0 while the lock is free. */
    static long owner(MemorySegment block, long segment) {
        return (long) LONG.getOpaque(block, segment + OWNER);
    }

    /** An owner word ({@link #ownerWord}) as text, for a report. */
    static String describeOwner(long word) {
        return "thread " + (word & OWNER_THREAD_MASK) + " of lock value " + (word >>> OWNER_THREAD_BITS);
    }

    /** The lock's value: 0 free, -1 closed, else its holder's process record plus one. */
    static int lockValue(MemorySegment block, long segment) {
        return (int) INT.getAcquire(block, segment + LOCK);
    }

    /** By the lock's holder, after taking it. */
    static void setOwner(MemorySegment block, long segment, int holder, long threadId) {
        LONG.setOpaque(block, segment + OWNER, ownerWord(holder, threadId));
    }

    /** By the lock's holder, before giving it back. */
    static void clearOwner(MemorySegment block, long segment) {
        LONG.setOpaque(block, segment + OWNER, 0L);
    }

    static void unlock(MemorySegment block, long segment) {
        INT.setRelease(block, segment + LOCK, 0);
    }

    /** By the holder of the lock: locks the segment for good (see {@link #isClosed}). */
    static void markClosed(MemorySegment block, long segment) {
        INT.setRelease(block, segment + LOCK, CLOSED);
    }

    /**
     * Whether the segment's map was closed: its lock is not free again until a map takes the table up again
     * ({@code HashTable#reopen}); a map on a shared pool also leaves the version odd ({@code HashTable#close}).
     */
    static boolean isClosed(MemorySegment block, long segment) {
        return (int) INT.getAcquire(block, segment + LOCK) == CLOSED;
    }

    static long versionAcquire(MemorySegment block, long segment) {
        return (long) LONG.getAcquire(block, segment + VERSION);
    }

    /** Under the lock: makes the version odd, then a store-store fence keeps the mutation's stores after it. */
    static void beginMutation(MemorySegment block, long segment) {
        long v = (long) LONG.get(block, segment + VERSION);
        LONG.setOpaque(block, segment + VERSION, v + 1);
        VarHandle.storeStoreFence();
    }

    /** Under the lock: makes the version even again, releasing the mutation's stores to readers. */
    static void endMutation(MemorySegment block, long segment) {
        long v = (long) LONG.get(block, segment + VERSION);
        LONG.setRelease(block, segment + VERSION, v + 1);
    }

    /** Where segment record {@code segment}'s spare budget of {@code resource} is in its block. */
    static long spareAt(long segment, int resource) {
        return segment + SPARE + 8L * resource;
    }

    static long count(MemorySegment block, long segment) {
        return (long) LONG.getAcquire(block, segment + COUNT);
    }

    static void setCount(MemorySegment block, long segment, long count) {
        LONG.setRelease(block, segment + COUNT, count);
    }

    static long slots(MemorySegment block, long segment) {
        return (long) LONG.get(block, segment + SLOTS);
    }

    /** Release, so that a killed process leaves the growth fields in the order they were written. */
    static void setSlots(MemorySegment block, long segment, long slotsRef) {
        LONG.setRelease(block, segment + SLOTS, slotsRef);
    }

    static long tags(MemorySegment block, long segment) {
        return (long) LONG.get(block, segment + TAGS);
    }

    /** Release, as {@link #setSlots}. */
    static void setTags(MemorySegment block, long segment, long tagsRef) {
        LONG.setRelease(block, segment + TAGS, tagsRef);
    }

    static int slotBits(MemorySegment block, long segment) {
        return (int) INT.get(block, segment + SLOT_BITS);
    }

    /** Release, as {@link #setSlots}. */
    static void setSlotBits(MemorySegment block, long segment, int bits) {
        INT.setRelease(block, segment + SLOT_BITS, bits);
    }

    static void initialize(MemorySegment block, long segment, long slotsRef, long tagsRef, int slotBits) {
        INT.set(block, segment + LOCK, 0);
        INT.set(block, segment + SLOT_BITS, slotBits);
        LONG.set(block, segment + VERSION, 0L);
        LONG.set(block, segment + COUNT, 0L);
        LONG.set(block, segment + SLOTS, slotsRef);
        LONG.set(block, segment + HAND, 0L);
        LONG.set(block, segment + BYTES, 0L);
        LONG.set(block, segment + OWNER, 0L);
        LONG.set(block, segment + SPARE, 0L);
        LONG.set(block, segment + SPARE + 8, 0L);
        LONG.set(block, segment + JOURNAL, 0L);
        LONG.set(block, segment + TAGS, tagsRef);
        LONG.set(block, segment + IDENTITIES, 1L);
        LONG.set(block, segment + ADDING, 0L);
        LONG.set(block, segment + REMOVING, 0L);
    }

    /** Under the lock: the next entry identity, which this call takes. */
    static long takeIdentity(MemorySegment block, long segment) {
        long identity = (long) LONG.get(block, segment + IDENTITIES);
        LONG.set(block, segment + IDENTITIES, identity + 1);
        return identity;
    }

    static long hand(MemorySegment block, long segment) {
        return (long) LONG.get(block, segment + HAND);
    }

    static void setHand(MemorySegment block, long segment, long hand) {
        LONG.set(block, segment + HAND, hand);
    }

    static long bytes(MemorySegment block, long segment) {
        return (long) LONG.get(block, segment + BYTES);
    }

    static void setBytes(MemorySegment block, long segment, long bytes) {
        LONG.set(block, segment + BYTES, bytes);
    }

    static long journal(MemorySegment block, long segment) {
        return (long) LONG.get(block, segment + JOURNAL);
    }

    /** Release: the image is written before it is recorded, and the value restored before it is forgotten. */
    static void setJournal(MemorySegment block, long segment, long imageRef) {
        LONG.setRelease(block, segment + JOURNAL, imageRef);
    }

    /** The private entry slice the lock's holder is making for the segment, or 0. */
    static long adding(MemorySegment block, long segment) {
        return (long) LONG.get(block, segment + ADDING);
    }

    /** Under the lock: names the private entry slice being made for the segment, or 0 once it is not. */
    static void setAdding(MemorySegment block, long segment, long ref) {
        LONG.set(block, segment + ADDING, ref);
    }

    /** The entry slice the lock's holder is unlinking from the segment and has not deleted yet, or 0. */
    static long removing(MemorySegment block, long segment) {
        return (long) LONG.get(block, segment + REMOVING);
    }

    /** Under the lock: names the entry slice being unlinked, or 0 once it is deleted. */
    static void setRemoving(MemorySegment block, long segment, long ref) {
        LONG.set(block, segment + REMOVING, ref);
    }

    /** Forgets a lock left by a process that died holding it, once its repair is done ({@code TableRecovery}). */
    static void forceUnlock(MemorySegment block, long segment) {
        clearOwner(block, segment);
        INT.setRelease(block, segment + LOCK, 0);
    }

    /** The version, read plainly (a repair at rest). */
    static long version(MemorySegment block, long segment) {
        return (long) LONG.get(block, segment + VERSION);
    }

    static void setVersion(MemorySegment block, long segment, long version) {
        LONG.setRelease(block, segment + VERSION, version);
    }

    static void setSpare(MemorySegment block, long segment, int resource, long spare) {
        LONG.set(block, spareAt(segment, resource), spare);
    }
}
