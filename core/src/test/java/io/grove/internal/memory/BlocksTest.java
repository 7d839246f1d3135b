package io.grove.internal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveOutOfMemoryException;
import io.grove.MemoryFootprint;
import io.grove.Reclamation;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class BlocksTest {
    private static final int BLOCK = 1 << 16;

    /** Blocks from an arena, except that the operating system refuses the reservations it is told to. */
    private static final class RefusingSource implements BlockSource {
        private final Arena arena = Arena.ofShared();
        int refusals;
        int reserved;

        @Override
        public MemorySegment reserve(long bytes) {
            if (refusals > 0) {
                refusals--;
                throw new OutOfMemoryError("refused for the test");
            }
            reserved++;
            return arena.allocate(bytes, 16);
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    @Test
    void aBlockTheOperatingSystemRefusesConsumesNoMemoryAndTheNextAttemptGetsIt() {
        for (Reclamation reclamation : Reclamation.values()) {
            RefusingSource source = new RefusingSource();
            try (Pool pool = new Pool(BLOCK, 8L * BLOCK, reclamation, source)) {
                int slice = 1000;
                while (source.reserved < 2 && pool.footprint().allocatedBytes() + 2 * (slice + 32) < BLOCK) {
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
