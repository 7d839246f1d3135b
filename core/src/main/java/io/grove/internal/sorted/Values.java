package io.grove.internal.sorted;

import io.grove.internal.memory.Pool;
import io.grove.internal.sync.Backoff;
import io.grove.internal.sync.CallRegistry;
import io.grove.internal.view.SegmentView;
import io.grove.internal.view.SliceHandle;
import io.grove.internal.view.SliceWriter;
import io.grove.serial.Serializer;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ConcurrentModificationException;

/**
 * The value slices of an ordered map ({@link ValueHeader} then the serialized value): writing, optimistic reads,
 * the value lock, and retirement.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Every change of a value's bytes or of the entry that refers to it happens under the value's lock, taken by
 * {@link #lock}: Nova's write protocol ({@code beginWrite}) protects the CAS on the header from a slice reused in
 * the meantime, and once the lock is held only its holder can delete the slice, so the protection ends with the
 * CAS. A holder that takes the value out of its entry marks it deleted while unlocking ({@link #retire}) and then
 * deletes the slice; waiters see the mark and re-read the entry.
 *
 * <p>An optimistic {@link #read} reads the header, the bytes and the header again, then checks the slice's Nova
 * version: the bytes are accepted only if neither changed (seqlock). Its linearization point is the first header
 * read.
 *
 * <p>A lock holder may be a user function that called the map on its own key: {@link #read} and {@link #lock}
 * would then wait for their own thread, so once they have spun a while they look for the locked value among the
 * calling thread's running functions ({@link CallRegistry}) and throw "Recursive update" if it is there.
 */
final class Values<V> implements SliceHandle.WriterCheck {
    /** Returned by {@link #read} when the value left its entry: re-read the entry. */
    static final Object RETRY = new Object();
    /** What {@link #presentLength} returns for a placeholder: the key is absent. */
    static final int ABSENT = -1;
    /** What {@link #presentLength} returns when the value left its entry: re-read the entry. */
    static final int GONE = -2;
    /** What {@link #presentLength} returns when a committed batch replaced or removed the value. */
    static final int REPLACED = -3;
    /**
     * What {@link #lock} returns when a pending batch claims the value, and {@link #claim} when another thread holds
     * it: wait (unpublished) and try again.
     */
    static final long WAIT = -2;
    /** What {@link #lock} returns when a committed batch claims the value: install the batch's value, try again. */
    static final long CLAIMED_COMMITTED = -3;
    /** What {@link #valueUnderClaim} returns when the claiming batch has ended. */
    private static final long CLAIM_ENDED = -1;

    private final Pool pool;
    final Serializer<V> serializer;
    /** A closed map's entries keep referring to values its close deleted: a value found gone then throws. */
    private final Closing closing;
    /** The operations running a user function, with the value each holds locked meanwhile. */
    private final CallRegistry calls;
    /** The batches that claim values now. */
    final BatchTable batches;
    /** The older versions of a map that takes snapshots, or {@code null}. */
    final Versions versions;
    /** Where a value's bytes start in its slice: after the header, and the version words if versioned. */
    final int headerSize;

    Values(Pool pool, Serializer<V> serializer, Closing closing, CallRegistry calls, BatchTable batches,
            boolean versioned) {
        this.pool = pool;
        this.serializer = serializer;
        this.closing = closing;
        this.calls = calls;
        this.batches = batches;
        this.versions = versioned ? new Versions(pool) : null;
        this.headerSize = versioned ? ValueHeader.VERSIONED : ValueHeader.HEADER;
    }

    /** A new private value slice holding {@code value}, header fresh. */
    long write(V value, SegmentView view) {
        int size = SliceWriter.sizeOf(serializer, value);
        long ref = allocate(size);
        SliceWriter.writeOrDelete(pool, serializer, value, size, view, ref, pool.payloadOffset(ref) + headerSize);
        return ref;
    }

