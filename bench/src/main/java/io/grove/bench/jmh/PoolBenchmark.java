package io.grove.bench.jmh;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.grove.MemoryPool;
import io.grove.Reclamation;
import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;
import java.util.ConcurrentModificationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Single operations of Grove's memory layer ({@link Pool}), Nova against grow-only. Run at 1 and 2 threads
 * ({@code -t 1}, {@code -t 2}); the score is operations per microsecond, summed over threads.
 *
 * <p>Every iteration gets a fresh pool ({@link Level#Iteration} setup and teardown): grow-only never reuses memory,
 * so its pool has a limit ({@link #GROW_ONLY_LIMIT}) large enough for one short iteration and is closed after it;
 * Nova gets the same treatment so that both start each iteration alike. Keep iterations short ({@code -r 1s}).
 *
 * <p>Benchmarks:
 * <ul>
 *   <li>{@code allocateDeletePrivate}: allocate a slice and delete it privately (never published).
 *   <li>{@code allocateWritePublishDelete}: allocate, write the whole payload privately, publish the reference
 *       into a random slot of a shared table with {@code compareAndSet}, delete the slot's old slice.
 *   <li>{@code read}: optimistic read of 8 bytes of a random slot's slice, then {@code validate}.
 *   <li>{@code writeInPlace}: {@code beginWrite}, store 8 bytes, {@code endWrite} on a random slot's slice.
 *   <li>{@code delete}: delete shared slices (the release list and Nova's batch reclamation included); each
 *       invocation deletes {@value #DELETE_BATCH} slices allocated in an untimed per-invocation setup.
 * </ul>
 * The table has {@value #TABLE_SLOTS} slots of {@code size}-byte values (about 0.5 MiB for 100 bytes), so that
 * reads and writes measure the protocol rather than cache misses; the comparison program
 * ({@code BenchMain}) measures the memory-bound case.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class PoolBenchmark {
    static final int TABLE_SLOTS = 4096;
    static final int DELETE_BATCH = 1024;
    /** Off-heap limit per iteration; grow-only consumes fresh memory for every allocation. */
    static final long GROW_ONLY_LIMIT = Long.getLong("grove.jmh.growOnlyLimit", 8L << 30);
    static final long NOVA_LIMIT = 1L << 30;

    @Param({"NOVA", "GROW_ONLY"})
    public Reclamation reclamation;

    /** Payload bytes per slice (Oak's key size; 16-byte header on top). */
    @Param({"100"})
    public int size;

    Pool pool;
    AtomicLongArray table;
    MemorySegment template;

    @Setup(Level.Iteration)
    public void openPool() {
        pool = (Pool) MemoryPool.builder()
                .memoryLimit(reclamation == Reclamation.GROW_ONLY ? GROW_ONLY_LIMIT : NOVA_LIMIT)
                .reclamation(reclamation)
                .build();
        template = MemorySegment.ofArray(new byte[size]);
        table = new AtomicLongArray(TABLE_SLOTS);
        for (int i = 0; i < TABLE_SLOTS; i++) {
            long ref = pool.allocate(size);
            MemorySegment.copy(template, 0, pool.segment(ref), pool.payloadOffset(ref), size);
            table.set(i, ref);
        }
    }

    @TearDown(Level.Iteration)
    public void closePool() {
        pool.close();
    }

    /** A per-thread xorshift generator for slot numbers; no allocation per operation. */
    @State(Scope.Thread)
    public static class Slots {
        private static final AtomicInteger THREADS = new AtomicInteger();
        long x = 0x9E3779B97F4A7C15L * (THREADS.incrementAndGet() + 17);

        int next() {
            long v = x;
            v ^= v << 13;
            v ^= v >>> 7;
            v ^= v << 17;
            x = v;
            return (int) (v & (TABLE_SLOTS - 1));
        }
    }

    /** Slices allocated (and never published) before each invocation of {@link #delete}, outside the timing. */
    @State(Scope.Thread)
    public static class Doomed {
        final long[] refs = new long[DELETE_BATCH];

        @Setup(Level.Invocation)
        public void allocate(PoolBenchmark b) {
            for (int i = 0; i < DELETE_BATCH; i++) {
                refs[i] = b.pool.allocate(b.size);
            }
        }
    }

    @Benchmark
    public long allocateDeletePrivate() {
        long ref = pool.allocate(size);
        pool.deletePrivate(ref);
        return ref;
    }

    @Benchmark
    public long allocateWritePublishDelete(Slots slots) {
        long ref = pool.allocate(size);
        MemorySegment.copy(template, 0, pool.segment(ref), pool.payloadOffset(ref), size);
        int slot = slots.next();
        long old;
        do {
            old = table.get(slot);
        } while (!table.compareAndSet(slot, old, ref));
        pool.delete(old);
        return old;
    }

    @Benchmark
    public long read(Slots slots) {
        int slot = slots.next();
        while (true) {
            long ref = table.get(slot);
            long value = pool.segment(ref).get(JAVA_LONG, pool.payloadOffset(ref));
            try {
                pool.validate(ref);
                return value;
            } catch (ConcurrentModificationException stale) {
                // replaced meanwhile (not in this benchmark: nothing replaces); retry
            }
        }
    }

    @Benchmark
    public long writeInPlace(Slots slots) {
        int slot = slots.next();
        while (true) {
            long ref = table.get(slot);
            long token = pool.beginWrite(ref);
            if (token >= 0) {
                pool.segment(ref).set(JAVA_LONG, pool.payloadOffset(ref), slot);
                pool.endWrite(token);
                return token;
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(DELETE_BATCH)
    public int delete(Doomed doomed) {
        int deleted = 0;
        for (long ref : doomed.refs) {
            if (pool.delete(ref)) {
                deleted++;
            }
        }
        return deleted;
    }
}
