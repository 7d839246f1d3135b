package io.grove.internal.hash;

import io.grove.internal.memory.Pool;
import io.grove.internal.view.SliceStamp;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Repairs a table whose process was killed while it used it (or whose file was not forced before an
 * operating-system crash), before the table is used again, and lists every slice the table reaches so that the pool
 * can free all others ({@link Pool#recover}).
 *
 * <p>Implementation notes. What a killed process leaves in the table, and what this does about it (every store it
 * executed is in the file: the page cache outlives the process; the orders the table's writers keep are in
 * {@link HashTable}, {@link SegmentGrowth} and the layouts):
 * <ul>
 *   <li>a segment locked, its owner set: the lock and owner are cleared (no process holds the file);
 *   <li>a mutation begun (version odd): the version is made even. The slots are sound at every instruction of a
 *       mutation: an entry is written (and sealed) before the release store of its slot, a replacement is one slot
 *       store, and a removal's shift copies each slot before it overwrites the copy's old place;
 *   <li>a removal cut off in the middle of its shift: one entry in two slots of its run; the later one is emptied
 *       (with the rest of its run shifted back, as a removal does). In a table whose entries lie in cells, one
 *       cell may also be torn (the copy in flight): its check word drops it, and of two copies of one entry the
 *       later one is emptied as of two links of one key below;
 *   <li>growth cut off between installing the new slot array and installing the tag array or recording the size:
 *       the size follows the slot array's length, and a tag array of another size is replaced after the pool's
 *       recovery ({@link #replaceTags}; a new array not installed yet is a private slice the sweep frees);
 *   <li>tags that do not say what the slots hold (an insertion or removal cut off between the two): every tag is
 *       rewritten from the entry of its slot once the slots are repaired ({@link #writeTags});
 *   <li>counts and byte totals off by the operation in flight: recounted from the slots;
 *   <li>an in-place update of the zero-copy API cut off (entry stamp odd): its value is put back from the
 *       segment's journal ({@link BeforeImage}), which a map in a file records before the stamp turns odd, the
 *       check word recomputed and the stamp made even; an odd stamp with no image for its entry (a damaged image) is
 *       made even and the entry counted as torn;
 *   <li>the bound's budget of a bounded map (spare budget in segments, budget in transit in a thread): every
 *       segment's spare goes back to the directory's free budget, which becomes the bound minus what the entries
 *       use;
 *   <li>slices the holder's operation had in hand, which its segment's intents name ({@link SegmentLayout}: adding,
 *       removing): while the file is in use, one the segment does not link is freed (a private one at once, one
 *       that was linked by deletion); a recovery of the whole file clears the intents, as its sweep frees every slice
 *       no segment links.
 * </ul>
 * After an operating-system crash, pages the kernel had not written back are lost, so any slot or entry may be older
 * than the others. Every entry is checked: a slot naming no live slice, an entry in its cell whose length does not fit
 * the cell, an entry whose fields do not fit its slice or cell, whose key belongs to another segment or slot tag, or
 * (in a table in a file) whose check word does not match its bytes, is unsound: its slot is emptied and the entry not
 * kept (the sweep frees it). An entry separated from its home by an empty slot is linked again from its home; a slot
 * array without an empty slot (pages of different ages) loses its last slot's entry first, so that every probe ends; of
 * two sound entries of one key (a removed one's slot on an older page), the one lookups do not reach, later in the run,
 * is dropped. None of these is expected after a mere kill, but for the torn cell and the second copy of an entry a
 * removal's shift in a table with cells may leave (above).
 *
 * <p><b>While other processes use the file</b> ({@link #whileInUse}): a thread that found a segment locked by a
 * process that ended without closing the file takes the lock over ({@link SegmentLayout#takeOver}) and repairs that
 * segment alone, as above, while every other segment stays in use. The version is made odd first if the dead process
 * had not begun a mutation, so that lock-free readers discard what they read while the slots are repaired, and is
 * made even, after the tags and counts, just before the lock is freed: the repair is a mutation like any other. A
 * tag array that does not fit the slots is replaced at once (the pool allocates), and the journal's image is deleted
 * once its value is back. What the repair cannot see stays lost until the next recovery of the whole file (the last
 * process to close the file leaves it to that recovery): a slice the dead process held when no intent named it (one
 * it was killed with between clearing the intent and deleting the slice, or inside the allocator itself; the arrays
 * of a growth in progress), and the budget of a bounded map it held in transit (the bound then admits fewer entries,
 * never more). The slices in its release stripes are the salvage's ({@link Pool#salvage}).
 */
final class TableRecovery {
    /** What a repair did, and the reference of every slice the table reaches. */
    record Result(long[] live, int segments, int unlocked, int mutationsEnded, int growthsFixed,
            long duplicatesRemoved, long entries, long restoredValues, long tornValues, long unsoundDropped,
            long misplacedRelinked, long repeatedKeysDropped, long heldSlicesFreed, int[] taglessSegments) {
        /** What the repair did, for the log. */
        String describe() {
            return entries + " entries in " + segments + " segments; " + unlocked + " segment locks released, "
                    + mutationsEnded + " interrupted changes ended, " + growthsFixed + " growths repaired, "
                    + duplicatesRemoved + " slots of a cut-off removal emptied, " + restoredValues + " values put"
                    + " back as they were before an in-place update cut off, " + tornValues + " values found"
                    + " half-written with nothing to put back, " + unsoundDropped + " unsound entries dropped (torn"
                    + " by an operating-system crash, or damaged), " + misplacedRelinked + " entries linked again"
                    + " from their home slots, " + repeatedKeysDropped + " second links of a key dropped, "
                    + heldSlicesFreed + " slices the interrupted operations held freed";
        }
    }

    private final Pool pool;
    /** Whether other threads and processes use the table during the repair ({@link #whileInUse}). */
    private final boolean inUse;
    private final boolean checked;
    /** The bytes of each cell of the table's slot arrays ({@link SlotLayout}). */
    private final int cellBytes;
    private long[] live = new long[1024];
    /** Room for the slot words of one slot array, reused from segment to segment. */
    private long[] slotWords = new long[0];
    /** How many slots hold each of the words {@link #duplicatedSlots} returned last. */
    private int[] copiesLeft = new int[0];
    private int liveCount;
    /** The segments whose tag array does not fit their slot array, for {@link #replaceTags}. */
    private int[] tagless = new int[0];
    private int unlocked;
    private int mutationsEnded;
    private int growthsFixed;
    private long duplicatesRemoved;
    private long entries;
    private long restoredValues;
    private long tornValues;
    private long unsoundDropped;
    private long misplacedRelinked;
    private long repeatedKeysDropped;
    private long heldSlicesFreed;
    /** While a segment is walked: its journal's before-image and the entry it belongs to, else 0. */
    private long image;
    private long imageEntry;

    private TableRecovery(Pool pool, int cellBytes, boolean inUse) {
        this.pool = pool;
        this.inUse = inUse;
        this.checked = pool.inFile();
        this.cellBytes = cellBytes;
    }

    /**
     * Repairs the table rooted at {@code directory} in {@code pool}, which no thread uses, whose slot arrays have
     * cells of {@code cellBytes} bytes; {@code maxEntries} and {@code maxBytes} are its bounds ({@link Long#MAX_VALUE}
     * when not bounded).
     *
     * @throws IllegalStateException if the directory, a segment record or a slot array is not a live slice, or a slot
     *     array is not a whole number of cells
     */
    static Result repair(Pool pool, long directory, int cellBytes, long maxEntries, long maxBytes) {
        TableRecovery recovery = new TableRecovery(pool, cellBytes, false);
        recovery.keep(directory);
        MemorySegment db = pool.segment(directory);
        long dof = pool.payloadOffset(directory);
        int segments = DirectoryLayout.segmentsIn(pool.length(directory));
        long usedEntries = 0;
        long usedBytes = 0;
        for (int s = 0; s < segments; s++) {
            long segment = DirectoryLayout.segment(db, dof, s);
            if (!pool.isLive(segment)) {
                throw new IllegalStateException("segment " + s + " is not a live slice: reference " + segment);
            }
            recovery.keep(segment);
            MemorySegment sb = pool.segment(segment);
            long so = pool.payloadOffset(segment);
            boolean locked = SegmentLayout.isLocked(sb, so) || SegmentLayout.owner(sb, so) != 0;
            boolean interrupted = (SegmentLayout.version(sb, so) & 1) != 0;
            recovery.repairSegment(s, segments, sb, so);
            recovery.end(sb, so, interrupted, locked);
            usedEntries += SegmentLayout.count(sb, so);
            usedBytes += SegmentLayout.bytes(sb, so);
            SegmentLayout.setSpare(sb, so, Budget.ENTRIES, 0);
            SegmentLayout.setSpare(sb, so, Budget.BYTES, 0);
        }
        DirectoryLayout.initialize(db, dof, remaining(maxEntries, usedEntries), remaining(maxBytes, usedBytes));
        return recovery.result(segments);
    }

    /**
     * A repair of the segments of a table in {@code pool} (cells of {@code cellBytes} bytes) that processes which
     * ended left locked, while the table is in use ({@link #repairAbandoned}; see the class notes).
     */
    static TableRecovery whileInUse(Pool pool, int cellBytes) {
        return new TableRecovery(pool, cellBytes, true);
    }

    /**
     * Repairs segment {@code s} of {@code segments}, at {@code so} in {@code sb}, whose lock the caller took over
     * from a process that ended holding it, and frees its lock.
     *
     * @throws IllegalStateException if the segment's slot array is not a live slice of a power-of-two number of
     *     cells; the segment is then left locked by the caller, its version odd
     */
    void repairAbandoned(int s, int segments, MemorySegment sb, long so) {
        boolean interrupted = (SegmentLayout.versionAcquire(sb, so) & 1) != 0;
        if (!interrupted) {
            SegmentLayout.beginMutation(sb, so);
        }
        repairSegment(s, segments, sb, so);
        end(sb, so, interrupted, true);
    }

    /** What the repairs did so far, of a table of {@code segments} segments. */
    Result result(int segments) {
        return new Result(Arrays.copyOf(live, liveCount), segments, unlocked, mutationsEnded, growthsFixed,
                duplicatesRemoved, entries, restoredValues, tornValues, unsoundDropped, misplacedRelinked,
                repeatedKeysDropped, heldSlicesFreed, tagless);
    }

    /**
     * After {@link #repair} and the pool's recovery, which makes it allocate again: gives each of
     * {@code segments} of the table rooted at {@code directory} (cells of {@code cellBytes} bytes) a new tag array,
     * written from its slots.
     */
    static void replaceTags(Pool pool, long directory, int cellBytes, int[] segments) {
        MemorySegment db = pool.segment(directory);
        long dof = pool.payloadOffset(directory);
        for (int s : segments) {
            long segment = DirectoryLayout.segment(db, dof, s);
            MemorySegment sb = pool.segment(segment);
            long so = pool.payloadOffset(segment);
            SegmentLayout.setTags(sb, so, pool.allocate(TagLayout.bytesFor(SegmentLayout.slotBits(sb, so))));
            writeTags(pool, sb, so, cellBytes);
        }
    }

    /** Writes every tag of a segment at rest from the entry of its slot, whose key is sound. */
    private static void writeTags(Pool pool, MemorySegment sb, long so, int cellBytes) {
        long slots = SegmentLayout.slots(sb, so);
        long tags = SegmentLayout.tags(sb, so);
        MemorySegment ab = pool.segment(slots);
        long ao = pool.payloadOffset(slots);
        MemorySegment tb = pool.segment(tags);
        long to = pool.payloadOffset(tags);
        long n = 1L << SegmentLayout.slotBits(sb, so);
        for (long i = 0; i < n; i++) {
            long slot = SlotLayout.get(ab, ao, i, cellBytes);
            byte tag = TagLayout.EMPTY;
            if (slot != SlotLayout.EMPTY) {
                long e = HashTable.entryAt(pool, slots, i, slot, cellBytes);
                MemorySegment eb = pool.segment(e);
                long eo = pool.payloadOffset(e);
                tag = TagLayout.tagOf(KeyHash.of(eb, eo + EntryLayout.KEY, EntryLayout.keyLength(eb, eo)));
            }
            TagLayout.set(tb, to, i, tag);
        }
    }

    /** Whether {@code tags} is a live tag array of {@code 2^bits} tags. */
    private boolean tagsFit(long tags, int bits) {
        try {
            return pool.isLive(tags) && pool.length(tags) == TagLayout.bytesFor(bits);
        } catch (RuntimeException outsideThePool) {
            return false;
        }
    }

    private static long remaining(long bound, long used) {
        return bound == Long.MAX_VALUE ? Budget.initialFree(bound) : Math.max(0, bound - used);
    }

    /**
     * After a segment's repair: makes its version even if it is odd (the repair's own mutation, or one the dead process
     * left open: {@code interrupted}, counted), then frees its lock if {@code locked}; the release stores publish the
     * repair to readers and to the next holder.
     */
    private void end(MemorySegment sb, long so, boolean interrupted, boolean locked) {
        if ((SegmentLayout.version(sb, so) & 1) != 0) {
            SegmentLayout.endMutation(sb, so);
        }
        if (interrupted) {
            mutationsEnded++;
        }
        if (locked) {
            SegmentLayout.forceUnlock(sb, so);
            unlocked++;
        }
    }

    /**
     * Repairs the slots, tags, journal and counts of segment {@code s} of {@code segments}, at {@code so} in
     * {@code sb}.
     */
    private void repairSegment(int s, int segments, MemorySegment sb, long so) {
        long slots = SegmentLayout.slots(sb, so);
        if (!pool.isLive(slots)) {
            throw new IllegalStateException("the slot array is not a live slice: reference " + slots);
        }
        keep(slots);
        long cells = pool.length(slots) / cellBytes;
        if (cells * cellBytes != pool.length(slots) || Long.bitCount(cells) != 1) {
            throw new IllegalStateException("the slot array, reference " + slots + ", has " + pool.length(slots)
                    + " bytes: not a power-of-two number of cells of " + cellBytes + " bytes");
        }
        int bits = Long.numberOfTrailingZeros(cells);
        boolean tagsFit = tagsFit(SegmentLayout.tags(sb, so), bits);
        if (bits != SegmentLayout.slotBits(sb, so) || !tagsFit) {
            SegmentLayout.setSlotBits(sb, so, bits);
            growthsFixed++;
        }
        if (!tagsFit && inUse) {
            SegmentLayout.setTags(sb, so, pool.allocate(TagLayout.bytesFor(bits)));
            tagsFit = true;
        } else if (tagsFit) {
            keep(SegmentLayout.tags(sb, so));
        } else {
            tagless = Arrays.copyOf(tagless, tagless.length + 1);
            tagless[tagless.length - 1] = s;
        }
        long image = SegmentLayout.journal(sb, so);
        if (image != 0) {
            imageEntry = pool.isLive(image) ? BeforeImage.entry(pool, image) : 0;
            this.image = image;
        }
        MemorySegment ab = pool.segment(slots);
        long ao = pool.payloadOffset(slots);
        long mask = (1L << bits) - 1;
        if (!hasEmptySlot(ab, ao, mask)) { // only pages of different ages can make one: every probe needs an end
            SlotLayout.set(ab, ao, mask, cellBytes, SlotLayout.EMPTY);
            unsoundDropped++;
        }
        long[] duplicated = duplicatedSlots(ab, ao, mask);
        int[] copies = copiesLeft;
        for (long i = 0; i <= mask; ) {
            long slot = SlotLayout.get(ab, ao, i, cellBytes);
            if (slot == SlotLayout.EMPTY) {
                i++;
                continue;
            }
            int d = SlotLayout.isInline(slot) ? -1 : Arrays.binarySearch(duplicated, slot);
            if (d >= 0 && copies[d] > 1) { // a copy a cut-off shift left behind: drop all but the last one met
                HashTable.shiftBack(ab, ao, null, 0, mask, i, cellBytes);
                copies[d]--;
                duplicatesRemoved++;
                continue; // slot i holds the next slot of the run now
            }
            long e = soundEntry(s, segments, slots, i, slot);
            if (e == 0) {
                HashTable.shiftBack(ab, ao, null, 0, mask, i, cellBytes);
                unsoundDropped++;
                continue;
            }
            long home = SlotLayout.home(slot, mask);
            long firstEmpty = firstEmpty(ab, ao, mask, home, i);
            if (firstEmpty >= 0) { // an empty slot between its home and itself: lookups would stop before it
                HashTable.copyCell(ab, ao, i, firstEmpty, cellBytes);
                HashTable.shiftBack(ab, ao, null, 0, mask, i, cellBytes);
                misplacedRelinked++;
                continue;
            }
            i++;
        }
        for (long i = 0; i <= mask; ) { // every slot left is sound and reachable: now each key once
            long slot = SlotLayout.get(ab, ao, i, cellBytes);
            long twin = slot == SlotLayout.EMPTY ? -1
                    : HashTable.earlierLinkOfKey(pool, slots, mask, SlotLayout.home(slot, mask), i, cellBytes);
            if (twin >= 0) { // the link lookups do not reach: a cut-off shift's copy, a removed entry, or older
                if (isCopy(slots, twin, i)) {
                    duplicatesRemoved++;
                } else {
                    repeatedKeysDropped++;
                }
                HashTable.shiftBack(ab, ao, null, 0, mask, i, cellBytes);
                continue;
            }
            i++;
        }
        SegmentLayout.setJournal(sb, so, 0);
        if (inUse && image != 0 && pool.isLive(image)) {
            pool.deletePrivate(image); // only a repair of its segment reads it
        }
        this.image = 0;
        imageEntry = 0;
        long adding = SegmentLayout.adding(sb, so);
        long removing = SegmentLayout.removing(sb, so);
        boolean addingLinked = false;
        boolean removingLinked = false;
        long count = 0;
        long bytes = 0;
        for (long i = 0; i <= mask; i++) {
            long slot = SlotLayout.get(ab, ao, i, cellBytes);
            if (slot != SlotLayout.EMPTY) {
                long e = HashTable.entryAt(pool, slots, i, slot, cellBytes);
                if (!HashTable.isInline(e)) {
                    keep(e);
                    addingLinked |= adding != 0 && Pool.granuleOf(e) == Pool.granuleOf(adding);
                    removingLinked |= removing != 0 && Pool.granuleOf(e) == Pool.granuleOf(removing);
                }
                count++;
                bytes += HashTable.lengthAtRest(pool, e, cellBytes);
            }
        }
        if (inUse) { // (a recovery of the whole file sweeps what no segment links)
            freeUnlinked(adding, addingLinked, true);
            freeUnlinked(removing, removingLinked, false);
        }
        SegmentLayout.setAdding(sb, so, 0);
        SegmentLayout.setRemoving(sb, so, 0);
        entries += count;
        SegmentLayout.setCount(sb, so, count);
        SegmentLayout.setBytes(sb, so, bytes);
        if (tagsFit) {
            writeTags(pool, sb, so, cellBytes);
        }
    }

    /**
     * Frees the slice that an intent of the segment's dead holder names ({@link SegmentLayout}: adding, removing)
     * unless the segment links it: a private slice ({@code unseen}: adding) at once, a slice that was linked
     * (removing) by deletion, as handles may be open on it. An intent names a live slice only the holder could free;
     * the liveness check is for a damaged record.
     */
    private void freeUnlinked(long ref, boolean linked, boolean unseen) {
        if (ref == 0 || linked || !pool.isLive(ref)) {
            return;
        }
        if (unseen) {
            pool.deletePrivate(ref);
        } else {
            pool.delete(ref);
        }
        heldSlicesFreed++;
    }

    /**
     * Whether the entries of cells {@code twin} and {@code i} of slot array {@code slots}, two sound links of one
     * key, are one entry: two cells holding the same identity (a removal's shift copied the one into the other and
     * was cut off).
     */
    private boolean isCopy(long slots, long twin, long i) {
        MemorySegment ab = pool.segment(slots);
        long ao = pool.payloadOffset(slots);
        long a = HashTable.entryAt(pool, slots, twin, SlotLayout.get(ab, ao, twin, cellBytes), cellBytes);
        long b = HashTable.entryAt(pool, slots, i, SlotLayout.get(ab, ao, i, cellBytes), cellBytes);
        return HashTable.isInline(a) && HashTable.isInline(b)
                && EntryLayout.identity(pool.segment(a), pool.payloadOffset(a))
                        == EntryLayout.identity(pool.segment(b), pool.payloadOffset(b));
    }

    /**
     * The slot words that two or more slots of the array hold, sorted; {@link #copiesLeft} then holds how many slots
     * hold each. A shift moves slots that were already looked at (from the start of the array round to its end, in
     * a run that wraps), so a count rather than a set of words met tells a copy to drop from the last one left.
     * Copies are identical words: a slot naming the same granule with another tag is another (stale) link, which
     * the soundness check judges alone, so that it cannot take the sound link down with it. Slots of entries in
     * their cells are left out: those of one tag are alike whatever their entries, and a copy of such an entry,
     * which may be torn, is judged by its check word and then by its key.
     */
    private long[] duplicatedSlots(MemorySegment ab, long ao, long mask) {
        if (slotWords.length <= mask) {
            slotWords = new long[(int) (mask + 1)]; // at most 2^29 slots
        }
        int n = 0;
        for (long i = 0; i <= mask; i++) {
            long slot = SlotLayout.get(ab, ao, i, cellBytes);
            if (slot != SlotLayout.EMPTY && !SlotLayout.isInline(slot)) {
                slotWords[n++] = slot;
            }
        }
        Arrays.sort(slotWords, 0, n);
        int d = 0;
        copiesLeft = new int[0];
        for (int k = 1; k < n; k++) {
            if (slotWords[k] != slotWords[k - 1]) {
                continue;
            }
            if (d == 0 || slotWords[d - 1] != slotWords[k]) {
                slotWords[d++] = slotWords[k];
                if (copiesLeft.length < d) {
                    copiesLeft = Arrays.copyOf(copiesLeft, Math.max(4, 2 * d));
                }
                copiesLeft[d - 1] = 1;
            }
            copiesLeft[d - 1]++;
        }
        return Arrays.copyOf(slotWords, d);
    }

    private boolean hasEmptySlot(MemorySegment ab, long ao, long mask) {
        for (long i = 0; i <= mask; i++) {
            if (SlotLayout.get(ab, ao, i, cellBytes) == SlotLayout.EMPTY) {
                return true;
            }
        }
        return false;
    }

    /** The first empty slot from {@code home} up to {@code i} (cyclically), or -1 if the run is unbroken. */
    private long firstEmpty(MemorySegment ab, long ao, long mask, long home, long i) {
        for (long j = home; j != i; j = (j + 1) & mask) {
            if (SlotLayout.get(ab, ao, j, cellBytes) == SlotLayout.EMPTY) {
                return j;
            }
        }
        return -1;
    }

    /**
     * The entry that the occupied slot {@code slot} of cell {@code i} of segment {@code s}'s slot array
     * {@code slots} links, once an in-place update it was in is put back; 0 if it is unsound (see the class notes).
     */
    private long soundEntry(int s, int segments, long slots, long i, long slot) {
        try {
            long e = HashTable.entryAt(pool, slots, i, slot, cellBytes);
            int length = HashTable.lengthAtRest(pool, e, cellBytes);
            if (length < 0) {
                return 0;
            }
            MemorySegment eb = pool.segment(e);
            long eo = pool.payloadOffset(e);
            int keyLength = EntryLayout.keyLength(eb, eo);
            if (EntryLayout.valueOffset(keyLength) > length) {
                return 0;
            }
            long hash = KeyHash.of(eb, eo + EntryLayout.KEY, keyLength);
            if (HashTable.segmentOf(hash, segments) != s || SlotLayout.tagBits(hash) != SlotLayout.tagOf(slot)) {
                return 0;
            }
            long stamp = SliceStamp.acquire(eb, EntryLayout.stampAt(eo));
            if (SliceStamp.isWriting(stamp)) {
                if (e == imageEntry && BeforeImage.restore(pool, image, e, length)) {
                    restoredValues++;
                    if (checked) {
                        EntryLayout.seal(eb, eo, length); // the update may have sealed its new value already
                    }
                } else {
                    tornValues++;
                }
                SliceStamp.endWrite(eb, EntryLayout.stampAt(eo), stamp);
            }
            return !checked || EntryLayout.check(eb, eo, length) == EntryLayout.storedCheck(eb, eo) ? e : 0;
        } catch (RuntimeException outsideThePool) {
            return 0;
        }
    }

    private void keep(long ref) {
        if (inUse) {
            return; // no sweep follows
        }
        if (liveCount == live.length) {
            live = Arrays.copyOf(live, liveCount * 2);
        }
        live[liveCount++] = ref;
    }
}