    /**
     * A new private value slice of {@code size} bytes, header fresh, bytes not initialized; if versioned, its time
     * {@link Versions#PENDING} and no previous version.
     */
    long allocate(int size) {
        if (size > pool.maxSliceSize() - headerSize) {
            throw new IllegalArgumentException("a value of " + size + " bytes is larger than the largest value of "
                    + "an ordered map, " + (pool.maxSliceSize() - headerSize) + " bytes: the pool's largest "
                    + "slice (" + pool.maxSliceSize() + " bytes with a block size of " + pool.blockSize()
                    + ") less the " + headerSize + "-byte value header");
        }
        return slice(size, ValueHeader.FRESH, Versions.PENDING);
    }

    private long slice(int size, long header, long time) {
        long ref = pool.allocate(size + headerSize);
        MemorySegment block = pool.segment(ref);
        long at = pool.payloadOffset(ref);
        ValueHeader.initialize(block, at, header);
        if (versions != null) {
            Versions.initialize(block, at, time);
        }
        return ref;
    }

    /**
     * A new private placeholder (a value slice with no bytes, for an absent key) with {@code header}: locked by
     * {@code compute} ({@link ValueHeader#LOCKED_PLACEHOLDER}), held by nobody
     * ({@link ValueHeader#UNLOCKED_PLACEHOLDER}, see {@link ChunkMap#ensurePlaceholder}), or claimed by a batch.
     */
    long placeholder(long header) {
        return slice(0, header, 0); // (time 0: absent for every snapshot, unless it becomes a tombstone)
    }

    /**
     * Reads value {@code ref} optimistically, waiting while it is locked: the value, {@code null} if it is a
     * placeholder (the key is absent) or a committed batch removed it, or {@link #RETRY} if the value left its
     * entry. A value a batch claims reads as it is while the batch is pending, and as the batch's value once the
     * batch committed; in a map that takes snapshots, a read waits while the batch stamps its values
     * ({@link #valueUnderClaim}).
     */
    Object read(long ref, SegmentView view) {
        MemorySegment block = pool.segment(ref);
        long at = pool.payloadOffset(ref);
        for (int attempt = 0; ; attempt++) {
            long header = ValueHeader.headerAcquire(block, at);
            if (ValueHeader.isDeleted(header) || !pool.isLive(ref)) {
                closing.check();
                return RETRY; // (a header read from a slice reused since can show any bits: check first)
            }
            if (ValueHeader.isClaimed(header)) {
                long now = valueUnderClaim(ref, header);
                if (now == CLAIM_ENDED) {
                    continue;
                }
                if (now != ref) {
                    return now == 0 ? null : read(now, view);
                }
                // pending: the claimed value stands, and its bytes do not change while it is claimed
            } else if (!ValueHeader.isUnlocked(header)) {
                awaitUnlock(ref, attempt);
                continue;
            }
            if (ValueHeader.isPlaceholder(header)) {
                return null;
            }
            if (versions != null && versions.settle(ref) == Versions.PENDING) {
                continue; // (gone: the next round sees it)
            }
            V value;
            try {
                value = deserialize(ref, block, at, view);
            } catch (ConcurrentModificationException stale) {
                closing.check();
                return RETRY;
            } catch (RuntimeException | Error e) { // what a deserializer may throw on moving bytes (Serializer)
                if (ValueHeader.isStable(block, at, header) && pool.isLive(ref)) {
                    throw e; // the serializer failed on bytes that did not change
                }
                continue;
            }
            if (ValueHeader.isStable(block, at, header) && pool.isLive(ref)) {
                return value;
            }
        }
    }

    /**
     * The value that stands for value {@code ref}, whose header was read as {@code claimed} by a batch: {@code ref}
     * itself while the batch is pending (or aborted), the batch's replacement once it committed (0: the key is
     * removed), or {@link #CLAIM_ENDED} if the batch has ended since the header was read (read it again). Waits while
     * the batch is {@link Batch#COMMITTING}: its commit time may be at or before a snapshot's time already, and a
     * read that follows that snapshot's open must then see the batch, as the snapshot does ({@link Batch}).
     */
    private long valueUnderClaim(long ref, long claimed) {
        Batch batch = batches.claimant(claimed);
        if (batch == null) {
            return CLAIM_ENDED;
        }
        int status = awaitCommitted(batch);
        return status == Batch.COMMITTED ? batch.replacementOf(ref) : ref;
    }

