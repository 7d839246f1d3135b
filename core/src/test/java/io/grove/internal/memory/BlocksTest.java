package io.grove.internal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveOutOfMemoryException;
import io.grove.MemoryFootprint;
import io.grove.Reclamation;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BlocksTest {
    private static final int BLOCK = 1 << 16;

    /**
     * Blocks from an arena, except that the operating system refuses the reservations it is told to; regions of
     * {@code returnedFrom} bytes or more count as returned to the operating system.
     */
    private static final class RefusingSource implements BlockSource {
        private final Arena arena = Arena.ofShared();
        private final long returnedFrom;
        final List<Long> sizes = new ArrayList<>();
        int refusals;
        int reserved;

        RefusingSource(long returnedFrom) {
            this.returnedFrom = returnedFrom;
        }

        @Override
        public MemorySegment reserve(long bytes) {
            if (refusals > 0) {
                refusals--;
                throw new OutOfMemoryError("refused for the test");
            }
            reserved++;
            sizes.add(bytes);
            return arena.allocate(bytes, 16);
        }

        @Override
        public long returnedFrom() {
            return returnedFrom;
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    @Test
    void pastItsFirstBlocksAPoolReservesInGroupsThatGoBackToTheOperatingSystem() {
        RefusingSource source = new RefusingSource(3L * BLOCK); // groups of 3 blocks once 3 are reserved
        try (Pool pool = new Pool(BLOCK, 11L * BLOCK, Reclamation.NOVA, source)) {
            List<Long> refs = new ArrayList<>();
            try {
                for (long i = 0; ; i++) {
                    long ref = pool.allocate(4000);
                    pool.segment(ref).set(ValueLayout.JAVA_LONG_UNALIGNED, pool.payloadOffset(ref) + 3992, i);
                    refs.add(ref);
                }
            } catch (GroveOutOfMemoryException full) {
                // the limit
            }
            long b = BLOCK;
            assertEquals(List.of(b, b, b, 3 * b, 3 * b, 2 * b), source.sizes, "singles, groups, the limit's rest");
            assertEquals(11L * BLOCK, pool.footprint().reservedBytes());
            for (int i = 0; i < refs.size(); i++) { // every block of a group is usable, and holds its own slices
                long ref = refs.get(i);
                assertEquals(i, pool.segment(ref).get(ValueLayout.JAVA_LONG_UNALIGNED, pool.payloadOffset(ref) + 3992));
            }
        }
    }

    @Test
    void aRefusedGroupFallsBackToOneBlock() {
        RefusingSource source = new RefusingSource(2L * BLOCK);
        try (Pool pool = new Pool(BLOCK, 8L * BLOCK, Reclamation.NOVA, source)) {
            while (source.reserved < 2) {
                pool.allocate(30_000);
            }
            source.refusals = 1;
            while (pool.footprint().reservedBytes() < 3L * BLOCK) {
                pool.allocate(30_000);
            }
            assertEquals(List.of((long) BLOCK, (long) BLOCK, (long) BLOCK), source.sizes);
        }
    }

    @Test
    void aBlockTheOperatingSystemRefusesConsumesNoMemoryAndTheNextAttemptGetsIt() {
        for (Reclamation reclamation : Reclamation.values()) {
            RefusingSource source = new RefusingSource(Long.MAX_VALUE);
            try (Pool pool = new Pool(BLOCK, 8L * BLOCK, reclamation, source)) {
                int slice = 1000;
                while (source.reserved < 2 && pool.footprint().allocatedBytes() + 2L * (slice + 32) < BLOCK) {
                    pool.allocate(slice); // fills the first block
                }
                MemoryFootprint before = pool.footprint();
                source.refusals = 2;
                for (int i = 0; i < 2; i++) {
                    GroveOutOfMemoryException e = assertThrows(GroveOutOfMemoryException.class,
                            () -> pool.allocate(BLOCK / 2));
                    assertTrue(e.getMessage().contains("refused"), e.getMessage());
                }
                MemoryFootprint after = pool.footprint();
                assertEquals(before.allocatedBytes(), after.allocatedBytes(), reclamation + ": no granule was taken");
                assertEquals(before.liveBytes(), after.liveBytes(), reclamation + ": nothing counted live");
                assertEquals(before.liveSlices(), after.liveSlices());
                long ref = pool.allocate(BLOCK / 2);
                assertEquals(BLOCK / 2, pool.length(ref));
                assertEquals(2, source.reserved);
                assertEquals(before.liveSlices() + 1, pool.footprint().liveSlices());
            }
        }
    }
}
