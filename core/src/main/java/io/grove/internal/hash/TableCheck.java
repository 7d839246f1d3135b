package io.grove.internal.hash;

import io.grove.internal.memory.Pool;
import io.grove.internal.view.SliceStamp;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Walks a hash table at rest (no operation running on it), writing nothing, and checks every invariant of its format
 * ({@code docs/memory-layout.md}, "Hash map"), collecting each violation as a sentence naming the segment, slot
 * and reference where it is. For the file tool's {@code verify} and for tests; never on an operation's path.
 *
 * <p>Checked, per segment: the record is live, unlocked, stable (even version) and not closed; its slot array is a
 * live slice of exactly {@code C << bits} bytes (cells of {@code C} bytes: 8 for slots only) with at least one empty
 * slot, its tag array one of {@code 1 << bits} bytes whose tags are zero exactly at the empty slots; every occupied
 * slot names a live slice no other slot names, or holds its entry in its cell (a length that fits the cell), whose
 * fields fit its length, whose stamp is even, whose key hashes to this segment, to the slot's tag and to the
 * slot's entry in the tag array, which lies in the run of occupied slots from its home (no empty slot between),
 * whose key no other entry before it in that run has, and whose check word matches its bytes (in a table in a
 * file); the entries found and their bytes add up to the segment's count and byte total.
 *
 * <p>The salvage ({@link #salvage}) walks the same way and hands out each entry found sound on the way (every check of
 * the entry itself passed), including those of a segment whose other invariants fail; a segment whose slot or tag
 * array cannot be read gives nothing.
 */
public final class TableCheck {
    private final Pool pool;
    private final HashTable table;
    /** The bytes of each cell of the table's slot arrays ({@link SlotLayout}). */
    private final int cellBytes;
    private final boolean checked;
    /** Given each sound entry's key and value, or {@code null} for a check only. */
    private final BiConsumer<MemorySegment, MemorySegment> salvaged;
    private final List<String> problems = new ArrayList<>();
    private long entries;
    private long bytes;
    private long slots;

    /**
     * What a walk found: the table's segments, the entries linked and their bytes, the slots of all arrays, the
     * bytes of each cell of the arrays (0 if the table could not be read), and every problem (none if the table is
     * sound).
     */
    public record Report(int segments, long entries, long bytes, long slots, int cellBytes, List<String> problems) {}

    private TableCheck(Pool pool, HashTable table, BiConsumer<MemorySegment, MemorySegment> salvaged) {
        this.pool = pool;
        this.table = table;
        this.cellBytes = table.cellBytes();
        this.checked = pool.inFile();
        this.salvaged = salvaged;
    }

    /** Walks the table rooted at {@code directory} on {@code pool}. */
    public static Report check(Pool pool, long directory) {
        return walk(pool, directory, null);
    }

    /**
     * Walks the table rooted at {@code directory} on {@code pool} as {@link #check} does, giving {@code salvaged} the
     * key and the value of each entry found sound (slices of the pool's memory, valid while it is open); a key linked
     * twice is given twice.
     */
    public static Report salvage(Pool pool, long directory, BiConsumer<MemorySegment, MemorySegment> salvaged) {
        return walk(pool, directory, salvaged);
    }

    /**
     * The entries that the segments' records of the table rooted at {@code directory} count, read without a walk; 0
     * if the directory cannot be read.
     */
    public static long counted(Pool pool, long directory) {
        try {
            HashTable table = new HashTable(pool, true, directory);
            long counted = 0;
            for (int s = 0; s < table.segmentCount(); s++) {
                counted += Math.max(0, SegmentLayout.count(table.block(s), table.offset(s)));
            }
            return counted;
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private static Report walk(Pool pool, long directory, BiConsumer<MemorySegment, MemorySegment> salvaged) {
        HashTable table;
        try {
            table = new HashTable(pool, true, directory);
        } catch (RuntimeException e) {
            return new Report(0, 0, 0, 0, 0, List.of("directory: " + e.getMessage()));
        }
        TableCheck check = new TableCheck(pool, table, salvaged);
        for (int s = 0; s < table.segmentCount(); s++) {
            try {
                check.segment(s);
            } catch (RuntimeException e) { // a reference outside the pool's memory, in a damaged table
                check.problem(s, "the walk stopped: " + e);
            }
        }
        return new Report(table.segmentCount(), check.entries, check.bytes, check.slots, check.cellBytes,
                check.problems);
    }

    private void problem(int s, String what) {
        problems.add("segment " + s + ": " + what);
    }

    private void segment(int s) {
        MemorySegment sb = table.block(s);
        long so = table.offset(s);
        // (a segment marked closed is free at rest: a map's close leaves the mark, its next opening frees it)
        if (SegmentLayout.isLocked(sb, so) || SegmentLayout.owner(sb, so) != 0) {
            problem(s, "locked (lock " + SegmentLayout.lockValue(sb, so) + ", owner "
                    + SegmentLayout.describeOwner(SegmentLayout.owner(sb, so)) + ")");
        }
        if ((SegmentLayout.versionAcquire(sb, so) & 1) != 0) {
            problem(s, "in the middle of a mutation (odd version " + SegmentLayout.versionAcquire(sb, so) + ")");
        }
        if (SegmentLayout.adding(sb, so) != 0 || SegmentLayout.removing(sb, so) != 0) {
            problem(s, "an operation's intents left set (adding " + SegmentLayout.adding(sb, so) + ", removing "
                    + SegmentLayout.removing(sb, so) + ")");
        }
        int bits = SegmentLayout.slotBits(sb, so);
        if (bits < SegmentGrowth.MIN_SLOT_BITS || bits > SlotLayout.MAX_BITS) {
            problem(s, "a slot array of 2^" + bits + " slots");
            return;
        }
        this.slots += 1L << bits;
        long array = SegmentLayout.slots(sb, so);
        if (!pool.isLive(array)) {
            problem(s, "slot array: reference " + array + " is not a live slice");
            return;
        }
        if (pool.length(array) != (long) cellBytes << bits) {
            problem(s, "slot array: " + pool.length(array) + " bytes for 2^" + bits + " cells of " + cellBytes
                    + " bytes");
            return;
        }
        long tags = SegmentLayout.tags(sb, so);
        if (!pool.isLive(tags)) {
            problem(s, "tag array: reference " + tags + " is not a live slice");
            return;
        }
        if (pool.length(tags) != TagLayout.bytesFor(bits)) {
            problem(s, "tag array: " + pool.length(tags) + " bytes for 2^" + bits + " slots");
            return;
        }
        MemorySegment ab = pool.segment(array);
        long ao = pool.payloadOffset(array);
        MemorySegment tb = pool.segment(tags);
        long to = pool.payloadOffset(tags);
        long mask = (1L << bits) - 1;
        long empty = -1;
        for (long i = 0; i <= mask && empty < 0; i++) {
            if (SlotLayout.get(ab, ao, i, cellBytes) == SlotLayout.EMPTY) {
                empty = i;
            }
        }
        if (empty < 0) {
            problem(s, "no empty slot in the slot array: lookups of absent keys would not end");
            return;
        }
        Set<Long> granules = new HashSet<>();
        long found = 0;
        long foundBytes = 0;
        // From an empty slot on, so that every run is walked from its start and the distance to the last empty
        // slot bounds how far each entry may be from its home.
        long runStart = empty;
        for (long k = 1; k <= mask + 1; k++) {
            long i = (empty + k) & mask;
            long slot = SlotLayout.get(ab, ao, i, cellBytes);
            byte tag = TagLayout.get(tb, to, i);
            if (slot == SlotLayout.EMPTY) {
                if (tag != TagLayout.EMPTY) {
                    problem(s, "slot " + i + ": empty, but its tag is " + Integer.toHexString(tag & 0xFF)
                            + ": lookups read it");
                }
                runStart = i;
                continue;
            }
            long home = SlotLayout.home(slot, mask);
            if (SlotLayout.distance(home, i, mask) >= SlotLayout.distance(runStart, i, mask)) {
                problem(s, "slot " + i + ": its entry's home is slot " + home + ", before the empty slot " + runStart
                        + ": lookups miss it");
            }
            if (!SlotLayout.isInline(slot) && !granules.add(SlotLayout.granule(slot))) {
                problem(s, "slot " + i + ": names granule " + SlotLayout.granule(slot) + ", as another slot does");
                continue;
            }
            long length = entry(s, array, i, slot, tag);
            if (length >= 0) {
                found++;
                foundBytes += length;
            }
            long twin = HashTable.earlierLinkOfKey(pool, array, mask, home, i, cellBytes);
            if (twin >= 0) {
                problem(s, "slot " + i + ": its entry's key is linked at slot " + twin + " too (lookups find only"
                        + " that one)");
            }
        }
        long count = SegmentLayout.count(sb, so);
        if (found != count) {
            problem(s, "count " + count + ", but " + found + " entries are linked");
        }
        long total = SegmentLayout.bytes(sb, so);
        if (foundBytes != total) {
            problem(s, "byte total " + total + ", but the linked entries take " + foundBytes);
        }
        entries += found;
        bytes += foundBytes;
    }

    /**
     * Checks the entry that slot {@code slot} of cell {@code i} of slot array {@code array} links, whose tag in the
     * tag array is {@code tag}: its payload length, or -1 if it is not an entry.
     */
    private long entry(int s, long array, long i, long slot, byte tag) {
        int problemsBefore = problems.size();
        long e = HashTable.entryAt(pool, array, i, slot, cellBytes);
        String where = "slot " + i + ": entry " + e + (HashTable.isInline(e) ? " (in its cell)" : "");
        int length = HashTable.lengthAtRest(pool, e, cellBytes);
        if (length < 0) {
            problem(s, HashTable.isInline(e)
                    ? where + " has a length of " + pool.lengthUnchecked(e) + " bytes, and a cell holds at most "
                            + (cellBytes - SlotLayout.INLINE_ENTRY)
                    : "slot " + i + ": granule " + SlotLayout.granule(slot) + " is not a live slice");
            return -1;
        }
        MemorySegment eb = pool.segment(e);
        long eo = pool.payloadOffset(e);
        int keyLength = EntryLayout.keyLength(eb, eo);
        if (EntryLayout.valueOffset(keyLength) > length) {
            problem(s, where + " of " + length + " bytes says its key has " + keyLength + " bytes");
            return -1;
        }
        long stamp = SliceStamp.acquire(eb, EntryLayout.stampAt(eo));
        if (SliceStamp.isWriting(stamp)) {
            problem(s, where + " has an odd stamp " + stamp + " (an update did not finish)");
        }
        long hash = KeyHash.of(eb, eo + EntryLayout.KEY, keyLength);
        if (table.segmentOf(hash) != s || SlotLayout.tagBits(hash) != SlotLayout.tagOf(slot)) {
            problem(s, where + ": its key belongs to segment " + table.segmentOf(hash) + " with tag "
                    + Long.toHexString(SlotLayout.tagBits(hash)) + ", the slot has tag "
                    + Long.toHexString(SlotLayout.tagOf(slot)));
        }
        if (tag != TagLayout.tagOf(hash)) {
            problem(s, where + ": its key's tag is " + Integer.toHexString(TagLayout.tagOf(hash) & 0xFF)
                    + ", the tag array has " + Integer.toHexString(tag & 0xFF) + (tag == TagLayout.EMPTY
                            ? " (empty: lookups stop before it)" : " (lookups pass it by)"));
        }
        if (checked && EntryLayout.check(eb, eo, length) != EntryLayout.storedCheck(eb, eo)) {
            problem(s, where + ": check word " + Integer.toHexString(EntryLayout.storedCheck(eb, eo))
                    + ", but its bytes give " + Integer.toHexString(EntryLayout.check(eb, eo, length))
                    + " (a torn entry)");
        }
        if (salvaged != null && problems.size() == problemsBefore) {
            int valueAt = EntryLayout.valueOffset(keyLength);
            salvaged.accept(eb.asSlice(eo + EntryLayout.KEY, keyLength), eb.asSlice(eo + valueAt, length - valueAt));
        }
        return length;
    }
}
