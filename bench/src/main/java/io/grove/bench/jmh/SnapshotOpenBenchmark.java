package io.grove.bench.jmh;

import io.grove.GroveSnapshot;
import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The time to open and close a snapshot of an ordered map built with {@code snapshots()}, nothing read in it, at
 * three sizes of the map: acquisition should not depend on the size (the batches-and-snapshots goal: flat from
 * 100,000 to 4,000,000 entries). No writer runs, so the close finds nothing to prune.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class SnapshotOpenBenchmark {
    @Param({"100000", "1000000", "4000000"})
    public int entries;

    GroveSortedMap<Long, Long> map;

    @Setup(Level.Trial)
    public void fill() {
        map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs()).memoryLimit(2L << 30).snapshots()
                .build();
        for (long k = 0; k < entries; k++) {
            map.put(k * 0x9E3779B97F4A7C15L, k); // scattered over the key order, as random inserts are
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        map.close();
    }

    @Benchmark
    public GroveSnapshot<Long, Long> openAndClose() {
        try (GroveSnapshot<Long, Long> snapshot = map.snapshot()) {
            return snapshot;
        }
    }
}
