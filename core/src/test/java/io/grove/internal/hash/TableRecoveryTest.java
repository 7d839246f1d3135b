package io.grove.internal.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.Reclamation;
import io.grove.internal.memory.Pool;
import io.grove.internal.view.SliceStamp;
import io.grove.serial.Serializers;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link TableRecovery} repairs each state a process killed at any instruction leaves in a table, built here by
 * stopping an operation's stores half-way: afterwards {@link TableCheck} finds nothing and the map holds exactly
 * its entries and keeps working.
 */
class TableRecoveryTest {
    private static final OffHeapHashMap.Bounds<Long, String> UNBOUNDED =
            new OffHeapHashMap.Bounds<>(Long.MAX_VALUE, Long.MAX_VALUE, null, false);

    private static Pool pool() {
        return new Pool(1 << 16, 1 << 28, Reclamation.NOVA);
    }

    private static OffHeapHashMap<Long, String> map(Pool pool) {
        return new OffHeapHashMap<>(pool, false, Serializers.longs(), Serializers.strings(), 16, UNBOUNDED);
    }

    private static TableRecovery.Result repair(Pool pool, OffHeapHashMap<?, ?> map) {
        TableRecovery.Result result = TableRecovery.repair(pool, map.directory(), Long.MAX_VALUE, Long.MAX_VALUE);
        assertEquals(List.of(), TableCheck.check(pool, map.directory()).problems(), "after the repair");
        return result;
    }

    /**
     * Puts keys 0, 1, ... until segment 0 grows with an old bucket still holding two entries or more; returns that
     * bucket.
     */
    private static long fillUntilSegmentZeroGrows(OffHeapHashMap<Long, String> map, Map<Long, String> reference) {
        HashTable table = map.table;
        for (long k = 0; ; k++) {
            map.put(k, "value " + k);
            reference.put(k, "value " + k);
            MemorySegment sb = table.block(0);
            long so = table.offset(0);
            long old = SegmentLayout.oldBuckets(sb, so);
            if (old == 0) {
                continue;
            }
            Pool pool = map.pool();
            long n = 1L << (SegmentLayout.bucketBits(sb, so) - 1);
            for (long b = n - 1; b >= SegmentLayout.cursor(sb, so); b--) {
                long head = SegmentLayout.bucket(pool.segment(old), pool.payloadOffset(old), b);
                if (head != 0 && head != SegmentLayout.MOVED
                        && EntryLayout.next(pool.segment(head), pool.payloadOffset(head)) != 0) {
                    return b;
                }
            }
        }
    }

    /**
     * A growth move killed after it unhooked an entry from its old chain and before it linked it into the new
     * one: the entry is in no chain (lost to readers) but recorded as moving; recovery links it. Fails with
     * {@code completeMove} disabled: the key is missing after the repair.
     */
    @Test
    void aGrowthMoveCutOffAfterTheUnhookIsCompleted() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            Map<Long, String> reference = new HashMap<>();
            long b = fillUntilSegmentZeroGrows(map, reference);
            MemorySegment sb = map.table.block(0);
            long so = map.table.offset(0);
            long old = SegmentLayout.oldBuckets(sb, so);
            long e = SegmentLayout.bucket(pool.segment(old), pool.payloadOffset(old), b);
            SegmentLayout.beginMutation(sb, so); // the kill's state: mutation open, entry unhooked, not yet linked
            SegmentLayout.setMoving(sb, so, e);
            SegmentLayout.setBucket(pool.segment(old), pool.payloadOffset(old), b,
                    EntryLayout.next(pool.segment(e), pool.payloadOffset(e)));
            SegmentLayout.setVersion(sb, so, SegmentLayout.version(sb, so) + 1); // readers may look now
            assertNotEquals(reference, new HashMap<>(map), "the entry in flight is in no chain before the repair");

