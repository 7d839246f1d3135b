package io.grove.internal.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.Reclamation;
import io.grove.internal.memory.Pool;
import io.grove.serial.Serializers;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** {@link TableCheck} finds nothing in sound tables and each kind of damage in a damaged one. */
class TableCheckTest {
    private static final OffHeapHashMap.Bounds<Long, String> UNBOUNDED =
            new OffHeapHashMap.Bounds<>(Long.MAX_VALUE, Long.MAX_VALUE, null, false);

    private static Pool pool() {
        return new Pool(1 << 16, 1 << 28, Reclamation.NOVA);
    }

    /** A table of 16 segments after random operations (mid-growth in some segments). */
    private static OffHeapHashMap<Long, String> filled(Pool pool) {
        OffHeapHashMap<Long, String> map = new OffHeapHashMap<>(pool, false, Serializers.longs(),
                Serializers.strings(), 16, UNBOUNDED);
        Random random = new Random(5);
        for (int step = 0; step < 5_000; step++) {
            long key = random.nextInt(3_000);
            if (random.nextInt(4) == 0) {
                map.remove(key);
            } else {
                map.put(key, "value " + step);
            }
        }
        return map;
    }

    @Test
    void aSoundTableHasNoProblemAtAnyPointOfItsGrowth() {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = new OffHeapHashMap<>(pool, false, Serializers.longs(),
                    Serializers.strings(), 16, UNBOUNDED);
            boolean sawGrowth = false;
            for (long k = 0; k < 4_000; k++) {
                map.put(k, "v" + k);
                if (k % 97 == 0) {
                    assertEquals(List.of(), TableCheck.check(pool, map.directory()).problems(), "after " + k);
                    sawGrowth |= growing(map);
                }
            }
            assertTrue(sawGrowth, "no check ran while a segment was growing");
            map.close();
        }
    }

    private static boolean growing(OffHeapHashMap<Long, String> map) {
        for (int s = 0; s < map.table.segmentCount(); s++) {
            if (SegmentLayout.oldBuckets(map.table.block(s), map.table.offset(s)) != 0) {
                return true;
            }
        }
        return false;
    }

    /** The first entry of the first non-empty bucket of segment 0: its block and payload offset. */
    private record Entry(long ref, MemorySegment block, long offset) {}

    private static Entry firstEntry(Pool pool, HashTable table) {
        MemorySegment sb = table.block(0);
        long so = table.offset(0);
        long buckets = SegmentLayout.buckets(sb, so);
        for (long b = 0; ; b++) {
            long e = SegmentLayout.bucket(pool.segment(buckets), pool.payloadOffset(buckets), b);
            if (e != 0 && e != SegmentLayout.MOVED) {
                return new Entry(e, pool.segment(e), pool.payloadOffset(e));
            }
        }
    }

    private static void assertFinds(String expected, Consumer<OffHeapHashMap<Long, String>> damage) {
        try (Pool pool = pool()) {
            OffHeapHashMap<Long, String> map = filled(pool);
            assertEquals(List.of(), TableCheck.check(pool, map.directory()).problems());
            damage.accept(map);
            List<String> problems = TableCheck.check(pool, map.directory()).problems();
            assertTrue(problems.stream().anyMatch(p -> p.contains(expected)),
                    () -> "expected a problem with '" + expected + "', got " + problems);
        }
    }

    @Test
    void aStoredHashThatIsNotTheKeysIsFound() {
        assertFinds("but its key hashes to", map -> {
            Entry e = firstEntry(map.pool(), map.table);
            e.block().set(java.lang.foreign.ValueLayout.JAVA_INT, e.offset() + EntryLayout.HASH,
                    EntryLayout.hash(e.block(), e.offset()) ^ 1);
        });
    }

    @Test
    void aCycleIsFound() {
        assertFinds("a cycle", map -> {
            Entry e = firstEntry(map.pool(), map.table);
            EntryLayout.setNext(e.block(), e.offset(), e.ref());
        });
    }

    @Test
    void aWrongCountIsFound() {
        assertFinds("entries are linked", map -> SegmentLayout.setCount(map.table.block(0), map.table.offset(0),
                SegmentLayout.count(map.table.block(0), map.table.offset(0)) + 1));
    }

    @Test
    void aHeldLockAndAnUnfinishedMutationAreFound() {
        assertFinds("locked", map -> SegmentLayout.tryLock(map.table.block(1), map.table.offset(1)));
        assertFinds("odd version", map -> SegmentLayout.beginMutation(map.table.block(1), map.table.offset(1)));
    }

    @Test
    void anUnfinishedInPlaceUpdateIsFound() {
        assertFinds("odd stamp", map -> {
            Entry e = firstEntry(map.pool(), map.table);
            io.grove.internal.view.SliceStamp.beginWrite(e.block(), EntryLayout.stampAt(e.offset()));
        });
    }

    @Test
    void aLinkToADeletedEntryIsFound() {
        assertFinds("is not a live slice", map -> {
            Entry e = firstEntry(map.pool(), map.table);
            map.pool().delete(e.ref());
        });
    }

    @Test
    void anEntryInTheWrongBucketIsFound() {
        assertFinds("belongs to segment", map -> {
            Entry e = firstEntry(map.pool(), map.table);
            MemorySegment sb = map.table.block(0);
            long so = map.table.offset(0);
            long buckets = SegmentLayout.buckets(sb, so);
            long n = 1L << SegmentLayout.bucketBits(sb, so);
            long home = EntryLayout.hash(e.block(), e.offset()) & (n - 1);
            long other = (home + 1) & (n - 1);
            MemorySegment bb = map.pool().segment(buckets);
            long bo = map.pool().payloadOffset(buckets);
            SegmentLayout.setBucket(bb, bo, home, EntryLayout.next(e.block(), e.offset()));
            EntryLayout.setNext(e.block(), e.offset(), SegmentLayout.bucket(bb, bo, other));
            SegmentLayout.setBucket(bb, bo, other, e.ref());
        });
    }
}
