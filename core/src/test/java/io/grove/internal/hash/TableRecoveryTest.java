package io.grove.internal.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.Reclamation;
import io.grove.internal.memory.Pool;
import io.grove.internal.view.SliceStamp;
import io.grove.serial.Serializers;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link TableRecovery} repairs each state a process killed at any instruction leaves in a table, built here by
 * stopping an operation's stores half-way: afterwards {@link TableCheck} finds nothing and the map holds exactly
 * its entries and keeps working.
 */
class TableRecoveryTest {
    private static final int CELL = SlotLayout.SLOT_CELL;

    private static final OffHeapHashMap.Bounds<Long, String> UNBOUNDED =
            new OffHeapHashMap.Bounds<>(Long.MAX_VALUE, Long.MAX_VALUE, null, false);

    private static Pool pool() {
        return new Pool(1 << 16, 1 << 28, Reclamation.NOVA);
    }

    private static OffHeapHashMap<Long, String> map(Pool pool) {
        return new OffHeapHashMap<>(pool, false, Serializers.longs(), Serializers.strings(), 16, UNBOUNDED);
    }

    private static TableRecovery.Result repair(Pool pool, OffHeapHashMap<?, ?> map) {
        int cellBytes = map.table.cellBytes();
        TableRecovery.Result result = TableRecovery.repair(pool, map.directory(), cellBytes, Long.MAX_VALUE,
                Long.MAX_VALUE);
        TableRecovery.replaceTags(pool, map.directory(), cellBytes, result.taglessSegments()); // not a file's pool
        assertEquals(List.of(), TableCheck.check(pool, map.directory()).problems(), "after the repair");
        return result;
    }

    /**
     * Puts keys 0, 1, ... until segment 0 has an occupied slot followed by a displaced entry (one not in its home
     * slot, so a removal of the first shifts it back); returns the first slot's index.
     */
    /** Puts keys 0-99 with values "v0"-"v99" and returns the same entries in a {@link HashMap}. */
    private static Map<Long, String> fillHundred(OffHeapHashMap<Long, String> map) {
        Map<Long, String> reference = new HashMap<>();
        for (long k = 0; k < 100; k++) {
            map.put(k, "v" + k);
            reference.put(k, "v" + k);
        }
        return reference;
    }

    private static long fillUntilARunHasADisplacedEntry(OffHeapHashMap<Long, String> map,
            Map<Long, String> reference) {
        HashTable table = map.table;
        Pool pool = map.pool();
        for (long k = 0; ; k++) {
            map.put(k, "value " + k);
            reference.put(k, "value " + k);
            MemorySegment sb = table.block(0);
            long so = table.offset(0);
            long slots = SegmentLayout.slots(sb, so);
            long mask = (1L << SegmentLayout.slotBits(sb, so)) - 1;
            for (long i = 0; i <= mask; i++) {
                long slot = SlotLayout.get(pool.segment(slots), pool.payloadOffset(slots), i, CELL);
                long next = SlotLayout.get(pool.segment(slots), pool.payloadOffset(slots), (i + 1) & mask, CELL);
                if (slot != SlotLayout.EMPTY && next != SlotLayout.EMPTY
                        && SlotLayout.home(next, mask) != ((i + 1) & mask)) {
                    return i;
                }
            }
        }
    }

    /**
     * A removal killed after its shift copied the next entry of the run into the removed entry's slot and before
     * it emptied the copy's old slot: one entry in two slots. Recovery empties the second, so the table is sound
     * and holds exactly the other entries. Without the duplicate removal, {@link TableCheck} reports the granule
     * named twice and the count is one too many.
     */
    @Test
    void aRemovalCutOffInItsShiftLeavesACopyThatIsRemoved() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            Map<Long, String> reference = new HashMap<>();
            MemorySegment sb = map.table.block(0);
            long so = map.table.offset(0);
            cutOffRemovalShift(map, fillUntilARunHasADisplacedEntry(map, reference));
            SegmentLayout.setVersion(sb, so, SegmentLayout.version(sb, so) + 1); // readers may look now
            List<Long> lost = reference.keySet().stream().filter(k -> map.get(k) == null).toList();
            assertEquals(1, lost.size(), "the removed entry's key");
            reference.remove(lost.getFirst());

