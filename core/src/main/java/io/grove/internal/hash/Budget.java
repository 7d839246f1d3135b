package io.grove.internal.hash;

import io.grove.GroveOutOfMemoryException;
import io.grove.internal.sync.Backoff;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * The bound of a bounded hash map ({@code maximumSize}, {@code maximumBytes}), held for the whole map: the map never
 * holds more entries or entry bytes than its bound, one entry may take up to the whole bound, and the part of the
 * bound each segment uses follows where the entries are.
 *
 * <p>Implementation notes.
 *
 * <p><b>Accounts.</b> Per resource {@code r} ({@link #ENTRIES}: the number of entries; {@link #BYTES}: their
 * payload bytes, {@link EntryLayout#sizeFor}) and segment {@code s}: {@code usage(r, s)}, the segment's count or
 * bytes ({@link SegmentLayout}, changed under the segment's lock); {@code spare(r, s)}, budget the segment holds
 * but does not use (in its record, changed atomically); {@code free(r)}, budget no segment holds (in the
 * {@link DirectoryLayout directory}, changed atomically). A resource that is not bounded is not accounted.
 *
 * <p><b>Invariants.</b> (B1) {@code sum over s of (usage(r, s) + spare(r, s)) + free(r) + inHand(r) = bound(r)},
 * where {@code inHand} is budget a thread is moving from one account to another (taken out of one by a CAS, then
 * added to the other). Every term is at least 0, so the entries of the map never exceed the bound, at any moment.
 * (B2) {@code usage(r, s)} grows only by an amount the holder of {@code s}'s lock first took out of
 * {@code spare(r, s)} ({@link #reserve}), and what leaves {@code usage(r, s)} goes to {@code spare(r, s)}
 * ({@link #release}, and evictions). Note that a sum of the segments' counts read without their locks may exceed
 * the bound for a moment, when budget moved between segments while it was summed; the entries held never do.
 *
 * <p><b>Reserve</b>, under segment {@code s}'s lock, before anything that makes the segment hold more is linked:
 * <ol>
 *   <li>R1 take the need out of {@code spare(s)} by CAS: the common case, contended only by a thread taking
 *       spare budget from {@code s} (R4).
 *   <li>R2 move a batch ({@code bound / (8 x segments)}, or the shortfall if larger) from {@code free} into
 *       {@code spare(s)}.
 *   <li>R3 evict entries of {@code s} (CLOCK, {@link ClockEviction}; never the entry being replaced or resized),
 *       which moves their usage into {@code spare(s)}.
 *   <li>R4 move the spare budget of other segments into {@code spare(s)} (CAS, no lock).
 *   <li>R5 evict entries of other segments whose lock is free right now ({@link HashTable#tryLock}: it never
 *       waits, so two threads that each hold a segment's lock and evict from the other's cannot deadlock), moving
 *       their usage into {@code spare(s)}.
 * </ol>
 * Every step stops as soon as R1 can succeed. A round of R2-R5 that gains nothing is followed by a backoff and
 * another round: the budget still missing is then held by other threads (entries they are replacing, segments they
 * keep locked, or budget they are gathering themselves, which this thread may take in turn: gathered budget waits
 * in {@code spare}, where R4 finds it, so two threads that each need most of the bound do not hold half each for
 * ever). After {@value #GIVE_UP_SECONDS} s without any gain, the reserve fails with
 * {@link GroveOutOfMemoryException} and the operation changes nothing.
 *
 * <p><b>Release</b>, under {@code s}'s lock, after entries left {@code s}: their usage goes to {@code spare(s)};
 * a segment then holding more than two batches gives the rest back to {@code free}, so that budget reaches the
 * segments where entries are inserted without R4's scan.
 */
final class Budget {
    static final int ENTRIES = 0;
    static final int BYTES = 1;
    private static final int GIVE_UP_SECONDS = 1;
    private static final long GIVE_UP_NANOS = TimeUnit.SECONDS.toNanos(GIVE_UP_SECONDS);
    /**
     * The accounts: 8-byte aligned longs in the platform's byte order ({@link SegmentLayout},
     * {@link DirectoryLayout}).
     */
    private static final VarHandle ACCOUNT = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();

    /** Told of each victim before it is unlinked, under the lock of its segment (for the eviction listener). */
    interface Victims {
        void evicting(long e, Scratch scratch);
    }

    private final HashTable table;
    private final ClockEviction clock;
    /** Per resource: the bound, {@link Long#MAX_VALUE} if not bounded. */
    private final long[] bound;
    /** Per resource: how much a segment takes from {@code free} at a time. */
    private final long[] batch;

    /** The budget of {@code table}, whose directory holds the whole bound as free budget. */
    Budget(HashTable table, ClockEviction clock, long maxEntries, long maxBytes) {
        this.table = table;
        this.clock = clock;
        this.bound = new long[] {maxEntries, maxBytes};
        long shares = 8L * table.segmentCount();
        this.batch = new long[] {Math.max(1, maxEntries / shares), Math.max(1, maxBytes / shares)};
    }

    /** The budget a new table starts with in its directory: the bound of {@code resource}, or 0 if not bounded. */
    static long initialFree(long bound) {
        return bound == Long.MAX_VALUE ? 0 : bound;
    }

    /**
     * Under segment {@code s}'s lock: reserves room for {@code entries} more entries and {@code bytes} more bytes
     * in segment {@code s} (amounts below 0 reserve nothing), evicting entries as described above and telling
     * {@code victims} of each. {@code entryBytes} is the size of the entry being written, {@code spared} the
     * identity of the entry it replaces ({@link EntryLayout}; 0 if none), which is never evicted. An identity, not
     * a reference: an eviction's shift moves the entries of a table's cells, and with them their references.
     *
     * @throws IllegalArgumentException if the entry alone is larger than the bound of bytes; nothing is evicted
     * @throws GroveOutOfMemoryException if other threads hold the missing budget for too long
     */
    void reserve(int s, long entries, long bytes, long entryBytes, long spared, Scratch scratch, Victims victims) {
        if (entryBytes > bound[BYTES]) {
            throw new IllegalArgumentException("an entry of " + entryBytes + " bytes (24 bytes of fields, the padded"
                    + " key and the value) is larger than maximumBytes (" + bound[BYTES] + ")");
        }
        long needEntries = bound[ENTRIES] == Long.MAX_VALUE ? 0 : Math.max(0, entries);
        long needBytes = bound[BYTES] == Long.MAX_VALUE ? 0 : Math.max(0, bytes);
        if (takeOwn(s, needEntries, needBytes)) {
            return; // R1
        }
        long lastGain = System.nanoTime();
        int segments = table.segmentCount();
        for (int round = 0; ; round++) {
            boolean gained = fromFree(s, needEntries, needBytes); // R2
            if (takeOwn(s, needEntries, needBytes)) {
                return;
            }
            gained |= evict(s, s, needEntries, needBytes, spared, scratch, victims); // R3
            if (takeOwn(s, needEntries, needBytes)) {
                return;
            }
            for (int i = 1; i < segments && !covered(s, needEntries, needBytes); i++) {
                gained |= takeSpare((s + i) % segments, s, needEntries, needBytes); // R4
            }
            if (takeOwn(s, needEntries, needBytes)) {
                return;
            }
            for (int i = 1; i < segments && !covered(s, needEntries, needBytes); i++) {
                int t = (s + i) % segments;
                long token = table.tryLock(t); // R5
                if (token >= 0) {
                    try {
                        gained |= evict(t, s, needEntries, needBytes, 0, scratch, victims);
                    } finally {
                        table.unlock(t, token);
                    }
                }
            }
            if (takeOwn(s, needEntries, needBytes)) {
                return;
            }
            long now = System.nanoTime();
            if (gained) {
                lastGain = now;
            } else if (now - lastGain > GIVE_UP_NANOS) {
                throw new GroveOutOfMemoryException("cannot make room for " + needEntries + " entries and "
                        + needBytes + " bytes within the map's bound (maximumSize " + bound[ENTRIES]
                        + ", maximumBytes " + bound[BYTES] + "): for " + GIVE_UP_SECONDS + " s, the rest of the"
                        + " bound was held by entries other threads were updating or kept locked");
            }
            Backoff.pause(round);
        }
    }

    /**
     * Under segment {@code s}'s lock, after {@code entries} entries and {@code bytes} bytes left it: moves their
     * usage into the segment's spare budget, and gives what exceeds two batches back to the free budget.
     */
    void release(int s, long entries, long bytes) {
        release(s, ENTRIES, entries);
        release(s, BYTES, bytes);
    }

    private void release(int s, int r, long amount) {
        if (bound[r] == Long.MAX_VALUE || amount <= 0) {
            return;
        }
        long spareAt = SegmentLayout.spareAt(table.offset(s), r);
        MemorySegment sb = table.block(s);
        long excess = (long) ACCOUNT.getAndAdd(sb, spareAt, amount) + amount - 2 * batch[r];
        if (excess > 0) {
            addFree(r, takeUpTo(sb, spareAt, excess + batch[r]));
        }
    }

    /** R1: takes both needs out of segment {@code s}'s spare budget, or neither. */
    private boolean takeOwn(int s, long needEntries, long needBytes) {
        MemorySegment sb = table.block(s);
        long entriesAt = SegmentLayout.spareAt(table.offset(s), ENTRIES);
        if (!takeExactly(sb, entriesAt, needEntries)) {
            return false;
        }
        if (!takeExactly(sb, SegmentLayout.spareAt(table.offset(s), BYTES), needBytes)) {
            add(sb, entriesAt, needEntries);
            return false;
        }
        return true;
    }

    /** Whether segment {@code s}'s spare budget covers both needs. */
    private boolean covered(int s, long needEntries, long needBytes) {
        return shortfall(s, ENTRIES, needEntries) == 0 && shortfall(s, BYTES, needBytes) == 0;
    }

    private long shortfall(int s, int r, long need) {
        if (need == 0) {
            return 0;
        }
        long spare = (long) ACCOUNT.getVolatile(table.block(s), SegmentLayout.spareAt(table.offset(s), r));
        return Math.max(0, need - spare);
    }

    /** R2: moves free budget into segment {@code s}'s spare, a batch or the shortfall; whether any moved. */
    private boolean fromFree(int s, long needEntries, long needBytes) {
        boolean movedEntries = fromFree(s, ENTRIES, needEntries);
        boolean movedBytes = fromFree(s, BYTES, needBytes); // also when entries moved: both accounts are topped up
        return movedEntries || movedBytes;
    }

    private boolean fromFree(int s, int r, long need) {
        long shortfall = shortfall(s, r, need);
        long taken = shortfall == 0 ? 0 : takeUpTo(table.directoryBlock(),
                DirectoryLayout.freeAt(table.directoryOffset(), r), Math.max(shortfall, batch[r]));
        return addSpare(s, r, taken);
    }

    /** R4: moves what segment {@code s} lacks from segment {@code t}'s spare budget; whether any moved. */
    private boolean takeSpare(int t, int s, long needEntries, long needBytes) {
        boolean movedEntries = takeSpare(t, s, ENTRIES, needEntries);
        boolean movedBytes = takeSpare(t, s, BYTES, needBytes); // also when entries moved: both accounts are topped up
        return movedEntries || movedBytes;
    }

    private boolean takeSpare(int t, int s, int r, long need) {
        long shortfall = shortfall(s, r, need);
        long taken = shortfall == 0 ? 0 : takeUpTo(table.block(t), SegmentLayout.spareAt(table.offset(t), r),
                shortfall);
        return addSpare(s, r, taken);
    }

    /**
     * R3 and R5, under the locks of segments {@code t} and {@code s} (the same segment for R3): evicts entries of
     * {@code t} other than {@code spared} until segment {@code s}'s spare budget covers the needs or {@code t} has
     * nothing left to evict; the usage of each victim goes to {@code s}'s spare. Whether anything was evicted.
     */
    private boolean evict(int t, int s, long needEntries, long needBytes, long spared, Scratch scratch,
            Victims victims) {
        boolean evicted = false;
        while (!covered(s, needEntries, needBytes)) {
            long victim = clock.chooseVictim(t, scratch, spared);
            if (victim == 0) {
                break;
            }
            victims.evicting(victim, scratch);
            long size = table.entryBytes(victim);
            table.unlinkAt(t, scratch.victimSlot, victim);
            if (bound[ENTRIES] != Long.MAX_VALUE) {
                addSpare(s, ENTRIES, 1);
            }
            if (bound[BYTES] != Long.MAX_VALUE) {
                addSpare(s, BYTES, size);
            }
            evicted = true;
        }
        return evicted;
    }

    // ---- the accounts: longs in segment records and the directory, changed atomically

    /** Adds {@code amount} to segment {@code s}'s spare budget of {@code r}; whether it was more than 0. */
    private boolean addSpare(int s, int r, long amount) {
        if (amount == 0) {
            return false;
        }
        add(table.block(s), SegmentLayout.spareAt(table.offset(s), r), amount);
        return true;
    }

    private void addFree(int r, long amount) {
        add(table.directoryBlock(), DirectoryLayout.freeAt(table.directoryOffset(), r), amount);
    }

    private static void add(MemorySegment block, long at, long amount) {
        long before = (long) ACCOUNT.getAndAdd(block, at, amount);
        assert before + amount >= 0 : "an account went below 0";
    }

    /** Takes {@code amount} out of the account at {@code at} if it holds that much; whether it did. */
    private static boolean takeExactly(MemorySegment block, long at, long amount) {
        if (amount == 0) {
            return true;
        }
        while (true) {
            long held = (long) ACCOUNT.getVolatile(block, at);
            if (held < amount) {
                return false;
            }
            if (ACCOUNT.compareAndSet(block, at, held, held - amount)) {
                return true;
            }
        }
    }

    /** Takes up to {@code wanted} out of the account at {@code at}; what it took. */
    private static long takeUpTo(MemorySegment block, long at, long wanted) {
        while (true) {
            long held = (long) ACCOUNT.getVolatile(block, at);
            long take = Math.min(held, wanted);
            if (take <= 0 || ACCOUNT.compareAndSet(block, at, held, held - take)) {
                return Math.max(take, 0);
            }
        }
    }
}
