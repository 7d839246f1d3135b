package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of the sorted map's single-key operations, {@code firstKey}/{@code lastKey} and navigation
 * ({@link SortedMapOperations}) in Lincheck's stress mode: real threads run random scenarios on a map of chunks of
 * four entries that already holds six fillers, so that inserts split chunks and removals and reinserts make
 * rebalances compact and merge them while the other threads read and update the same keys; every outcome must
 * match a sequential run of {@link SortedMapSpec}.
 *
 * <p>Stress mode is the real check of everything that lives off heap (values, their headers, Nova's
 * reclamation), which the model checker does not see ({@link SortedMapModelCheckingTest}). All maps of a run
 * draw on one pool; each invocation's map is closed when Lincheck makes the next one.
 */
public class SortedMapLincheckTest extends SortedMapOperations {
    private static final MemoryPool POOL = MemoryPool.builder().blockSize(1 << 20).memoryLimit(64L << 20).build();
    private static final AtomicReference<AutoCloseable> PREVIOUS = new AtomicReference<>();
    private static final AtomicLong VALIDATED = new AtomicLong();
    private static final AtomicLong REBALANCED = new AtomicLong();

    public SortedMapLincheckTest() {
        super(newMap());
    }

    private static GroveSortedMap<Long, Long> newMap() {
        GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(CHUNK_SIZE).pool(POOL).build();
        return retirePrevious(PREVIOUS, map, map);
    }

    @Validate
    public void validate() {
        iterationAgreesWithLookups();
        VALIDATED.incrementAndGet();
        if (rebalanced()) {
            REBALANCED.incrementAndGet();
        }
    }

    /**
     * Budget: 100 scenarios of 300 invocations each (many scenarios: 17 operations make many pairs to meet). A
     * failing scenario is reported as found, not minimized: Lincheck's minimization re-runs each smaller scenario
     * for the whole budget, which took over eight minutes for one failure of the first implementation.
     */
    @Test
    void stress() {
        new StressOptions().iterations(100).invocationsPerIteration(300).threads(3).actorsPerThread(4)
                .actorsBefore(2).actorsAfter(2).minimizeFailedScenario(false)
                .sequentialSpecification(SortedMapSpec.class).check(SortedMapLincheckTest.class);
        assertTrue(REBALANCED.get() * 2 > VALIDATED.get(), "a rebalance ran in only " + REBALANCED + " of "
                + VALIDATED + " invocations");
    }
}