    /** The status of {@code batch} once it is not {@link Batch#COMMITTING}. */
    private static int awaitCommitted(Batch batch) {
        int status;
        for (int attempt = 0; (status = batch.status()) == Batch.COMMITTING; attempt++) {
            Backoff.pause(attempt);
        }
        return status;
    }

    /**
     * The payload length of value {@code ref}'s slice, whose payload is at {@code at} of {@code block}, read live as
     * entry {@code e} of {@code c} says; else -1.
     */
    private int liveLengthIn(Chunk c, int e, long ref, MemorySegment block, long at) {
        int length = pool.lengthUnchecked(block, at);
        VarHandle.loadLoadFence();
        return EntryOrigin.VALUE.holds(c, e, ref) ? length : pool.liveLength(ref);
    }

    /**
     * The value present in an entry that holds value {@code ref}: {@code ref}, or the replacement a committed batch
     * gives it; 0 if the key is absent (a placeholder, or a batch's removal); -1 if the value left the entry
     * (re-read the entry).
     */
    long presentValue(long ref) {
        while (true) {
            int length = presentLength(ref);
            if (length == GONE) {
                return -1;
            }
            if (length == ABSENT) {
                return 0;
            }
            if (length != REPLACED) {
                return ref;
            }
            ref = replacementOf(ref);
            if (ref <= 0) {
                return ref;
            }
        }
    }

    /**
     * Whether value {@code ref} is present, from one reading of each header: the payload length of its slice (value
     * header included) if it is; {@link #ABSENT} for a placeholder (also one a pending batch claims to insert
     * its key); {@link #REPLACED} if a committed batch replaced or removed it ({@link #replacementOf}); or
     * {@link #GONE} if it left its entry. Waits while its lock holder is taking it out of its entry
     * ({@link ValueHeader#isStamping}): the replacement's time is read, so a snapshot opened since may read the
     * replacement already, and this read, which may follow that open, must not report the value.
     */
    int presentLength(long ref) {
        return presentLength(ref, pool.segment(ref), pool.payloadOffset(ref), null, Chunk.NONE);
    }

    /**
     * As {@link #presentLength(long, MemorySegment, long, Chunk, int)} for a value with nothing pending on it, which
     * the entry vouches for: its length if it is neither removed, nor being stamped, nor claimed by a batch, nor a
     * placeholder, and the map keeps no versions; otherwise -1, and {@code presentLength} tells. One reading of the
     * header and the slice's length, no loop and no wait: the common case of a scan, kept small.
     */
    int plainPresentLength(long ref, MemorySegment block, long at, Chunk c, int e) {
        long header = ValueHeader.headerAcquire(block, at);
        int length = pool.lengthUnchecked(block, at);
        VarHandle.loadLoadFence();
        if (versions != null || ValueHeader.isDeleted(header) || ValueHeader.isStamping(header)
                || ValueHeader.isClaimed(header) || ValueHeader.isPlaceholder(header)
                || !EntryOrigin.VALUE.holds(c, e, ref)) {
            return -1;
        }
        return length;
    }

    /**
     * As {@link #presentLength(long)} for the value {@code ref}, whose payload is at {@code at} of {@code block}
     * ({@link Pool#segment}, {@link Pool#payloadOffset}), that entry {@code e} of chunk {@code c} held: the entry
     * vouches for the slice after its headers were read ({@link EntryOrigin}), which spares the reading of the slice's
     * own liveness unless the entry changed or the chunk was replaced meanwhile.
     */
    int presentLength(long ref, MemorySegment block, long at, Chunk c, int e) {
        long header;
        int length;
        for (int attempt = 0; ; attempt++) {
            header = ValueHeader.headerAcquire(block, at);
            length = c == null ? pool.liveLength(ref) : liveLengthIn(c, e, ref, block, at);
            if (ValueHeader.isDeleted(header) || length < 0) {
                closing.check();
                return GONE;
            }
            if (!ValueHeader.isStamping(header)) {
                break;
            }
            Backoff.pause(attempt);
        }
        if (ValueHeader.isClaimed(header)) {
            long now = valueUnderClaim(ref, header);
            if (now == CLAIM_ENDED) {
                return GONE; // the entry holds the batch's value now, or this one unclaimed: read it again
            }
            if (now != ref) {
                return REPLACED;
            }
        }
        if (ValueHeader.isPlaceholder(header)) {
            return ABSENT;
        }
        if (versions != null && versions.settle(ref) == Versions.PENDING) {
            return GONE;
        }
        return length;
    }

