package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import io.grove.testing.SingleKeyOperations;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of atomic batches among gets, puts and removes, in Lincheck's stress mode (real threads, so the
 * off-heap claims and value headers are exercised): batches of two operations on three keys of a map of chunks of
 * four entries that holds six fillers, so that batches insert and remove keys in chunks that split and merge while
 * the other threads read and write the same keys; every outcome must match a sequential run of {@link Spec}, in
 * which a batch is one step. A batch seen half applied (one key's new value, then the other's old one) has no such
 * sequential run.
 */
@Param(name = "key", gen = IntGen.class, conf = "1:3")
@Param(name = "value", gen = IntGen.class, conf = "1:4")
public class BatchLincheckTest {
    private static final MemoryPool POOL = MemoryPool.builder().blockSize(1 << 20).memoryLimit(64L << 20).build();
    private static final AtomicReference<AutoCloseable> PREVIOUS = new AtomicReference<>();
    private static final AtomicLong BATCHES = new AtomicLong();

    final GroveSortedMap<Long, Long> map;

    public BatchLincheckTest() {
        GroveSortedMap.Builder<Long, Long> builder = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(SortedMapOperations.CHUNK_SIZE).pool(POOL);
        GroveSortedMap<Long, Long> fresh = (takesSnapshots() ? builder.snapshots() : builder).build();
        for (long filler : SortedMapOperations.FILLERS) {
            fresh.put(filler, filler);
        }
        map = SingleKeyOperations.retirePrevious(PREVIOUS, fresh, fresh);
    }

    /** Whether the map is built to take snapshots (a constant: called from the constructor). */
    boolean takesSnapshots() {
        return false;
    }

    static long key(int k) {
        return SortedMapOperations.realKey(k);
    }

    @Operation
    public Long get(@Param(name = "key") int k) {
        return map.get(key(k));
    }

    @Operation
    public Long put(@Param(name = "key") int k, @Param(name = "value") int v) {
        return map.put(key(k), (long) v);
    }

    @Operation
    public Long remove(@Param(name = "key") int k) {
        return map.remove(key(k));
    }

    @Operation
    public void batchPutPut(@Param(name = "key") int a, @Param(name = "value") int v, @Param(name = "key") int b,
            @Param(name = "value") int w) {
        map.batch().put(key(a), (long) v).put(key(b), (long) w).apply();
        BATCHES.incrementAndGet();
    }

    @Operation
    public void batchPutRemove(@Param(name = "key") int a, @Param(name = "value") int v,
            @Param(name = "key") int b) {
        map.batch().put(key(a), (long) v).remove(key(b)).apply();
        BATCHES.incrementAndGet();
    }

    @Test
    void stress() {
        stress(BatchLincheckTest.class, Spec.class);
        assertTrue(BATCHES.get() > 0, "no batch ran");
    }

    static void stress(Class<?> test, Class<?> specification) {
        new StressOptions().iterations(60).invocationsPerIteration(300).threads(3).actorsPerThread(4)
                .actorsBefore(2).actorsAfter(2).minimizeFailedScenario(false)
                .sequentialSpecification(specification).check(test);
    }

    /** The sequential specification: a {@link TreeMap} with the fillers; a batch applies its two operations. */
    public static class Spec {
        final TreeMap<Long, Long> model = new TreeMap<>();

        public Spec() {
            for (long filler : SortedMapOperations.FILLERS) {
                model.put(filler, filler);
            }
        }

        public Long get(int k) {
            return model.get(key(k));
        }

        public Long put(int k, int v) {
            return model.put(key(k), (long) v);
        }

        public Long remove(int k) {
            return model.remove(key(k));
        }

        public void batchPutPut(int a, int v, int b, int w) {
            model.put(key(a), (long) v);
            model.put(key(b), (long) w);
        }

        public void batchPutRemove(int a, int v, int b) {
            model.put(key(a), (long) v);
            model.remove(key(b));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Spec s && s.model.equals(model);
        }

        @Override
        public int hashCode() {
            return model.hashCode();
        }
    }
}