            TableRecovery.Result result = repair(pool, map);
            assertEquals(1, result.duplicatesRemoved());
            assertEquals(reference, new HashMap<>(map));
            assertEquals(reference.size(), map.size());
            map.put(-1L, "after");
            assertEquals("after", map.get(-1L));
        }
    }

    /**
     * A slot array whose every slot names one entry (pages of different ages after an operating-system crash can
     * leave an array without an empty slot): the repair ends, keeps the entry once and leaves a sound table. Without
     * the check for an empty slot, the first shift of a copy never ends.
     */
    @Test
    void aSlotArrayWithoutAnEmptySlotIsRepaired() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            Map<Long, String> reference = fillHundred(map);
            int fullest = 0;
            for (int t = 1; t < map.table.segmentCount(); t++) {
                fullest = map.table.count(t) > map.table.count(fullest) ? t : fullest;
            }
            MemorySegment sb = map.table.block(fullest);
            long so = map.table.offset(fullest);
            long slots = SegmentLayout.slots(sb, so);
            long mask = (1L << SegmentLayout.slotBits(sb, so)) - 1;
            MemorySegment ab = pool.segment(slots);
            long ao = pool.payloadOffset(slots);
            long entriesBefore = SegmentLayout.count(sb, so);
            long kept = SlotLayout.EMPTY;
            for (long i = 0; kept == SlotLayout.EMPTY; i++) {
                kept = SlotLayout.get(ab, ao, i, CELL);
            }
            for (long i = 0; i <= mask; i++) {
                SlotLayout.set(ab, ao, i, CELL, kept);
            }
            SegmentLayout.setCount(sb, so, mask + 1);

            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> repair(pool, map));
            Map<Long, String> left = new HashMap<>(map);
            assertEquals(reference.size() - entriesBefore + 1, left.size(), "the segment's other entries are gone");
            left.forEach((k, v) -> assertEquals(reference.get(k), v));
        }
    }

    /**
     * 15 entries in a 16-slot array (the most a segment that cannot grow holds), one of them cut off from its home
     * by the only empty slot (a torn page): the repair links it again in that slot and empties its old one. Before
     * shifts were bounded, the shift after the relink looked for an empty slot that no longer existed and never
     * ended.
     */
    @Test
    void anEntryCutOffByTheOnlyEmptySlotIsLinkedAgain() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            HashTable table = map.table;
            for (long k = 0; occupiedSlots(pool, table, 0).size() < 15; k++) {
                map.put(k, "v" + k);
            }
            List<Long> fifteen = occupiedSlots(pool, table, 0).subList(0, 15);
            Map<Long, String> reference = new HashMap<>();
            Scratch scratch = map.scratchForIteration();
            for (long slot : fifteen) {
                Long key = map.readKey(pool.currentReference(SlotLayout.granule(slot)), scratch);
                reference.put(key, map.get(key));
            }
            scratch.release();
            long mask = 15;
            long array = pool.allocate(SlotLayout.bytesFor(4, CELL));
            MemorySegment ab = pool.segment(array);
            long ao = pool.payloadOffset(array);
            for (long slot : fifteen) { // by linear probing: a sound array with one empty slot
                long i = SlotLayout.home(slot, mask);
                while (SlotLayout.get(ab, ao, i, CELL) != SlotLayout.EMPTY) {
                    i = (i + 1) & mask;
                }
                SlotLayout.set(ab, ao, i, CELL, slot);
            }
            long empty = 0;
            while (SlotLayout.get(ab, ao, empty, CELL) != SlotLayout.EMPTY) {
                empty++;
            }
            long after = (empty + 1) & mask;
            long before = (empty - 1) & mask;
            while (SlotLayout.home(SlotLayout.get(ab, ao, before, CELL), mask) == after) {
                before = (before - 1) & mask;
            }
            long cutOff = SlotLayout.get(ab, ao, before, CELL);
            // its home is 'after', a run's start
            SlotLayout.set(ab, ao, before, CELL, SlotLayout.get(ab, ao, after, CELL));
            SlotLayout.set(ab, ao, after, CELL, cutOff); // its home is before the empty slot
            SegmentLayout.setSlots(table.block(0), table.offset(0), array);
            SegmentLayout.setSlotBits(table.block(0), table.offset(0), 4);

            TableRecovery.Result result = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> repair(pool, map));
            assertEquals(1, result.misplacedRelinked());
            reference.forEach((k, v) -> assertEquals(v, map.get(k), "key " + k));
        }
    }

    /**
     * A stale slot (from an older page) names the granule of a sound entry with another key's tag, later in the
     * array than the sound slot: the stale link is dropped, the sound one kept. When copies were told apart by
     * granule alone, the first met was dropped as a copy and the stale one as unsound: the entry was lost.
     */
    @Test
    void aStaleSlotNamingASoundEntryDoesNotTakeItDown() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            HashTable table = map.table;
            for (long k = 0; occupiedSlots(pool, table, 0).size() < 3; k++) {
                map.put(k, "v" + k);
            }
            long slots = SegmentLayout.slots(table.block(0), table.offset(0));
            MemorySegment ab = pool.segment(slots);
            long ao = pool.payloadOffset(slots);
            long first = 0;
            while (SlotLayout.get(ab, ao, first, CELL) == SlotLayout.EMPTY) {
                first++;
            }
            long slot = SlotLayout.get(ab, ao, first, CELL);
            long last = (1L << table.slotBits(0)) - 1;
            while (SlotLayout.get(ab, ao, last, CELL) != SlotLayout.EMPTY) {
                last--;
            }
            long staleTag = SlotLayout.tagBits(last ^ (1L << 20)); // its home is 'last'; another key's tag
            SlotLayout.set(ab, ao, last, CELL, staleTag | SlotLayout.granule(slot));
            Scratch scratch = map.scratchForIteration();
            Long key = map.readKey(pool.currentReference(SlotLayout.granule(slot)), scratch);
            scratch.release();
            String value = map.get(key);

            TableRecovery.Result result = repair(pool, map);
            assertEquals(1, result.unsoundDropped());
            assertEquals(value, map.get(key), "the sound entry of key " + key);
        }
    }

    /**
     * Two sound entries of one key linked in one run (a torn page kept the slot of an entry a later removal had
     * unlinked, while the page with the new entry's slot was written): verify reports it, and the repair drops
     * the link lookups do not reach, so that a removal of the key does not bring the old value back.
     */
    @Test
    void aKeyLinkedTwiceKeepsTheLinkLookupsFind() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            map.put(7L, "new");
            Scratch scratch = map.begin(7L);
            int s = map.table.segmentOf(scratch.keyHash());
            long stale = map.newEntry(s, "old", Serializers.strings().size("old"), scratch);
            map.table.insert(s, scratch, stale); // the stale link, later in the run
            scratch.release();
            assertTrue(TableCheck.check(pool, map.directory()).problems().stream()
                    .anyMatch(p -> p.contains("too (lookups find only that one)")));

            TableRecovery.Result result = repair(pool, map);
            assertEquals(1, result.repeatedKeysDropped());
            assertEquals("new", map.get(7L));
            map.remove(7L);
            assertNull(map.get(7L), "after remove(7)");
        }
    }

    private static List<Long> occupiedSlots(Pool pool, HashTable table, int s) {
        long slots = SegmentLayout.slots(table.block(s), table.offset(s));
        List<Long> occupied = new ArrayList<>();
        for (long i = 0; i < 1L << table.slotBits(s); i++) {
            long slot = SlotLayout.get(pool.segment(slots), pool.payloadOffset(slots), i, CELL);
            if (slot != SlotLayout.EMPTY) {
                occupied.add(slot);
            }
        }
        return occupied;
    }

    /**
     * Growth killed after it installed the new slot array and before it recorded its size, before or after it
     * installed the new tag array: the size follows the slot array's length, and a tag array of the old size is
     * replaced. Without the repair, lookups take homes modulo the old size in the larger array, and
     * {@link TableCheck} reports the array's length.
     */
    @ParameterizedTest(name = "tags installed: {0}")
    @ValueSource(booleans = {false, true})
    void aGrowthCutOffBeforeItRecordedTheNewSizeIsCompleted(boolean tagsInstalled) {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            Map<Long, String> reference = fillHundred(map);
            MemorySegment sb = map.table.block(3);
            long so = map.table.offset(3);
            int bits = SegmentLayout.slotBits(sb, so);
            growWithoutTags(pool, sb, so);
            if (tagsInstalled) { // empty tags of the new size: the repair writes them
                SegmentLayout.setTags(sb, so, pool.allocate(TagLayout.bytesFor(bits + 1)));
            }

            TableRecovery.Result result = repair(pool, map);
            assertEquals(1, result.growthsFixed());
            assertEquals(tagsInstalled ? 0 : 1, result.taglessSegments().length);
            assertEquals(reference, new HashMap<>(map));
        }
    }

    /**
     * An insertion killed after it stored its slot and before its tag (or a tag page older than its slot page,
     * after an operating-system crash): lookups of the key stop at the empty tag, and {@link TableCheck} reports it;
     * the repair rewrites every tag from the entries.
     */
    @Test
    void aTagThatLagsItsSlotIsRewritten() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            Map<Long, String> reference = fillHundred(map);
            int s = 0;
            while (map.table.count(s) == 0) {
                s++;
            }
            MemorySegment sb = map.table.block(s);
            long so = map.table.offset(s);
            long slots = SegmentLayout.slots(sb, so);
            long tags = SegmentLayout.tags(sb, so);
            long i = 0;
            while (SlotLayout.get(pool.segment(slots), pool.payloadOffset(slots), i, CELL) == SlotLayout.EMPTY) {
                i++;
            }
            Long key = map.readKey(pool.currentReference(
                    SlotLayout.granule(SlotLayout.get(pool.segment(slots), pool.payloadOffset(slots), i, CELL))),
                    map.scratchForIteration());
            TagLayout.set(pool.segment(tags), pool.payloadOffset(tags), i, TagLayout.EMPTY);
            assertNull(map.get(key), "the probe stops at an empty tag");
            assertEquals(1, TableCheck.check(pool, map.directory()).problems().size());

            TableRecovery.Result result = repair(pool, map);
            assertEquals(0, result.taglessSegments().length);
            assertEquals(reference, new HashMap<>(map));
        }
    }

    /**
     * A writer killed inside a mutation, holding the lock, after it linked an entry and before it counted it: the
     * lock is released, the version made even and the count redone, so the next writer of the segment does not
     * wait for ever.
     */
    @Test
    void aLockedSegmentInTheMiddleOfAMutationIsReleasedAndRecounted() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            for (long k = 0; k < 500; k++) {
                map.put(k, "v" + k);
            }
            MemorySegment sb = map.table.block(0);
            long so = map.table.offset(0);
            assertTrue(SegmentLayout.tryLock(sb, so, 1));
            SegmentLayout.setOwner(sb, so, 1, 12345);
            SegmentLayout.beginMutation(sb, so);
            SegmentLayout.setCount(sb, so, SegmentLayout.count(sb, so) + 7);

            TableRecovery.Result result = repair(pool, map);
            assertEquals(1, result.unlocked());
            assertEquals(1, result.mutationsEnded());
            assertEquals(500, map.size());
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                for (long k = 0; k < 500; k++) {
                    map.put(k, "w" + k); // every segment, the one that was locked included
                }
            });
            assertEquals("w0", map.get(0L));
        }
    }

    /**
     * Segments that a process which ended left locked (lock value 6: its record 5), one in a removal cut off in its
     * shift, one in a growth cut off before it installed its tag array, are repaired one at a time by a thread that
     * took their locks over, as while the table stays in use: the tag array is replaced at once, and each repaired
     * segment's version ends even and its lock free.
     */
    @Test
    void segmentsLeftLockedByAnEndedProcessAreRepairedWhileTheTableIsInUse() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            Map<Long, String> reference = new HashMap<>();
            long i = fillUntilARunHasADisplacedEntry(map, reference);
            assertTrue(SegmentLayout.tryLock(map.table.block(0), map.table.offset(0), 6));
            cutOffRemovalShift(map, i);
            MemorySegment grownBlock = map.table.block(3);
            long grown = map.table.offset(3);
            assertTrue(SegmentLayout.tryLock(grownBlock, grown, 6));
            growWithoutTags(pool, grownBlock, grown);

            TableRecovery repair = TableRecovery.whileInUse(pool, CELL);
            for (int s : new int[] {0, 3}) {
                MemorySegment block = map.table.block(s);
                long offset = map.table.offset(s);
                assertTrue(SegmentLayout.takeOver(block, offset, 6, 1, Thread.currentThread().threadId()));
                repair.repairAbandoned(s, map.table.segmentCount(), block, offset);
                assertEquals(0, SegmentLayout.lockValue(block, offset));
                assertEquals(0, SegmentLayout.versionAcquire(block, offset) & 1);
            }
            TableRecovery.Result result = repair.result(2);
            assertEquals(1, result.duplicatesRemoved());
            assertEquals(1, result.growthsFixed());
            assertEquals(0, result.taglessSegments().length, "replaced at once");
            assertEquals(List.of(), TableCheck.check(pool, map.directory()).problems(), "after the repair");
            reference.remove(reference.keySet().stream().filter(k -> map.get(k) == null).findFirst().orElseThrow());
            assertEquals(reference, new HashMap<>(map));
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                for (long k = 0; k < 500; k++) {
                    map.put(k, "w" + k); // every segment, the repaired ones included
                }
            });
        }
    }

    /**
     * A lock taken over from an ended process whose holding thread had the id of a thread of the taking process (each
     * JVM numbers its threads from 1) never looks held by that thread: the owner field is the taker's from the moment
     * the lock names the taker's process. (The stress test of several processes once saw a put fail as a "recursive
     * update" when the owner was written after the lock.)
     */
    @Test
    void aLockTakenOverNeverShowsTheDeadThreadAsItsHolder() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            MemorySegment sb = map.table.block(0);
            long so = map.table.offset(0);
            long sameId = Thread.currentThread().threadId();
            assertTrue(SegmentLayout.tryLock(sb, so, 6));
            SegmentLayout.setOwner(sb, so, 6, sameId); // the dead process's thread had this id
            assertTrue(SegmentLayout.takeOver(sb, so, 6, 1, sameId + 1));
            assertTrue(!SegmentLayout.heldBy(sb, so, 1, sameId));
            assertTrue(SegmentLayout.heldBy(sb, so, 1, sameId + 1));
            assertTrue(!SegmentLayout.takeOver(sb, so, 6, 1, sameId), "no longer the dead process's");
        }
    }

    /**
     * A thread never takes a lock that its process holds for its own when the owner word is that of a thread of
     * another process with the same id: the two words a thread waiting for the lock could read one after the other,
     * the lock while another thread of its process held it and the owner once that thread had given it back and
     * the other process's thread had taken it. (Two processes of {@code CrossProcessLinearizabilityTest}, whose
     * threads have the same ids, once made a writer take itself for the holder this way; it gave up its count of
     * operations under a lock and went on waiting, and its process's close waited for that count for ever.)
     */
    @Test
    void aThreadOfAnotherProcessWithTheSameIdIsNeverTakenForTheHolder() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            MemorySegment sb = map.table.block(0);
            long so = map.table.offset(0);
            long sameId = Thread.currentThread().threadId();
            assertTrue(SegmentLayout.tryLock(sb, so, 1));
            SegmentLayout.setOwner(sb, so, 2, sameId);
            assertTrue(!SegmentLayout.heldBy(sb, so, 1, sameId));
            SegmentLayout.setOwner(sb, so, 1, sameId);
            assertTrue(SegmentLayout.heldBy(sb, so, 1, sameId));
            SegmentLayout.clearOwner(sb, so);
            SegmentLayout.unlock(sb, so);
        }
    }

    /**
     * The state a removal killed in its shift leaves in segment 0, whose slot {@code i} is followed by a displaced
     * entry: the mutation open, the next slot copied into slot {@code i} and not emptied yet.
     */
    private static void cutOffRemovalShift(OffHeapHashMap<Long, String> map, long i) {
        Pool pool = map.pool();
        MemorySegment sb = map.table.block(0);
        long so = map.table.offset(0);
        long slots = SegmentLayout.slots(sb, so);
        long mask = (1L << SegmentLayout.slotBits(sb, so)) - 1;
        MemorySegment ab = pool.segment(slots);
        long ao = pool.payloadOffset(slots);
        SegmentLayout.beginMutation(sb, so);
        SlotLayout.set(ab, ao, i, CELL, SlotLayout.get(ab, ao, (i + 1) & mask, CELL));
    }

    /**
     * Doubles the slot array of the segment at {@code so} in {@code sb} and installs it without a tag array of its size
     * or its new size recorded: a growth cut off.
     */
    private static void growWithoutTags(Pool pool, MemorySegment sb, long so) {
        int bits = SegmentLayout.slotBits(sb, so);
        long old = SegmentLayout.slots(sb, so);
        long fresh = pool.allocate(SlotLayout.bytesFor(bits + 1, CELL));
        long mask = (2L << bits) - 1;
        for (long i = 0; i < 1L << bits; i++) {
            long slot = SlotLayout.get(pool.segment(old), pool.payloadOffset(old), i, CELL);
            if (slot != SlotLayout.EMPTY) {
                long j = SlotLayout.home(slot, mask);
                while (SlotLayout.get(pool.segment(fresh), pool.payloadOffset(fresh), j, CELL) != SlotLayout.EMPTY) {
                    j = (j + 1) & mask;
                }
                SlotLayout.set(pool.segment(fresh), pool.payloadOffset(fresh), j, CELL, slot);
            }
        }
        SegmentLayout.setSlots(sb, so, fresh);
    }

    /** An in-place update killed half-way (entry stamp odd): the stamp is made even and the entry counted torn. */
    @Test
    void anInPlaceUpdateCutOffIsCountedTorn() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            map.put(1L, "one");
            long e = 0;
            for (int s = 0; s < map.table.segmentCount() && e == 0; s++) {
                long slots = SegmentLayout.slots(map.table.block(s), map.table.offset(s));
                for (long i = 0; i < 1L << map.table.slotBits(s) && e == 0; i++) {
                    long slot = SlotLayout.get(pool.segment(slots), pool.payloadOffset(slots), i, CELL);
                    e = slot == SlotLayout.EMPTY ? 0 : pool.currentReference(SlotLayout.granule(slot));
                }
            }
            SliceStamp.beginWrite(pool.segment(e), EntryLayout.stampAt(pool.payloadOffset(e)));

            TableRecovery.Result result = repair(pool, map);
            assertEquals(1, result.tornValues());
            assertEquals("one", map.get(1L));
        }
    }
}
