package io.grove.bench.maps;

import io.grove.GroveHashMap;
import io.grove.bench.Placement;
import io.grove.bench.Scenario;
import io.grove.bench.WorkerConfig;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ConcurrentModificationException;
import java.util.List;

/**
 * Grove's off-heap hash map ({@code io.grove.GroveHashMap}), {@code byte[]} keys and values. Copying get =
 * {@code get} (into the thread's reused array, {@link ThreadBufferSerializer}); zero-copy get = {@code zc().get}
 * and two validated 8-byte reads through the handle; put / putIfAbsent / remove = {@code zc()}'s (no old value
 * deserialized). Table sized with {@code expectedSize(keys)}, {@code memoryLimit} = off-heap budget; in the
 * eviction scenario bounded with {@code maximumSize(capacity)} and {@code recordStats()}.
 */
public final class GroveKv extends KvContender {
    public static final GroveKv INSTANCE = new GroveKv(false, false, false);
    /** The same map in a file (a new one in java.io.tmpdir per run, deleted at close), its size the budget. */
    public static final GroveKv IN_FILE = new GroveKv(true, false, false);
    /** The same map in memory whose pool asks for transparent huge pages ({@code hugePages()}). */
    public static final GroveKv HUGE_PAGES = new GroveKv(false, true, false);
    /**
     * The same map in memory with its entries in the table's cells ({@code inlineEntries(key size, value size)}:
     * the scenario's sizes, as Chronicle Map is given them by sample).
     */
    public static final GroveKv INLINE = new GroveKv(false, false, true);
    /** Entries in cells, on transparent huge pages: both options of the two variants above. */
    public static final GroveKv INLINE_HUGE_PAGES = new GroveKv(false, true, true);
    /** Entries in cells, in a file: the options of {@link #IN_FILE} and {@link #INLINE}. */
    public static final GroveKv INLINE_IN_FILE = new GroveKv(true, false, true);

    private final boolean inFile;
    private final boolean hugePages;
    private final boolean inline;

    private GroveKv(boolean inFile, boolean hugePages, boolean inline) {
        this.inFile = inFile;
        this.hugePages = hugePages;
        this.inline = inline;
    }

    @Override
    public String name() {
        return inFile ? (inline ? "grove-hash-file-inline" : "grove-hash-file")
                : hugePages ? (inline ? "grove-hash-inline-hp" : "grove-hash-hp")
                : inline ? "grove-hash-inline" : "grove-hash";
    }

    /** Whether the map lives in a file, {@code grove-hash-file-inline} included (its name ends otherwise). */
    @Override
    public boolean inFile() {
        return inFile;
    }

    @Override
    public List<String> jvmOptions() {
        return hugePages ? List.of("--enable-native-access=ALL-UNNAMED") : List.of();
    }

    /**
     * The huge-page and inline variants run in the MapHash scenario only, so that they add few runs to the default
     * benchmark; the inline one in memory also in the eviction scenario (a bounded map with cells).
     */
    @Override
    public String notApplicable(Scenario scenario) {
        if (this == INLINE && scenario instanceof EvictionScenario) {
            return null;
        }
        return (hugePages || inline) && !scenario.name().equals(FileBackedPeers.SCENARIO)
                ? "the " + (inline ? "inline" : "huge-page") + " variant runs in " + FileBackedPeers.SCENARIO + " only"
                : null;
    }

    @Override
    public String description() {
        return "Grove GroveHashMap<byte[], byte[]> off heap" + (inFile ? ", in a memory-mapped file of the off-heap"
                + " budget's size (page cache, never forced)" : "") + (hugePages ? ", its pool's blocks marked for"
                + " transparent huge pages" : "") + (inline ? ", entries in the table's cells (inlineEntries with the"
                + " scenario's key and value sizes)" : "") + "; get copies into a reused array, zc-get"
                + " reads 2 words through zc().get's handle; expectedSize = keys, memoryLimit = off-heap budget";
    }

    @Override
    public Placement placement() {
        return Placement.OFF_HEAP;
    }

    @Override
    public KvMap open(WorkerConfig config) {
        GroveHashMap.Builder<byte[], byte[]> b = GroveHashMap.builder(Serializers.bytes(),
                ThreadBufferSerializer.INSTANCE);
        Path file = null;
        if (inFile) {
            try {
                file = Files.createTempFile("grove-bench-", ".grove");
                Files.delete(file); // the map creates it
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            b.file(file).maxFileSize(config.offHeapLimit());
        } else {
            b.memoryLimit(config.offHeapLimit());
            if (hugePages) {
                b.hugePages();
            }
        }
        if (inline) {
            b.inlineEntries(scenario(config).keySize(), config.valueSize());
        }
        long capacity = capacity(config);
        if (capacity > 0) {
            b.expectedSize(capacity).maximumSize(capacity).recordStats();
        } else {
            b.expectedSize(config.keys());
        }
        return new Map(b.build(), config.valueSize(), file);
    }

    /**
     * The map of {@code grove-hash-file} in {@code file}, created if missing and else opened beside the processes
     * that have it open, for {@code keys} records of {@code keySize}-byte keys and {@code valueSize}-byte values in at
     * most {@code maxFileSize} bytes; with {@code inline}, that of {@code grove-hash-file-inline} (entries in cells);
     * kept at close (the shared-file experiment).
     */
    public static KvMap sharedFile(Path file, long keys, int keySize, int valueSize, long maxFileSize,
            boolean inline) {
        GroveHashMap.Builder<byte[], byte[]> b = GroveHashMap.builder(Serializers.bytes(),
                ThreadBufferSerializer.INSTANCE).file(file).maxFileSize(maxFileSize).expectedSize(keys);
        if (inline) {
            b.inlineEntries(keySize, valueSize);
        }
        return new Map(b.build(), valueSize, null);
    }

    private static final class Map implements KvMap {
        private final GroveHashMap<byte[], byte[]> map;
        private final int valueSize;
        /** The map's file, deleted at close; {@code null} in memory. */
        private final Path file;

        Map(GroveHashMap<byte[], byte[]> map, int valueSize, Path file) {
            this.map = map;
            this.valueSize = valueSize;
            this.file = file;
        }

        @Override
        public int get(KvThread t, long id) {
            byte[] v = map.get(t.key);
            if (v == null) {
                return ABSENT;
            }
            return KvRecords.matches(v, v.length, id, valueSize) ? FOUND : WRONG;
        }

        @Override
        public int zeroCopyGet(KvThread t, long id) {
            while (true) {
                Handle h = map.zc().get(t.key);
                if (h == null) {
                    return ABSENT;
                }
                try {
                    long first = h.getLong(0);
                    long last = h.getLong(h.size() - 8);
                    return KvRecords.matches(first, last, id) ? FOUND : WRONG;
                } catch (ConcurrentModificationException replaced) {
                    // the value was replaced or removed between the lookup and the read: look it up again
                }
            }
        }

        @Override
        public void put(KvThread t, long id) {
            map.zc().put(t.key, t.value);
        }

        @Override
        public boolean putIfAbsent(KvThread t, long id) {
            return map.zc().putIfAbsent(t.key, t.value);
        }

        @Override
        public boolean remove(KvThread t, long id) {
            return map.zc().remove(t.key);
        }

        @Override
        public long size() {
            return map.size();
        }

        @Override
        public OffHeap offHeap() {
            return OffHeap.of(map.footprint());
        }

        @Override
        public void close() {
            map.close();
            if (file != null) {
                try {
                    Files.delete(file);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }
}
