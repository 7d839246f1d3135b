package io.grove.internal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveOutOfMemoryException;
import io.grove.MemoryFootprint;
import io.grove.Reclamation;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NovaAllocatorTest {
    private static final int BLOCK = 1 << 16;
    private Pool pool = new Pool(BLOCK, 4L * BLOCK, Reclamation.NOVA);

    @AfterEach
    void close() {
        pool.close();
    }

    private static long granule(long ref) {
        return Reference.granule(ref);
    }

    @Test
    void allocatedSliceHasItsLengthAndIsLive() {
        long ref = pool.allocate(100);
        assertTrue(pool.isLive(ref));
        assertEquals(100, pool.length(ref));
        assertEquals(0, pool.payloadOffset(ref) % 16, "payload is 16-byte aligned");
        pool.segment(ref).set(ValueLayout.JAVA_LONG, pool.payloadOffset(ref) + 88, 7L);
        assertEquals(7L, pool.segment(ref).get(ValueLayout.JAVA_LONG, pool.payloadOffset(ref) + 88));
    }

    @Test
    void zeroLengthSlicesAreDistinct() {
        long a = pool.allocate(0);
        long b = pool.allocate(0);
        assertNotEquals(granule(a), granule(b));
        assertEquals(0, pool.length(a));
    }

    @Test
    void deleteMakesEveryAccessThroughTheReferenceFail() {
        long ref = pool.allocate(64);
        assertTrue(pool.delete(ref));
        assertFalse(pool.isLive(ref));
        assertFalse(pool.delete(ref), "second delete of the same slice");
        assertThrows(ConcurrentModificationException.class, () -> pool.length(ref));
        assertThrows(ConcurrentModificationException.class, () -> pool.validate(ref));
        assertEquals(-1, pool.beginWrite(ref));
        assertFalse(pool.isLive(Reference.asDeleted(ref)));
    }

    /**
     * The release stripes a killed process leaves in its file may name a slice freed since (a batch swapped out for
     * reclaiming keeps its words until new deletions overwrite them), a slice twice, or an earlier incarnation of a
     * live slice: each is freed at most once and the live one never, so two allocations never get the same place.
     */
    @Test
    void aDeletedSliceNamedTwiceInReleaseStripesIsFreedOnce() {
        long ref = pool.allocate(200);
        long stale = pool.allocate(200);
        assertTrue(pool.delete(stale));
        pool.reclaimNow(); // stale's place is free
        long reused = pool.allocate(200); // and taken again, under a newer version
        assertEquals(granule(stale), granule(reused));
        assertTrue(pool.delete(ref)); // into this pool's stripes
        pool.reclaimNow(); // freed: on the free list of its size
        long[] left = new long[(int) (ReleaseLists.stripeBytes(NovaAllocator.BATCH_SIZE) / 8)]; // one stripe
        left[1] = ref; // freed already
        left[5] = ref;
        left[9] = stale; // a reference to an earlier incarnation of a live slice
        NovaAllocator nova = (NovaAllocator) pool.allocator();
        assertEquals(3, nova.adopt(MemorySegment.ofArray(left)));
        long first = pool.allocate(200);
        long second = pool.allocate(200);
        assertEquals(granule(ref), granule(first));
        assertNotEquals(granule(first), granule(second), "the slice was freed twice");
        assertNotEquals(granule(reused), granule(second), "a live slice was freed through a stale reference");
        assertTrue(pool.isLive(reused));
        assertEquals(0, MemorySegment.ofArray(left).get(ValueLayout.JAVA_LONG, 8), "the adopted stripe is emptied");
    }

    /**
     * An allocator made over a file's release area that names deleted slices (left by the process that had its record
     * before: one that ended, or one that closed while another process's writer held them) counts them as released
     * until it frees them, as an adoption does, so the footprint's released bytes end at 0 rather than below.
     */
    @Test
    void deletedSlicesTakenUpFromAReleaseAreaCountAsReleasedUntilFreed() {
        long ref = pool.allocate(200);
        long capacity = pool.footprint().allocatedBytes();
        assertTrue(pool.delete(ref)); // as the process before did; its reclaim never came
        long[] left = new long[(int) (ReleaseLists.FILE_STRIPES * ReleaseLists.stripeBytes(NovaAllocator.BATCH_SIZE)
                / 8)];
        left[3] = ref;
        int classes = FreeLists.classCount(BLOCK >>> SliceHeader.GRANULE_SHIFT);
        NovaAllocator taker = new NovaAllocator(pool.blocks(), new AllocatorWords.OnHeap(classes),
                new HazardSlots.OnHeap(), MemorySegment.ofArray(left));
        assertEquals(1, taker.takenUp());
        assertEquals(capacity, taker.releasedBytes());
        taker.save(); // reclaims what its stripes hold
        assertFalse(pool.isLive(ref));
        assertEquals(0, taker.releasedBytes());
    }

    @Test
    void reclaimedSliceIsReusedWithANewVersionAndOldReferencesStayStale() {
        long old = pool.allocate(200);
        assertTrue(pool.delete(old));
        pool.reclaimNow();
        long reused = pool.allocate(200);
        assertEquals(granule(old), granule(reused), "same size class reuses the freed place");
        assertNotEquals(Reference.version(old), Reference.version(reused));
        assertTrue(pool.isLive(reused));
        assertFalse(pool.isLive(old));
        assertFalse(pool.delete(old), "a stale reference cannot delete the new incarnation");
        assertTrue(pool.isLive(reused));
        assertEquals(-1, pool.beginWrite(old));
    }

    @Test
    void deletedSliceIsNotReusedBeforeReclamation() {
        long old = pool.allocate(200);
        assertTrue(pool.delete(old));
        long other = pool.allocate(200);
        assertNotEquals(granule(old), granule(other));
    }

    @Test
    void privateDeleteReusesAtOnce() {
        long ref = pool.allocate(48);
        pool.deletePrivate(ref);
        long next = pool.allocate(48);
        assertEquals(granule(ref), granule(next));
    }

    @Test
    void eraAdvancesOncePerReclaimedBatch() {
        NovaAllocator nova = (NovaAllocator) pool.allocator();
        long before = nova.era();
        pool.delete(pool.allocate(10));
        pool.reclaimNow();
        assertEquals(before + 1, nova.era());
        pool.reclaimNow(); // nothing to reclaim: the era stays
        assertEquals(before + 1, nova.era());
    }

    @Test
    void sliceAnnouncedByAWriterIsNotReusedUntilTheWriteEnds() throws Exception {
        long target = pool.allocate(100);
        CountDownLatch announced = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Thread writer = Thread.ofPlatform().start(() -> {
            long token = pool.beginWrite(target);
            assertTrue(token >= 0);
            announced.countDown();
            try {
                finish.await();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            pool.endWrite(token);
        });
        announced.await();
        assertTrue(pool.delete(target));
        pool.reclaimNow();
        for (int i = 0; i < 50; i++) {
            long r = pool.allocate(100);
            assertNotEquals(granule(target), granule(r), "reused while a writer holds it");
        }
        assertTrue(pool.footprint().releasedBytes() > 0, "the stalled slice waits in a release list");
        finish.countDown();
        writer.join();
        pool.reclaimNow();
        assertEquals(0, pool.footprint().releasedBytes());
        Set<Long> places = new HashSet<>();
        for (int i = 0; i < 5; i++) {
            places.add(granule(pool.allocate(100)));
        }
        assertTrue(places.contains(granule(target)), "reused once the writer is done");
    }

    @Test
    void memoryLimitThrowsAndLeavesThePoolUsable() {
        List<Long> refs = new ArrayList<>();
        GroveOutOfMemoryException oom = assertThrows(GroveOutOfMemoryException.class, () -> {
            while (true) {
                refs.add(pool.allocate(1000));
            }
        });
        assertTrue(oom.getMessage().contains("memory limit"), oom.getMessage());
        assertTrue(refs.size() > 200);
        assertEquals(4L * BLOCK, pool.footprint().reservedBytes());
        for (long r : refs) {
            assertTrue(pool.isLive(r));
        }
        assertTrue(pool.delete(refs.get(0)));
        long again = pool.allocate(1000); // the slow path reclaims the released slice
        assertEquals(granule(refs.get(0)), granule(again));
    }

    @Test
    void neighbouringFreeSlicesMergeForALargerRequest() {
        List<Long> small = new ArrayList<>();
        try {
            while (true) {
                small.add(pool.allocate(100));
            }
        } catch (GroveOutOfMemoryException expected) {
            // the pool is full of small slices
        }
        for (long r : small) {
            assertTrue(pool.delete(r));
        }
        long big = pool.allocate(BLOCK / 2);
        assertTrue(pool.isLive(big));
        assertEquals(BLOCK / 2, pool.length(big));
        for (long r : small) {
            assertFalse(pool.isLive(r), "a reference to a header merged away stays stale");
        }
        // the rest of the memory is still usable for small slices again
        for (int i = 0; i < 100; i++) {
            assertTrue(pool.isLive(pool.allocate(100)));
        }
    }

    /** Fills the whole payload of {@code ref} with {@code value}. */
    private void fill(long ref, byte value) {
        pool.segment(ref).asSlice(pool.payloadOffset(ref), pool.length(ref)).fill(value);
    }

    private void assertZero(long ref, String what) {
        long at = pool.payloadOffset(ref);
        for (int i = 0; i < pool.length(ref); i++) {
            assertEquals(0, pool.segment(ref).get(ValueLayout.JAVA_BYTE, at + i), what + ": byte " + i);
        }
    }

    @Test
    void reusedMemoryReadsZeroWhetherPoppedOrMergedOrPrivatelyDeleted() {
        long shared = pool.allocate(100);
        fill(shared, (byte) 0xAB);
        assertTrue(pool.delete(shared));
        pool.reclaimNow();
        long popped = pool.allocate(100);
        assertEquals(granule(shared), granule(popped), "reused from the free list");
        assertZero(popped, "a slice popped from the free list");

        long privately = pool.allocate(200);
        fill(privately, (byte) 0xCD);
        pool.deletePrivate(privately);
        long again = pool.allocate(200);
        assertEquals(granule(privately), granule(again));
        assertZero(again, "a slice deleted privately and reused");

        List<Long> small = new ArrayList<>();
        try {
            while (true) {
                long r = pool.allocate(100);
                fill(r, (byte) 0xEF);
                small.add(r);
            }
        } catch (GroveOutOfMemoryException expected) {
            // full: the next large request merges neighbours (old headers and free links inside its payload)
        }
        for (long r : small) {
            assertTrue(pool.delete(r));
        }
        assertZero(pool.allocate(BLOCK / 2), "a slice carved from merged free slices");
    }

    @Test
    void longChurnOfVaryingSizesStaysWithinASmallLimit() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        long[] live = new long[64];
        for (int i = 0; i < 1_000_000; i++) {
            int k = random.nextInt(live.length);
            if (live[k] != 0) {
                assertTrue(pool.delete(live[k]));
            }
            live[k] = pool.allocate(random.nextInt(2000));
        }
        MemoryFootprint f = pool.footprint();
        assertEquals(64, f.liveSlices());
        assertTrue(f.reservedBytes() <= 4L * BLOCK);
        long capacities = 0;
        for (long ref : live) {
            long g = Reference.granule(ref);
            capacities += SliceHeader.capacityGranules(pool.blocks().block(g), pool.blocks().offsetInBlock(g)) * 16;
        }
        assertEquals(capacities, f.liveBytes(), "live bytes agree with the live slices' headers: " + f);
    }

    @Test
    void footprintAddsUp() {
        MemoryFootprint empty = pool.footprint();
        assertEquals(0, empty.liveBytes());
        assertEquals(0, empty.liveSlices());
        long a = pool.allocate(100); // 16 + 112 bytes
        long b = pool.allocate(10); // 16 + 16 bytes
        MemoryFootprint two = pool.footprint();
        assertEquals(2, two.liveSlices());
        assertEquals(32, two.headerBytes());
        assertEquals(128 + 32, two.liveBytes());
        assertEquals(BLOCK, two.reservedBytes());
        pool.delete(a);
        assertEquals(128, pool.footprint().releasedBytes());
        assertEquals(32, pool.footprint().liveBytes());
        pool.reclaimNow();
        assertEquals(0, pool.footprint().releasedBytes());
        assertEquals(128, pool.footprint().freeBytes());
        pool.delete(b);
        pool.reclaimNow();
        assertEquals(0, pool.footprint().liveBytes());
    }

    @Test
    void badArgumentsAndUseAfterClose() {
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> pool.allocate(-1));
        assertTrue(negative.getMessage().contains("-1"), negative.getMessage());
        IllegalArgumentException tooLarge =
                assertThrows(IllegalArgumentException.class, () -> pool.allocate(BLOCK - 15));
        assertTrue(tooLarge.getMessage().contains(String.valueOf(BLOCK - 16)), tooLarge.getMessage());
        long largest = pool.allocate(BLOCK - 16);
        assertEquals(BLOCK - 16, pool.length(largest));
        long ref = pool.allocate(8);
        pool.close();
        assertTrue(pool.isClosed());
        assertThrows(IllegalStateException.class, () -> pool.allocate(8));
        assertThrows(IllegalStateException.class, () -> pool.delete(ref));
        assertThrows(IllegalStateException.class, () -> pool.isLive(ref));
        assertThrows(IllegalStateException.class, () -> pool.segment(ref).get(ValueLayout.JAVA_BYTE, 0));
        assertThrows(IllegalStateException.class, pool::footprint, "every use but the settings throws");
        assertEquals(4L * BLOCK, pool.memoryLimit());
        assertEquals(BLOCK, pool.blockSize());
        assertEquals(BLOCK - 16, pool.maxSliceSize());
        assertEquals(Reclamation.NOVA, pool.reclamation());
        assertTrue(pool.toString().contains("closed"), pool.toString());
        pool.close(); // idempotent
    }
}
