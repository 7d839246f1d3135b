package io.grove.sorted.concurrent;

import static org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt.forClasses;

import io.grove.GroveSortedMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * {@link SortedMapOperations} under Lincheck's model checker: two threads, three operations each, on a map of
 * chunks of four entries that already holds six fillers, and the model checker chooses where one thread stops and
 * the other runs.
 *
 * <p><b>What the model checker sees.</b> Its switch points are accesses to the Java heap. The sorted map keeps its
 * index and its chunks on the heap (the entry arrays, the chunk list, the rebalance state, the publish slots), so
 * model checking explores the interleavings of the chunk and index logic exhaustively enough to matter: an
 * insert that links its entry into a chunk being frozen, a lookup that reads a chunk while a rebalance replaces it,
 * a navigation that follows a next pointer into a chunk merged away. It does not see {@code MemorySegment}
 * accesses (keys, values and their headers, Nova's slice states): it never switches exactly at one of them and
 * every execution it makes is sequentially consistent, so races on value bytes and memory ordering claims are left
 * to the stress tests. Nova's allocator internals are treated as atomic (they are model-checked on their own in
 * {@code SliceRegisterModelCheckingTest}), so that the switch points fall in the map's code; so is the choice of a
 * new chunk's prefix plan, a computation on the rebalancer's private arrays whose hundreds of steps would
 * otherwise make the model checker take a rebalance for a hung thread.
 *
 * <p>That rebalances do run inside these scenarios is shown in stress mode ({@link SortedMapLincheckTest} counts
 * the invocations whose chunk index changed: more than half); counters bumped from the validation method here stay
 * at zero under the model checker, so the same count is not available in this mode. The scenarios are the same.
 *
 * <p>Each invocation builds a fresh map on a fresh small pool (a scenario must start from the same state every
 * time it is replayed); each new instance closes the previous one's map and pool. Validation only compares
 * {@code size()} with lookups, because the model checker replays every instruction of it too.
 */
public class SortedMapModelCheckingTest extends SortedMapOperations {
    private static final AtomicReference<AutoCloseable> PREVIOUS = new AtomicReference<>();

    public SortedMapModelCheckingTest() {
        super(newMap());
    }

    private static GroveSortedMap<Long, Long> newMap() {
        MemoryPool pool = MemoryPool.builder().blockSize(1 << 16).memoryLimit(1 << 18).build();
        GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(CHUNK_SIZE).pool(pool).build();
        // The pool first: the model checker may abandon an invocation in the middle of an operation (to replay a
        // failure for its trace), and a map's close() on a pool that stays open would wait for the abandoned
        // operation's lock for ever; once the pool is closed, the map's close() has nothing left to do.
        return retirePrevious(PREVIOUS, map, () -> {
            pool.close();
            map.close();
        });
    }

    @Validate
    public void validate() {
        sizeAgreesWithLookups();
    }

    @Test
    void modelChecking() {
        new ModelCheckingOptions().iterations(30).invocationsPerIteration(20).threads(2).actorsPerThread(3)
                .actorsBefore(1).actorsAfter(1).sequentialSpecification(SortedMapSpec.class)
                .addGuarantee(forClasses("io.grove.internal.memory.NovaAllocator",
                        "io.grove.internal.memory.ReleaseLists", "io.grove.internal.memory.FreeLists",
                        "io.grove.internal.memory.HazardSlots",
                        "io.grove.internal.memory.HazardSlots$OnHeap", "io.grove.internal.memory.LongList",
                        "io.grove.internal.sorted.PrefixPlan")
                        .allMethods().treatAsAtomic())
                .check(SortedMapModelCheckingTest.class);
    }
}
