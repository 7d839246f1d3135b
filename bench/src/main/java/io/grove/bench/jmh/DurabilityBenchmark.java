package io.grove.bench.jmh;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
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
 * What each durability mode of a hash map costs: a put of a MapHash record (8-byte key, 248-byte value, uniform
 * over 1,000,000 keys, all loaded) in memory, in a file (page cache only), and in a file forced by a background
 * thread every 100 ms ({@code syncEvery}); and {@code sync()} itself after {@code dirty} puts, which is the cost of
 * {@code syncOnClose} and of each turn of {@code syncEvery} with that many changes behind it. Average time per
 * invocation; {@code putThenSync} does {@code dirty} puts and one sync, so the sync's share is its time minus
 * {@code dirty} puts of {@code put}. The file lives in {@code java.io.tmpdir} (on this machine an ext4 file system
 * on a virtual disk).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class DurabilityBenchmark {
    static final int KEYS = 1_000_000;
    static final int VALUE = 248;

    @Param({"memory", "file", "file-sync-100ms"})
    public String mode;

    @Param({"1", "1000", "100000"})
    public int dirty;

    private Path dir;
    private GroveHashMap<Long, byte[]> map;
    private final byte[] value = new byte[VALUE];
    private final SplittableRandom random = new SplittableRandom(7);

    @Setup(Level.Trial)
    public void open() throws IOException {
        GroveHashMap.Builder<Long, byte[]> builder = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
                .expectedSize(KEYS);
        if (!mode.equals("memory")) {
            dir = Files.createTempDirectory("grove-durability");
            builder.file(dir.resolve("map.grove")).maxFileSize(2L << 30);
            if (mode.equals("file-sync-100ms")) {
                builder.syncEvery(java.time.Duration.ofMillis(100));
            }
        }
        map = builder.build();
        for (long k = 0; k < KEYS; k++) {
            map.put(k, value);
        }
        map.sync();
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        map.close();
        if (dir != null) {
            try (var files = Files.list(dir)) {
                files.forEach(f -> {
                    try {
                        Files.delete(f);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
            Files.delete(dir);
        }
    }

    @Benchmark
    public byte[] put() {
        value[0]++;
        return map.put((long) random.nextInt(KEYS), value);
    }

    @Benchmark
    public void putThenSync() {
        for (int i = 0; i < dirty; i++) {
            value[0]++;
            map.put((long) random.nextInt(KEYS), value);
        }
        map.sync();
    }
}
