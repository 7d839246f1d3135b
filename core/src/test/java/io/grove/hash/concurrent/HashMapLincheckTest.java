package io.grove.hash.concurrent;

import io.grove.GroveHashMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import io.grove.testing.PaddedLongs;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of the hash map's single-key operations ({@link HashMapOperations}) on keys 1..3, in Lincheck's
 * stress mode: real threads run random scenarios of those operations and every outcome must match a sequential
 * run of {@link SequentialMapSpec}.
 *
 * <p>Stress mode is the real check for this map: its synchronization (the segment lock, the seqlock version,
 * Nova's slice headers) lives off heap, in {@code MemorySegment}s, which Lincheck's model checker does not see;
 * see {@link HashMapModelCheckingTest} for what model checking does and does not add. With only
 * three keys no segment grows here ({@code expectedSize(1)} gives 16 segments of 16 slots on this pool, and a segment
 * doubles when its count passes 12); {@link HashMapGrowthLincheckTest} aims three keys and twelve fillers at one
 * segment so that scenarios grow it.
 *
 * <p>All maps of a run draw on one pool; each invocation's map is closed when Lincheck makes the next one
 * ({@link io.grove.testing.SingleKeyOperations#retirePrevious}), so its slices return to the pool.
 *
 * <p>{@link InlineCells} runs the same operations on a map built with {@code inlineEntries(8, 8)}, whose values
 * mostly fit the cells and sometimes do not, so that puts, merges and computes move entries out of their cells and
 * back, zero-copy reads move them apart, and in-place updates resize them past the cell and back.
 */
public class HashMapLincheckTest extends HashMapOperations {
    private static final MemoryPool POOL = MemoryPool.builder().blockSize(1 << 20).memoryLimit(64L << 20).build();
    private static final AtomicReference<AutoCloseable> PREVIOUS = new AtomicReference<>();

    public HashMapLincheckTest() {
        super(newMap());
    }

    private static GroveHashMap<Long, Long> newMap() {
        GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .expectedSize(1).pool(POOL).build();
        return retirePrevious(PREVIOUS, map, map);
    }

    @Override
    protected long key(int k) {
        return k;
    }

    @Validate
    public void validate() {
        iterationAgreesWithLookups();
    }

    @Test
    void stress() {
        new StressOptions().iterations(30).invocationsPerIteration(1_000).threads(3).actorsPerThread(4)
                .actorsBefore(2).actorsAfter(2).sequentialSpecification(SequentialMapSpec.class)
                .check(HashMapLincheckTest.class);
    }

    /**
     * The operations on a map with cells for 8-byte keys and values ({@code inlineEntries(8, 8)}) and values of
     * {@link #VALUES}, which take 24 bytes when they are a multiple of 4 (4 among the values put, 8 and 12 among those
     * merge and compute make), so that they do not fit a cell. A value's first word is its number, as
     * {@code Serializers.longs()} writes it, so the zero-copy operations work on both sizes.
     */
    public static class InlineCells extends HashMapOperations {
        static final PaddedLongs VALUES = new PaddedLongs(16, v -> v % 4 == 0);
        private static final AtomicReference<AutoCloseable> PREVIOUS = new AtomicReference<>();

        public InlineCells() {
            super(newInlineMap());
        }

        private static GroveHashMap<Long, Long> newInlineMap() {
            GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), VALUES)
                    .expectedSize(1).pool(POOL).inlineEntries(Long.BYTES, Long.BYTES).build();
            return retirePrevious(PREVIOUS, map, map);
        }

        @Override
        protected long key(int k) {
            return k;
        }

        @Validate
        public void validate() {
            iterationAgreesWithLookups();
        }
    }

    @Test
    void stressWithInlineCells() {
        new StressOptions().iterations(10).invocationsPerIteration(1_000).threads(3).actorsPerThread(4)
                .actorsBefore(2).actorsAfter(2).sequentialSpecification(SequentialMapSpec.class)
                .check(InlineCells.class);
    }
}
