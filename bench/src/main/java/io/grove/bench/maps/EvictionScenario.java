package io.grove.bench.maps;

import io.grove.bench.Subject;
import io.grove.bench.TraceScenario;
import io.grove.bench.WorkerConfig;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A bounded map as a cache on a Zipfian trace: ids in {@code [0, keys)} drawn with exponent {@link #ZIPF_S}, a
 * bound of {@code keys / 10} entries ({@link #capacity(int)}), {@code traceFactor × keys} accesses. Each access is
 * a {@code get}; a miss is followed by a {@code put} (cache-aside). The first half of the trace warms the cache (and
 * the JIT); the hit ratio and the throughput are those of the second half. The same trace is replayed, in the
 * same worker JVM, through an exact LRU ({@link ExactLru}); {@code hitRatio / lruHitRatio} tells how close the
 * contender's eviction comes to LRU. One thread (the hit ratio of a sequential trace).
 */
public record EvictionScenario(String name, String description, int keys, int quickKeys, int keySize,
        int valueSize, int traceFactor) implements TraceScenario {

    public static final double ZIPF_S = 0.99;

    @Override
    public String family() {
        return KvFamily.NAME;
    }

    @Override
    public Map<String, Integer> mix() {
        return Map.of("get", 100); // every access is a get; a miss adds a put
    }

    @Override
    public String baseline() {
        return "grove-hash";
    }

    @Override
    public List<Comparison> comparisons() {
        return List.of();
    }

    /** The bound, in entries, for a key space of {@code keys}: 10%. */
    public static int capacity(int keys) {
        return Math.max(1, keys / 10);
    }

    @Override
    public Map<String, String> replay(Subject subject, WorkerConfig config) {
        KvMap map = (KvMap) subject;
        int n = config.keys();
        int capacity = capacity(n);
        int[] trace = ZipfTrace.generate(n, ZIPF_S, traceFactor * n, config.seed());
        int from = trace.length / 2;
        long lruHits = ExactLru.hits(trace, capacity, from);

        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        KvThread t = new KvThread(keySize, config.valueSize());
        long hits = 0;
        long wrong = 0;
        long startNanos = 0;
        long startCpu = 0;
        for (int i = 0; i < trace.length; i++) {
            if (i == from) {
                startNanos = System.nanoTime();
                startCpu = threads.getCurrentThreadCpuTime();
            }
            int id = trace[i];
            t.key(id);
            int r = map.get(t, id);
            if (r == KvMap.FOUND) {
                if (i >= from) {
                    hits++;
                }
            } else {
                if (r == KvMap.WRONG) {
                    wrong++;
                }
                t.record(id);
                map.put(t, id);
            }
        }
        long nanos = System.nanoTime() - startNanos;
        long cpu = threads.getCurrentThreadCpuTime() - startCpu;
        int measured = trace.length - from;
        Map<String, String> out = new LinkedHashMap<>();
        out.put("opsPerSec", String.format(Locale.ROOT, "%.1f", measured / (nanos / 1e9)));
        out.put("ops", Long.toString(measured));
        out.put("seconds", String.format(Locale.ROOT, "%.3f", nanos / 1e9));
        out.put("opsPerCpuSec", String.format(Locale.ROOT, "%.1f", measured / (cpu / 1e9)));
        out.put("cpuShare", String.format(Locale.ROOT, "%.3f", cpu / (double) nanos));
        out.put("mismatches", Long.toString(wrong));
        out.put("hitRatio", String.format(Locale.ROOT, "%.5f", hits / (double) measured));
        out.put("lruHitRatio", String.format(Locale.ROOT, "%.5f", lruHits / (double) measured));
        out.put("capacity", Integer.toString(capacity));
        out.put("entriesAtEnd", Long.toString(map.size()));
        return out;
    }
}
