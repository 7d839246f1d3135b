package io.grove.hash.concurrent;

import static org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt.forClasses;

import io.grove.GroveHashMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * The single-key operations of {@link HashMapOperations} on keys 1..3 under Lincheck's model checker: two threads,
 * three operations each, and the model checker chooses where one thread stops and the other runs.
 *
 * <p><b>What the model checker sees here, and what it does not.</b> It places its switch points only at accesses
 * to the Java heap (fields, arrays, {@code java.util.concurrent} objects, monitors). The map's synchronization is
 * off heap, in {@code MemorySegment}s reached through {@code VarHandle}s: the segment's spin lock, its seqlock
 * version, the slots and entries, Nova's slice headers. Those accesses are invisible to it: it never switches
 * exactly at one of them, never reorders them (every execution it makes is sequentially consistent, so memory
 * ordering claims such as "the version is written before the chain" go untested), and cannot tell that a thread
 * spins on a held lock except through the on-heap accesses inside the spin loop. What it does see is the on-heap
 * work that surrounds nearly every off-heap access: looking up a reference's block in the pool's on-heap block
 * table, the thread's scratch object and reusable views, the {@code closed} flag. Those give it switch points
 * between almost any two steps of an operation (e.g. between finding an entry under the lock and reading its
 * value's header), and the off-heap effects of whatever the other thread then runs are real. So it does explore
 * interleavings of the off-heap protocol at a granularity of a few off-heap accesses, deterministically, with a
 * readable trace: with the seqlock check disabled ({@code isStable} always true) or the lock dropped from the
 * map's update path, this test fails (each verified by mutation). It adds nothing on memory ordering, on timing
 * windows narrower than its switch points, or on growth (three keys never fill a segment); the stress tests are
 * the real check of the off-heap protocol, and {@link HashMapGrowthLincheckTest} is the linearizability check
 * with growth.
 *
 * <p>Nova's allocator internals are treated as atomic, so that the switch points fall in the map's code rather
 * than inside allocation and deletion ({@code SliceRegisterModelCheckingTest} model-checks those on their own).
 *
 * <p><b>Cost, measured</b> (2 cores): about 5 s of class instrumentation before the first scenario, then 10-20 ms
 * per invocation (one interleaving), most of it in the instrumented execution; validating each invocation by
 * iterating the map (as the stress tests do) made it about five times slower, so validation here only compares
 * {@code size()} with lookups. Each invocation builds a fresh map on a fresh 64 KiB-block pool (a scenario must
 * start from the same state every time it is replayed); building it is a minor part of the cost (one shared map,
 * cleared per invocation, was about 25% faster). Each new instance closes the previous one's map and pool, so
 * memory stays bounded. 10 iterations of 200 invocations took about 30 s; 5 of 100 already caught both mutations
 * above (in about 10 s each), so this runs 6 of 100, about 15 s.
 */
public class HashMapModelCheckingTest extends HashMapOperations {
    private static final AtomicReference<AutoCloseable> PREVIOUS = new AtomicReference<>();

    public HashMapModelCheckingTest() {
        super(newMap());
    }

    private static GroveHashMap<Long, Long> newMap() {
        MemoryPool pool = MemoryPool.builder().blockSize(1 << 16).memoryLimit(1 << 18).build();
        GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .expectedSize(1).pool(pool).build();
        // The pool first: the model checker may abandon an invocation in the middle of an operation (to replay a
        // failure for its trace), and a map's close() on a pool that stays open would wait for the abandoned
        // operation's lock for ever; once the pool is closed, the map's close() has nothing left to do.
        return retirePrevious(PREVIOUS, map, () -> {
            pool.close();
            map.close();
        });
    }

    @Override
    protected long key(int k) {
        return k;
    }

    @Validate
    public void validate() {
        sizeAgreesWithLookups();
    }

    @Test
    void modelChecking() {
        new ModelCheckingOptions().iterations(6).invocationsPerIteration(100).threads(2).actorsPerThread(3)
                .actorsBefore(1).actorsAfter(1).sequentialSpecification(SequentialMapSpec.class)
                .addGuarantee(forClasses("io.grove.internal.memory.NovaAllocator",
                        "io.grove.internal.memory.ReleaseLists", "io.grove.internal.memory.FreeLists",
                        "io.grove.internal.memory.HazardSlots",
                        "io.grove.internal.memory.HazardSlots$OnHeap", "io.grove.internal.memory.LongList")
                        .allMethods().treatAsAtomic())
                .check(HashMapModelCheckingTest.class);
    }
}