    /**
     * The version of the value of an entry holding {@code head} that {@code snapshot} reads ({@link Versions}): its
     * reference, 0 if the key was absent at the snapshot's time, or -1 if {@code head} left its entry (re-read the
     * entry). Waits while {@code head} is locked by a writer (its time is not known yet) or a batch that claims it
     * is committing (stamping its values); never for anything else. Throws {@link IllegalStateException} if the
     * snapshot was closed and its versions freed.
     */
    long versionAt(long head, Snapshot snapshot) {
        long time = snapshot.time;
        long ref = head;
        boolean inEntry = true; // whether ref stands for the entry's value (head, or the batch value replacing it)
        for (int attempt = 0; ; attempt++) {
            if (ref == 0) {
                return 0;
            }
            MemorySegment block = pool.segment(ref);
            long at = pool.payloadOffset(ref);
            long header = ValueHeader.headerAcquire(block, at);
            if (!pool.isLive(ref) || (inEntry && ValueHeader.isDeleted(header))) {
                snapshot.check();
                return -1;
            }
            if (ValueHeader.isClaimed(header)) {
                Batch batch = batches.claimant(header);
                if (batch == null) {
                    continue; // the claim ended: read the header again
                }
                if (awaitCommitted(batch) == Batch.COMMITTED && batch.time() <= time) {
                    ref = batch.replacementOf(ref);
                    continue;
                }
                // pending, aborted, or committed after the snapshot: the claimed value stands
            } else if (inEntry && !ValueHeader.isUnlocked(header)) {
                awaitUnlock(ref, attempt);
                continue;
            }
            long version = versions.settle(ref);
            long previous = versions.previous(ref);
            if (version == Versions.PENDING || !ValueHeader.isStable(block, at, header) || !pool.isLive(ref)) {
                continue;
            }
            if (version <= time) {
                return ValueHeader.isPlaceholder(header) ? 0 : ref;
            }
            ref = previous;
            inEntry = false;
        }
    }

    /**
     * For a value {@link #presentLength} found {@link #REPLACED}: the value that replaced it (0: the key was
     * removed), or -1 if the batch has ended since (re-read the entry).
     */
    long replacementOf(long ref) {
        long header = ValueHeader.headerAcquire(pool.segment(ref), pool.payloadOffset(ref));
        if (!ValueHeader.isClaimed(header) || !pool.isLive(ref)) {
            return -1;
        }
        long now = valueUnderClaim(ref, header);
        return now == CLAIM_ENDED ? -1 : now;
    }

    /**
     * Reads version {@code ref}, which {@link #versionAt} selected: {@link #RETRY} if it was freed meanwhile (its
     * snapshot was closed, or, for the value in its entry, it left the entry: read the entry again).
     */
    Object readVersion(long ref, SegmentView view) {
        MemorySegment block = pool.segment(ref);
        long at = pool.payloadOffset(ref);
        V value;
        try {
            value = deserialize(ref, block, at, view);
        } catch (ConcurrentModificationException stale) {
            return RETRY;
        } catch (RuntimeException | Error e) {
            if (pool.isLive(ref)) {
                throw e;
            }
            return RETRY;
        }
        VarHandle.loadLoadFence();
        return pool.isLive(ref) ? value : RETRY;
    }

    /** Reads value {@code ref}, which the caller has locked. */
    V readLocked(long ref, SegmentView view) {
        return deserialize(ref, pool.segment(ref), pool.payloadOffset(ref), view);
    }

    private V deserialize(long ref, MemorySegment block, long at, SegmentView view) {
        int size = pool.length(ref) - headerSize;
        view.open(block, at + headerSize, size, false);
        try {
            return serializer.read(view);
        } finally {
            view.close();
        }
    }

