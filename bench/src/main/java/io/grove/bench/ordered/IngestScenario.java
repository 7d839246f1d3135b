package io.grove.bench.ordered;

import io.grove.GroveOutOfMemoryException;
import io.grove.bench.Subject;
import io.grove.bench.TraceScenario;
import io.grove.bench.WorkerConfig;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The Oak paper's Fig. 3a: how many pairs (100-byte key, 1,000-byte value, or {@link OrderedCodec}'s sizes) a contender
 * ingests within the memory budget, on one thread with {@code putIfAbsent}, and at what rate.
 *
 * <p>Keys are all distinct, in a scrambled order ({@code i * 0x9E3779B1 mod 2^26}, a permutation of a 2<sup>26</sup>
 * key range), so every call inserts. Ingestion stops at the first of: the heap is exhausted ({@link OutOfMemoryError}),
 * the off-heap limit is ({@link GroveOutOfMemoryException}), the key cap ({@code --keys}, default this scenario's
 * {@link #keys()}) is reached, a window of {@value #WINDOW} pairs takes longer than {@value #STALL_SECONDS} s (a heap
 * at its limit spends its time in full collections long before it throws), or the time limit has passed (120 s, or the
 * worker's system property {@value #LIMIT_PROPERTY}). The result gives the pairs ingested ({@code ingestedPairs}), why
 * it stopped ({@code ingestStop}), the rate over the whole ingestion ({@code opsPerSec}) and per million pairs
 * ({@code ingestCurve}, pairs/s of each successive million), the collector's pauses during the ingestion (count, total,
 * longest: {@link GcPauses}) and the bytes of one pair ({@code pairBytes}; {@link OrderedCodec}'s sizes).
 */
public record IngestScenario(String name, String description, int keys, int quickKeys) implements TraceScenario {
    static final int WINDOW = 16_384;
    static final int STALL_SECONDS = 5;
    static final String LIMIT_PROPERTY = "grove.bench.ingest.seconds";
    static final int LIMIT_SECONDS = Integer.getInteger(LIMIT_PROPERTY, 120);
    private static final int RANGE_MASK = (1 << 26) - 1;

    @Override
    public String family() {
        return OrderedFamily.NAME;
    }

    @Override
    public Map<String, Integer> mix() {
        return Map.of("put", 100); // not run: replay ingests instead; the value names the operation it uses
    }

    @Override
    public int valueSize() {
        return OrderedCodec.VALUE_SIZE;
    }

    @Override
    public String baseline() {
        return "cslm";
    }

    /**
     * One run per contender unless {@code --repeats} says otherwise: a run takes 20-60 s at the default budget, and
     * the count ingested does not vary (three recorded repeats: identical counts off heap, within 235 pairs for
     * {@code cslm}).
     */
    @Override
    public int defaultRepeats(int requested) {
        return 1;
    }

    /** A heap map is closed after an {@link OutOfMemoryError}; the result carries its own off-heap figures. */
    @Override
    public boolean measuresMemoryAfterReplay() {
        return false;
    }

    @Override
    public Map<String, String> replay(Subject subject, WorkerConfig config) {
        OrderedKv kv = (OrderedKv) subject;
        OrderedThread t = new OrderedThread();
        int cap = Math.min(config.keys(), RANGE_MASK + 1);
        var threads = ManagementFactory.getThreadMXBean();
        GcPauses pauses = GcPauses.start();
        long gcBefore = gcMillis();
        long cpu0 = threads.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        long windowStart = t0;
        long millionStart = t0;
        StringJoiner curve = new StringJoiner("/");
        String stop = "cap";
        int pairs = 0;
        try {
            while (pairs < cap) {
                int key = (int) ((pairs * 0x9E3779B1L) & RANGE_MASK);
                if (!kv.putIfAbsent(key, t)) {
                    throw new IllegalStateException("putIfAbsent of new key " + key + " inserted nothing");
                }
                pairs++;
                if (pairs % WINDOW == 0) {
                    long now = System.nanoTime();
                    if (now - windowStart > STALL_SECONDS * 1_000_000_000L) {
                        stop = "stalled";
                        break;
                    }
                    if (now - t0 > LIMIT_SECONDS * 1_000_000_000L) {
                        stop = "time-limit";
                        break;
                    }
                    windowStart = now;
                }
                if (pairs % 1_000_000 == 0) {
                    long now = System.nanoTime();
                    curve.add(String.format(Locale.ROOT, "%.0f", 1e6 / ((now - millionStart) / 1e9)));
                    millionStart = now;
                }
            }
        } catch (GroveOutOfMemoryException full) {
            stop = "off-heap-full";
        } catch (OutOfMemoryError full) {
            kv.close(); // a heap map drops its entries so that this JVM can report
            stop = "heap-full";
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        double cpuSeconds = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
        Map<String, String> out = new LinkedHashMap<>();
        out.put("opsPerSec", String.format(Locale.ROOT, "%.1f", pairs / seconds));
        out.put("ops", Integer.toString(pairs));
        out.put("seconds", String.format(Locale.ROOT, "%.3f", seconds));
        out.put("opsPerCpuSec", String.format(Locale.ROOT, "%.1f", pairs / cpuSeconds));
        out.put("threadCpuSeconds", String.format(Locale.ROOT, "%.3f", cpuSeconds));
        out.put("cpuShare", String.format(Locale.ROOT, "%.3f", cpuSeconds / seconds));
        out.put("ingestedPairs", Integer.toString(pairs));
        out.put("ingestStop", stop);
        out.put("ingestCurve", curve.length() == 0 ? "-" : curve.toString());
        out.put("gcMillis", Long.toString(gcMillis() - gcBefore));
        pauses.stop();
        out.put("gcPauses", Long.toString(pauses.count()));
        out.put("gcPauseTotalMillis", Long.toString(pauses.totalMillis()));
        out.put("gcPauseMaxMillis", Long.toString(pauses.maxMillis()));
        out.put("pairBytes", Integer.toString(OrderedCodec.KEY_SIZE + OrderedCodec.VALUE_SIZE));
        out.put("heapMax", Long.toString(Runtime.getRuntime().maxMemory()));
        out.put("offHeapLimit", Long.toString(config.offHeapLimit()));
        if (!stop.equals("heap-full")) {
            Subject.OffHeap offHeap = kv.offHeap();
            out.put("offHeapReserved", Long.toString(offHeap.reserved()));
            out.put("offHeapLive", Long.toString(offHeap.live()));
        }
        out.put("mismatches", "0");
        // After a heap overflow the entries are gone; otherwise every one is checked, and the count must match.
        out.put("verifyWrong", Long.toString(stop.equals("heap-full") ? 0 : kv.verify()));
        out.put("anomalies", Long.toString(stop.equals("heap-full") || kv.size() == pairs ? 0 : 1));
        return out;
    }

    private static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }
}
