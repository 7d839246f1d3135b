package io.grove.bench.maps;

import io.grove.bench.Placement;
import io.grove.bench.Scenario;
import io.grove.bench.WorkerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

/**
 * Chronicle Map (net.openhft:chronicle-map), in memory off heap, {@code byte[]} keys and values of constant size
 * ({@code constantKeySizeBySample}, {@code constantValueSizeBySample}), {@code entries(keys)}. Copying get =
 * {@code getUsing} into the thread's reused array; zero-copy get = a {@code queryContext} on the key and two 8-byte
 * reads from the entry's value {@code Data} in place. Chronicle sizes its memory from {@code entries}, not from a
 * byte limit, so the off-heap budget is not passed to it (its footprint is reported). It needs {@code --add-opens}
 * and {@code --add-exports} on JDK 17+ (its docs, "Java 17 support").
 */
public final class ChronicleKv extends KvContender {
    /** What Chronicle Map needs from the JVM on JDK 25 (its own list), and no phoning home. */
    public static final List<String> JVM_OPTIONS = List.of(
            "-Dchronicle.analytics.disable=true",
            "-Dchronicle.announcer.disable=true",
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
            "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-opens=jdk.compiler/com.sun.tools.javac=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--enable-native-access=ALL-UNNAMED",
            "--sun-misc-unsafe-memory-access=allow");

    public static final ChronicleKv INSTANCE = new ChronicleKv(false);
    /**
     * The same map persisted to a file ({@code createPersistedTo}: a new file in java.io.tmpdir per run, deleted at
     * close), the MapHash scenario only ({@link FileBackedPeers}).
     */
    public static final ChronicleKv PERSISTED = new ChronicleKv(true);

    private final boolean persisted;

    private ChronicleKv(boolean persisted) {
        this.persisted = persisted;
    }

    @Override
    public String name() {
        return persisted ? "chronicle-file" : "chronicle";
    }

    @Override
    public String description() {
        return "Chronicle Map 2026.1, byte[] keys and values of constant size, entries = keys"
                + (persisted ? ", createPersistedTo a file (page cache, never forced)" : "")
                + "; get = getUsing into a reused array, zc-get = queryContext + 2 reads in place";
    }

    @Override
    public Placement placement() {
        return Placement.OFF_HEAP;
    }

    @Override
    public List<String> jvmOptions() {
        return JVM_OPTIONS;
    }

    @Override
    public String notApplicable(Scenario scenario) {
        return persisted ? FileBackedPeers.notApplicable(scenario) : noEviction(scenario);
    }

    @Override
    public KvMap open(WorkerConfig config) {
        int keySize = scenario(config).keySize();
        ChronicleMapBuilder<byte[], byte[]> builder = ChronicleMap.of(byte[].class, byte[].class)
                .name("grove-bench")
                .entries(config.keys())
                .constantKeySizeBySample(new byte[keySize])
                .constantValueSizeBySample(new byte[config.valueSize()]);
        if (!persisted) {
            return new Map(builder.create(), config.valueSize(), null);
        }
        Path file = FileBackedPeers.newFile("grove-bench-chronicle-", ".dat");
        try {
            return new Map(builder.createPersistedTo(file.toFile()), config.valueSize(), file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The map of {@code chronicle-file} persisted to {@code file} ({@code createPersistedTo}: created if missing,
     * else opened beside the processes that have it open), for {@code keys} records; kept at close (the shared-file
     * experiment).
     */
    public static KvMap sharedFile(Path file, long keys, int keySize, int valueSize) {
        try {
            return new Map(ChronicleMap.of(byte[].class, byte[].class).name("grove-bench").entries(keys)
                    .constantKeySizeBySample(new byte[keySize]).constantValueSizeBySample(new byte[valueSize])
                    .createPersistedTo(file.toFile()), valueSize, null);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final class Map implements KvMap {
        private final ChronicleMap<byte[], byte[]> map;
        private final int valueSize;
        /** The map's file, deleted at close; {@code null} in memory. */
        private final Path file;

        Map(ChronicleMap<byte[], byte[]> map, int valueSize, Path file) {
            this.map = map;
            this.valueSize = valueSize;
            this.file = file;
        }

        @Override
        public int get(KvThread t, long id) {
            byte[] v = map.getUsing(t.key, t.readBuffer);
            if (v == null) {
                return ABSENT;
            }
            return KvRecords.matches(v, v.length, id, valueSize) ? FOUND : WRONG;
        }

        @Override
        public int zeroCopyGet(KvThread t, long id) {
            try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(t.key)) {
                MapEntry<byte[], byte[]> e = c.entry();
                if (e == null) {
                    return ABSENT;
                }
                Data<byte[]> value = e.value();
                RandomDataInput bytes = value.bytes();
                long at = value.offset();
                // Chronicle reads native (little-endian) order; the words were stored big-endian
                long first = Long.reverseBytes(bytes.readLong(at));
                long last = Long.reverseBytes(bytes.readLong(at + value.size() - 8));
                return KvRecords.matches(first, last, id) ? FOUND : WRONG;
            }
        }

        @Override
        public void put(KvThread t, long id) {
            map.put(t.key, t.value);
        }

        @Override
        public boolean putIfAbsent(KvThread t, long id) {
            return map.putIfAbsent(t.key, t.value) == null;
        }

        @Override
        public boolean remove(KvThread t, long id) {
            return map.remove(t.key) != null;
        }

        @Override
        public long size() {
            return map.longSize();
        }

        @Override
        public OffHeap offHeap() {
            return new OffHeap(map.offHeapMemoryUsed(), -1, -1, -1);
        }

        @Override
        public void close() {
            map.close();
            if (file != null) {
                FileBackedPeers.delete(file);
            }
        }
    }
}
