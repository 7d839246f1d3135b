package io.grove.internal.memory;

import io.grove.Reclamation;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.junit.jupiter.api.Test;

/**
 * {@link SliceRegister} under Lincheck's model checker, which explores interleavings of the on-heap
 * synchronization only (see {@link SliceRegister}).
 */
public class SliceRegisterModelCheckingTest extends SliceRegister {

    /** Blocks from a GC-managed arena, since Lincheck never closes the instances it makes. */
    private static final class AutoArenaBlockSource implements BlockSource {
        private final Arena arena = Arena.ofAuto();

        @Override
        public MemorySegment reserve(long bytes) {
            return arena.allocate(bytes, SliceHeader.GRANULE);
        }

        @Override
        public long returnedFrom() {
            return Long.MAX_VALUE; // one block is all a scenario needs
        }

        @Override
        public void close() {}
    }

    /** A fresh pool per scenario: the model checker replays each scenario and needs it to start alike. */
    public SliceRegisterModelCheckingTest() {
        super(new Pool(1 << 16, 1 << 16, Reclamation.NOVA, new AutoArenaBlockSource()));
    }

    @Test
    void modelChecking() {
        new ModelCheckingOptions().iterations(20).invocationsPerIteration(200).threads(2).actorsPerThread(3)
                .loopBound(5_000)
                .check(SliceRegisterModelCheckingTest.class);
    }
}
