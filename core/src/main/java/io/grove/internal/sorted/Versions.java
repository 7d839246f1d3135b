package io.grove.internal.sorted;

import io.grove.internal.memory.Pool;
import io.grove.internal.sync.Backoff;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The older versions of the values of an ordered map that takes snapshots: each value records the time it was
 * written ({@link ValueHeader#VERSION}) and the value it replaced ({@link ValueHeader#PREVIOUS}), so a snapshot
 * taken at time {@code s} reads, per key, the newest version written at or before {@code s}
 * ({@link Values#versionAt}). A removal that an open snapshot must not see leaves a tombstone: a placeholder with a
 * time and a previous version.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Times ({@link SnapshotRegistry#now}). A value that replaces another under its lock is stamped before it goes into
 * the entry, so the change counts as made at that time, and no reader may report the old value from then on: snapshot
 * readers wait for a locked value and see it deleted after; plain readers read a locked value's bytes only once it is
 * unlocked, and its presence only once it is not marked stamping ({@link ValueHeader#isStamping}), which the writer
 * sets before it reads the time. (A plain reader that finds a placeholder locked but not stamping, e.g. while
 * {@code compute} runs its function, reads the key absent without waiting: it reads before the time is read. Without
 * the mark, a put on a tombstone read absent after a snapshot that already showed its value: seen by
 * {@code SortedMapHistoryStressTest} on 3 keys.) A value inserted where the entry held nothing has no lock to hide
 * behind: it goes in {@link #PENDING} and its writer then stamps it by a CAS; a reader that finds it pending stamps it
 * first with its own clock reading, so a version's time is fixed once, after it became reachable, and every snapshot
 * reader and every later snapshot agrees on which side of {@code s} it is (Jiffy's revisions are stamped in the same
 * way). A plain reader also settles a pending time before it reports the value, so a snapshot opened after that read
 * sees the value. A batch stamps its values with its commit time ({@link Batch}).
 *
 * <p>Keeping. A writer that replaces value {@code old} by {@code next} at time {@code t} keeps {@code old} as
 * {@code next}'s previous version if a snapshot older than {@code t} is open ({@link #olderSnapshotOpen}
 * after the stamp: see there why a writer that misses a snapshot may drop it), marks it deleted (for plain readers
 * and writers it has left the entry) but does not free it. Otherwise it frees {@code old} and every version before
 * it. A chain is changed only by the holder of its newest value's lock (a batch's claim counts as one; for a value
 * not yet in an entry, its writer): {@link #prune} unlinks exactly the versions no open snapshot reads. The versions
 * a closed snapshot pinned are pruned by the next writer of the key, or by the sweep after the close
 * ({@link ChunkMap#sweepVersions}) through the entries noted as holding versions ({@link #note}). A version is
 * freed only once the writer that took it out of its entry has marked it deleted ({@link #delete}): that writer
 * marks it after the CAS that put its successor, unlocked, in the entry, where the next writer may already prune.
 *
 * <p>Reading a version: a snapshot reader validates each version it reads (its Nova reference is live after the
 * read), so a version freed under it (its snapshot was closed meanwhile, or it read a value that left its entry)
 * is never taken for another's bytes.
 */
final class Versions {
    /** The time of a value inserted but not yet stamped. */
    static final long PENDING = -1;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();

    private final Pool pool;
    final SnapshotRegistry registry = new SnapshotRegistry();
    /** Whether an entry was noted as holding older versions since the last sweep began ({@link #takeNoted}). */
    private volatile boolean noted;

    Versions(Pool pool) {
        this.pool = pool;
    }

    /** Initializes the version words of a new value slice at {@code at}: written at {@code time}, no previous. */
    static void initialize(MemorySegment block, long at, long time) {
        LONG.set(block, at + ValueHeader.VERSION, time);
        LONG.set(block, at + ValueHeader.PREVIOUS, 0L);
    }

    long version(long ref) {
        return (long) LONG.getAcquire(pool.segment(ref), pool.payloadOffset(ref) + ValueHeader.VERSION);
    }

    /** Stamps a value no reader reaches yet, or its lock holder's value. */
    void setVersion(long ref, long time) {
        LONG.setRelease(pool.segment(ref), pool.payloadOffset(ref) + ValueHeader.VERSION, time);
    }

    /**
     * Fixes the time of a pending value to now, unless another thread fixed it first: its time, or {@link #PENDING}
     * if the slice was freed (a reader then finds it gone). The CAS is protected from a slice reused meanwhile by
     * Nova's write protocol.
     */
    long settle(long ref) {
        MemorySegment block = pool.segment(ref);
        long at = pool.payloadOffset(ref) + ValueHeader.VERSION;
        long time = (long) LONG.getAcquire(block, at);
        if (time != PENDING) {
            return time;
        }
        long token = pool.beginWrite(ref);
        if (token == -1) {
            return PENDING;
        }
        try {
            long now = SnapshotRegistry.now();
            long witness = (long) LONG.compareAndExchange(block, at, PENDING, now);
            return witness == PENDING ? now : witness;
        } finally {
            pool.endWrite(token);
        }
    }

    long previous(long ref) {
        return (long) LONG.getAcquire(pool.segment(ref), pool.payloadOffset(ref) + ValueHeader.PREVIOUS);
    }

    void setPrevious(long ref, long previous) {
        LONG.setRelease(pool.segment(ref), pool.payloadOffset(ref) + ValueHeader.PREVIOUS, previous);
    }

    /**
     * Whether a snapshot older than {@code time} is open (or one is taking its time), asked after publishing
     * {@code time} (see {@link SnapshotRegistry}): then a writer that stamps {@code time} keeps what it replaces.
     */
    boolean olderSnapshotOpen(Scratch s, long time) {
        s.publishTime(time);
        return registry.reads(1, time); // (times are at least 1)
    }

    /**
     * Whether value {@code ref} (header {@code header}) is something an older snapshot may read: a value, or a
     * tombstone; not a placeholder without history (a {@code compute}'s or a batch's), which reads as absent as
     * no value at all does.
     */
    boolean hasHistory(long ref, long header) {
        return !ValueHeader.isPlaceholder(header) || previous(ref) != 0;
    }

    /**
     * Counts for {@link io.grove.SnapshotFootprint} the older versions behind value {@code head} of an entry, and
     * {@code head} itself if it is a tombstone (which closing the oldest snapshot frees if that frees every version
     * behind it: it then hides nothing). Reads without locks: each version's words are read, then the version is
     * checked live, so a chain changed meanwhile is counted up to where it changed.
     */
    void tally(long head, Tally tally) {
        long successorTime = Long.MAX_VALUE; // the entry's value has none (a pending one is newer than any snapshot)
        int tombstoneLength = -1;
        boolean olderPinnedByOldest = true;
        for (long ref = head; ref != 0; ) {
            long header = ValueHeader.headerAcquire(pool.segment(ref), pool.payloadOffset(ref));
            long time = version(ref);
            long previous = previous(ref);
            int length = pool.liveLength(ref);
            VarHandle.loadLoadFence();
            if (length < 0 || !pool.isLive(ref)) {
                return;
            }
            if (ref != head) {
                olderPinnedByOldest &= tally.add(length, time, successorTime);
            } else if (isTombstone(ref, header)) {
                tombstoneLength = length;
            }
            successorTime = time == PENDING ? Long.MAX_VALUE : time;
            ref = previous;
        }
        if (tombstoneLength >= 0) {
            tally.addTombstone(tombstoneLength, olderPinnedByOldest);
        }
    }

    /** The sums {@link #tally} adds to, for the open snapshots whose two oldest times it is given. */
    static final class Tally {
        private final long oldest;
        private final long nextOldest;
        long versions;
        long bytes;
        long pinnedByOldest;

        /** Sums for oldest open snapshot time {@code oldest} and next {@code nextOldest} (MAX_VALUE: none). */
        Tally(long oldest, long nextOldest) {
            this.oldest = oldest;
            this.nextOldest = nextOldest;
        }

        /**
         * Adds a version of {@code length} bytes written at {@code time} and replaced at {@code successorTime}: read by
         * the snapshots from the one time to the other, so by the oldest alone if no other lies in between. Returns
         * whether it is.
         */
        boolean add(int length, long time, long successorTime) {
            versions++;
            bytes += length;
            boolean pinned = oldest != Long.MAX_VALUE && time <= oldest && oldest < successorTime
                    && successorTime <= nextOldest;
            if (pinned) {
                pinnedByOldest += length;
            }
            return pinned;
        }

        /** Adds an entry's tombstone of {@code length} bytes, which closing the oldest frees if {@code freed}. */
        void addTombstone(int length, boolean freed) {
            versions++;
            bytes += length;
            if (oldest != Long.MAX_VALUE && freed) {
                pinnedByOldest += length;
            }
        }
    }

    /**
     * Whether value {@code ref} (header {@code header}) is a tombstone: a removal an open snapshot must not see.
     * Told by its time, which other placeholders do not have (0) and which, unlike its previous version, never
     * changes: a batch may prune what a tombstone it claimed hides before its install counts it out.
     */
    boolean isTombstone(long ref, long header) {
        return ValueHeader.isPlaceholder(header) && version(ref) != 0;
    }

    /**
     * Unlinks from the chain behind {@code newest} the versions no open snapshot reads: a version is read by a snapshot
     * taken at or after its time and before the time of the version above it. Frees them, except, if
     * {@code firstInEntry}, the one right behind {@code newest}, which is still in its entry (the caller retires it if
     * it does not stay). Returns whether that one stays linked. The caller owns the chain (see the class notes); a
     * snapshot reader walking it meanwhile never needs an unlinked version, and one that reads it after it was freed
     * finds it freed and starts over from the entry.
     */
    boolean prune(long newest, boolean firstInEntry) {
        long newer = newest;
        long ref = previous(newest);
        boolean firstStays = true;
        for (boolean first = true; ref != 0; first = false) {
            long older = previous(ref);
            if (registry.reads(version(ref), version(newer))) {
                newer = ref;
            } else {
                setPrevious(newer, older);
                if (first) {
                    firstStays = false;
                }
                if (!first || !firstInEntry) {
                    delete(ref);
                }
            }
            ref = older;
        }
        return firstStays;
    }

    /**
     * Notes entry {@code e} of chunk {@code c} as holding older versions, for the sweep after a snapshot's close
     * ({@link VersionedEntries}), and that the map has such entries (written only when it changes: a read of a
     * shared word on the paths that keep versions, not a write).
     */
    void note(Chunk c, int e) {
        c.versioned().note(e);
        if (!noted) {
            noted = true;
        }
    }

    /**
     * Whether an entry was noted since the last call: a sweep that begins by this call needs to walk the chunks
     * only then (an entry noted during its walk is seen by it or by the next one).
     */
    boolean takeNoted() {
        if (!noted) {
            return false;
        }
        noted = false;
        return true;
    }

    /** Frees version {@code ref} and every version behind it. */
    void free(long ref) {
        while (ref != 0) {
            long older = previous(ref);
            delete(ref);
            ref = older;
        }
    }

    /**
     * Frees older version {@code ref} once the writer that took it out of its entry has marked it deleted. That
     * writer links it behind its successor, puts the successor in the entry, and marks it only then
     * ({@link Values#supersede}, {@link Values#retireClaimed}); meanwhile the successor is unlocked, so the next
     * writer of the key may already prune the chain. Freed before the mark, the slice could be reused by a new
     * value, and the late mark would then delete that value in its entry: every reader and writer of the key
     * would then find it deleted and read the entry again for ever (seen with 160 virtual threads on 3 keys with
     * batches and snapshots, {@code SnapshotChurnStressTest}). The wait is for the few instructions between that
     * writer's CAS and its mark.
     */
    private void delete(long ref) {
        MemorySegment block = pool.segment(ref);
        long at = pool.payloadOffset(ref);
        for (int attempt = 0; !ValueHeader.isDeleted(ValueHeader.headerAcquire(block, at)); attempt++) {
            Backoff.pause(attempt);
        }
        pool.delete(ref);
    }
}
