package io.grove.bench.jmh;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import io.grove.MemoryPool;
import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Where the time of a memory-bound read goes: the slice table's read (4 words of a random 1,000-byte value out
 * of 1,000,000, about 1 GB) on the heap and through Grove's pool, with and without the parts of Nova's optimistic
 * read protocol. A diagnosis, not a contest: {@code poolUnvalidated} and {@code poolFenceOnly} are not safe reads
 * (a value replaced meanwhile would go unnoticed) and exist only to price the validation step.
 *
 * <ul>
 *   <li>{@code heap}: {@code AtomicReferenceArray<byte[]>}, 4 longs through a byte-array view VarHandle.
 *   <li>{@code pool}: the full protocol: reference, 4 longs, {@code validate} (load fence + header check).
 *   <li>{@code poolFenceOnly}: the 4 longs and the load fence, no header check.
 *   <li>{@code poolUnvalidated}: the 4 longs alone.
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
@State(Scope.Benchmark)
public class ReadPathBenchmark {
    static final int KEYS = 1_000_000;
    static final int VALUE = 1_000;
    static final long LAST = VALUE - 8;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    Pool pool;
    AtomicLongArray refs;
    AtomicReferenceArray<byte[]> arrays;

    @Setup(Level.Trial)
    public void fill() {
        pool = (Pool) MemoryPool.builder().memoryLimit(2L << 30).build();
        refs = new AtomicLongArray(KEYS);
        arrays = new AtomicReferenceArray<>(KEYS);
        for (int k = 0; k < KEYS; k++) {
            long ref = pool.allocate(VALUE);
            pool.segment(ref).set(JAVA_LONG, pool.payloadOffset(ref), k);
            refs.set(k, ref);
            byte[] v = new byte[VALUE];
            LONGS.set(v, 0, (long) k);
            arrays.set(k, v);
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        pool.close();
    }

    /** A per-thread xorshift generator of keys. */
    @State(Scope.Thread)
    public static class Keys {
        long x = System.nanoTime() | 1;

        int next() {
            long v = x;
            v ^= v << 13;
            v ^= v >>> 7;
            v ^= v << 17;
            x = v;
            return (int) (((v >>> 32) * KEYS) >>> 32);
        }
    }

    @Benchmark
    public long heap(Keys keys) {
        byte[] v = arrays.get(keys.next());
        return (long) LONGS.get(v, 0) ^ (long) LONGS.get(v, 8) ^ (long) LONGS.get(v, 16)
                ^ (long) LONGS.get(v, (int) LAST);
    }

    @Benchmark
    public long pool(Keys keys) {
        long ref = refs.get(keys.next());
        MemorySegment s = pool.segment(ref);
        long p = pool.payloadOffset(ref);
        long x = s.get(JAVA_LONG, p) ^ s.get(JAVA_LONG, p + 8) ^ s.get(JAVA_LONG, p + 16) ^ s.get(JAVA_LONG, p + LAST);
        pool.validate(ref);
        return x;
    }

    @Benchmark
    public long poolFenceOnly(Keys keys) {
        long ref = refs.get(keys.next());
        MemorySegment s = pool.segment(ref);
        long p = pool.payloadOffset(ref);
        long x = s.get(JAVA_LONG, p) ^ s.get(JAVA_LONG, p + 8) ^ s.get(JAVA_LONG, p + 16) ^ s.get(JAVA_LONG, p + LAST);
        VarHandle.loadLoadFence();
        return x;
    }

    @Benchmark
    public long poolUnvalidated(Keys keys) {
        long ref = refs.get(keys.next());
        MemorySegment s = pool.segment(ref);
        long p = pool.payloadOffset(ref);
        return s.get(JAVA_LONG, p) ^ s.get(JAVA_LONG, p + 8) ^ s.get(JAVA_LONG, p + 16) ^ s.get(JAVA_LONG, p + LAST);
    }
}