    /**
     * Locks value {@code ref}, waiting while another thread holds it: the locked header; -1 if the value left its
     * entry (re-read the entry); {@link #WAIT} or {@link #CLAIMED_COMMITTED} if a batch claims it. Throws
     * {@link IllegalStateException} instead if the map was closed.
     */
    long lock(long ref) {
        long locked = lockUnlessGone(ref);
        if (locked == -1) {
            closing.check();
        }
        return locked;
    }

    /** As {@link #lock}, for the close itself: -1 if the value is gone, whether the map is closed or not. */
    long lockUnlessGone(long ref) {
        long token = pool.beginWrite(ref);
        if (token == -1) {
            return -1;
        }
        try {
            MemorySegment block = pool.segment(ref);
            long at = pool.payloadOffset(ref);
            for (int attempt = 0; ; attempt++) {
                long header = ValueHeader.headerAcquire(block, at);
                if (ValueHeader.isDeleted(header)) {
                    return -1;
                }
                if (ValueHeader.isClaimed(header)) {
                    Batch batch = batches.claimant(header);
                    if (batch != null) {
                        return batch.status() == Batch.COMMITTED ? CLAIMED_COMMITTED : WAIT;
                    }
                    continue; // the claim ended: read the header again
                }
                if (ValueHeader.isUnlocked(header)) {
                    long locked = ValueHeader.tryLock(block, at, header);
                    if (locked != -1) {
                        return locked;
                    }
                } else {
                    awaitUnlock(ref, attempt);
                }
            }
        } finally {
            pool.endWrite(token);
        }
    }

    /**
     * Locks value {@code ref} to move it to another slice ({@link Rebalancer#scanned}), without waiting: the locked
     * header, or -1 if another thread holds it, a batch claims it, it is a placeholder, or it is gone.
     */
    long lockToMove(long ref) {
        long token = pool.beginWrite(ref);
        if (token == -1) {
            return -1;
        }
        try {
            MemorySegment block = pool.segment(ref);
            long at = pool.payloadOffset(ref);
            long header = ValueHeader.headerAcquire(block, at);
            if (!ValueHeader.isUnlocked(header) || ValueHeader.isPlaceholder(header)) {
                return -1; // (a claimed header is odd, hence not unlocked)
            }
            return ValueHeader.tryLock(block, at, header);
        } finally {
            pool.endWrite(token);
        }
    }

    /** Writes {@code header} into {@code ref}, a copy of a value in a slice no other thread has seen yet. */
    void initializeCopy(long ref, long header) {
        ValueHeader.initialize(pool.segment(ref), pool.payloadOffset(ref), header);
    }

    /**
     * Waits once for value {@code ref}'s lock, held by another operation; throws "Recursive update" instead if the
     * holder is a user function running on this very thread (it called the map on its own key).
     */
    private void awaitUnlock(long ref, int attempt) {
        if (CallRegistry.timeToCheck(attempt) && calls.callerHolds(ref)) {
            throw CallRegistry.recursiveUpdate("a function passed to an operation on this map called the map on "
                    + "the key whose value that operation holds locked while the function runs; the call would "
                    + "wait for the function to return");
        }
        Backoff.pause(attempt);
    }

    /**
     * Claims value {@code ref} for batch {@code batchId} unless another thread holds it: the header it had (the
     * batch writes it back if it gives the claim up); -1 if the value left its entry (re-read the entry);
     * {@link #WAIT} if a writer or a pending batch holds it; {@link #CLAIMED_COMMITTED} if a committed batch claims
     * it (install that batch's value first).
     */
    long claim(long ref, long batchId) {
        long token = pool.beginWrite(ref);
        if (token == -1) {
            return -1;
        }
        try {
            MemorySegment block = pool.segment(ref);
            long at = pool.payloadOffset(ref);
            while (true) {
                long header = ValueHeader.headerAcquire(block, at);
                if (ValueHeader.isDeleted(header)) {
                    return -1;
                }
                if (ValueHeader.isClaimed(header)) {
                    Batch batch = batches.claimant(header);
                    if (batch == null) {
                        continue;
                    }
                    return batch.status() == Batch.COMMITTED ? CLAIMED_COMMITTED : WAIT;
                }
                if (!ValueHeader.isUnlocked(header)) {
                    return WAIT;
                }
                if (ValueHeader.compareAndSet(block, at, header, ValueHeader.claimedBy(batchId, header))) {
                    return header;
                }
            }
        } finally {
            pool.endWrite(token);
        }
    }

