package io.grove.hash.concurrent;

import io.grove.GroveHashMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
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
}