            TableRecovery.Result result = repair(pool, map);
            assertEquals(1, result.movesCompleted());
            for (Map.Entry<Long, String> entry : reference.entrySet()) {
                assertEquals(entry.getValue(), map.get(entry.getKey()), "key " + entry.getKey());
            }
            assertEquals(reference, new HashMap<>(map));
            assertEquals(reference.size(), map.size());
            map.put(-1L, "after");
            assertEquals("after", map.get(-1L));
        }
    }

    /**
     * Killed after the first entry of an old bucket was linked into the new array, the others still in the old
     * bucket, which lookups search alone (it is not marked moved): recovery moves the rest of the bucket, so every
     * key is found, and links nothing twice. Without moving the rest, lookups of the first entry's key miss.
     */
    @Test
    void aGrowthMoveCutOffBetweenTwoEntriesFinishesTheBucket() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            Map<Long, String> reference = new HashMap<>();
            long b = fillUntilSegmentZeroGrows(map, reference);
            MemorySegment sb = map.table.block(0);
            long so = map.table.offset(0);
            long old = SegmentLayout.oldBuckets(sb, so);
            long buckets = SegmentLayout.buckets(sb, so);
            long e = SegmentLayout.bucket(pool.segment(old), pool.payloadOffset(old), b);
            long next = EntryLayout.next(pool.segment(e), pool.payloadOffset(e));
            long target = EntryLayout.hash(pool.segment(e), pool.payloadOffset(e))
                    & ((1L << SegmentLayout.bucketBits(sb, so)) - 1);
            SegmentLayout.setMoving(sb, so, e);
            SegmentLayout.setBucket(pool.segment(old), pool.payloadOffset(old), b, next);
            EntryLayout.setNext(pool.segment(e), pool.payloadOffset(e),
                    SegmentLayout.bucket(pool.segment(buckets), pool.payloadOffset(buckets), target));
            SegmentLayout.setBucket(pool.segment(buckets), pool.payloadOffset(buckets), target, e);

            assertTrue(reference.keySet().stream().anyMatch(k -> map.get(k) == null), "a key is lost before");

            TableRecovery.Result result = repair(pool, map);
            assertEquals(0, result.movesCompleted());
            for (Map.Entry<Long, String> entry : reference.entrySet()) {
                assertEquals(entry.getValue(), map.get(entry.getKey()), "key " + entry.getKey());
            }
            assertEquals(reference, new HashMap<>(map));
            assertEquals(reference.size(), map.size());
        }
    }

    /** A growth start killed after recording the old array and before installing the new one: no growth. */
    @Test
    void aGrowthStartCutOffIsUndone() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            Map<Long, String> reference = new HashMap<>();
            for (long k = 0; k < 5; k++) {
                map.put(k, "v" + k);
                reference.put(k, "v" + k);
            }
            MemorySegment sb = map.table.block(3);
            long so = map.table.offset(3);
            SegmentLayout.setOldBuckets(sb, so, SegmentLayout.buckets(sb, so));

            TableRecovery.Result result = repair(pool, map);
            assertEquals(1, result.growthsFixed());
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
            assertTrue(SegmentLayout.tryLock(sb, so));
            SegmentLayout.setOwner(sb, so, 12345);
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

    /** An in-place update killed half-way (entry stamp odd): the stamp is made even and the entry counted torn. */
    @Test
    void anInPlaceUpdateCutOffIsCountedTorn() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = map(pool);
            map.put(1L, "one");
            long e = 0;
            for (int s = 0; s < map.table.segmentCount() && e == 0; s++) {
                long buckets = SegmentLayout.buckets(map.table.block(s), map.table.offset(s));
                for (long b = 0; b < 1L << map.table.bucketBits(s) && e == 0; b++) {
                    e = SegmentLayout.bucket(pool.segment(buckets), pool.payloadOffset(buckets), b);
                }
            }
            SliceStamp.beginWrite(pool.segment(e), EntryLayout.stampAt(pool.payloadOffset(e)));

            TableRecovery.Result result = repair(pool, map);
            assertEquals(1, result.tornValues());
            assertEquals("one", map.get(1L));
        }
    }
}