    /**
     * Writes back header {@code unlocked}, which value {@code ref} had before a batch claimed it or a thread locked
     * it without changing it: gives the claim or lock up.
     */
    void restore(long ref, long unlocked) {
        ValueHeader.release(pool.segment(ref), pool.payloadOffset(ref), unlocked);
    }

    /**
     * Retires value {@code ref}, claimed by a batch (header {@code claimed}) whose value has just replaced it in its
     * entry; frees it unless it is kept as an older version.
     */
    void retireClaimed(long ref, long claimed, boolean kept) {
        ValueHeader.markDeleted(pool.segment(ref), pool.payloadOffset(ref), claimed);
        if (!kept) {
            pool.delete(ref);
        }
    }

    /**
     * Marks value {@code ref}, which this thread holds locked as {@code locked}, as about to leave its entry, before
     * the replacement's time is read ({@link ValueHeader#isStamping}); the next unlock or deletion clears the mark.
     */
    void markStamping(long ref, long locked) {
        ValueHeader.markStamping(pool.segment(ref), pool.payloadOffset(ref), locked);
    }

    void unlock(long ref, long locked) {
        ValueHeader.unlock(pool.segment(ref), pool.payloadOffset(ref), locked);
    }

    /** Unlocks value {@code ref}, which its holder has just taken out of its entry, and deletes it. */
    void retire(long ref, long locked) {
        ValueHeader.unlockDeleted(pool.segment(ref), pool.payloadOffset(ref), locked);
        pool.delete(ref);
    }

    /**
     * Unlocks value {@code ref}, which its holder has just taken out of its entry, marked deleted but kept as an
     * older version ({@link Versions}).
     */
    void supersede(long ref, long locked) {
        ValueHeader.markDeleted(pool.segment(ref), pool.payloadOffset(ref), locked);
    }

    /** The header of value {@code ref} now. */
    long header(long ref) {
        return ValueHeader.headerAcquire(pool.segment(ref), pool.payloadOffset(ref));
    }

    /** The size of value {@code ref}'s bytes (validated: a stale reference throws ConcurrentModificationException). */
    int size(long ref) {
        return pool.length(ref) - headerSize;
    }

    MemorySegment block(long ref) {
        return pool.segment(ref);
    }

    /** Where value {@code ref}'s bytes start in its block. */
    long bytesOffset(long ref) {
        return pool.payloadOffset(ref) + headerSize;
    }

    Pool pool() {
        return pool;
    }

    /**
     * For a handle that read value {@code ref}'s header as {@code stamp}, odd: a value a pending batch claims is
     * readable as it is (the batch never writes its bytes); once the batch committed, the value is replaced, and
     * the read throws {@link ConcurrentModificationException}; while it commits, the read waits (see
     * {@link #valueUnderClaim}).
     */
    @Override
    public boolean readableWhileHeld(long ref, long stamp) {
        if (!ValueHeader.isClaimed(stamp)) {
            return false;
        }
        Batch batch = batches.claimant(stamp);
        if (batch == null) {
            return false; // the claim ended: the header changed
        }
        if (awaitCommitted(batch) == Batch.COMMITTED) {
            throw new ConcurrentModificationException("the value was replaced or removed by an atomic batch");
        }
        return true;
    }

    /**
     * For a handle about to wait on value {@code ref}'s lock: throws if the calling thread holds it, inside a user
     * function updating the value in place (the handle would wait for itself).
     */
    @Override
    public void checkWriter(long ref, long waitingSince) {
        if (calls.callerHolds(ref)) {
            throw CallRegistry.recursiveUpdate("a handle read of the value the caller's own function is updating");
        }
    }
}
