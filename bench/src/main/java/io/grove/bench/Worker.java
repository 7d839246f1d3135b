package io.grove.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One cell of the comparison in its own JVM, started by {@link BenchMain}: opens the contender, prefills on one
 * thread, runs the scenario's mix on N threads for the warm-up and then for the timed phase, verifies every entry,
 * and prints one result line ({@link ChildJvm#exitWith}).
 *
 * <p>Timing: the threads run from the start of the warm-up to the end of the timed phase without stopping; the
 * coordinator switches {@link #phase} from warm-up to timed to stop. Each thread checks the phase every
 * {@link Scenario#batch()} operations (64; 1 for scans) and notes its own operation count and
 * {@code System.nanoTime()} when it sees a change; throughput is the sum over threads of (operations in the timed
 * phase) / (that thread's timed interval). Each thread also notes its CPU time, so the result says what share of
 * the timed phase the worker threads actually ran ({@code cpuShare}, below 1 when other processes took the cores)
 * and the throughput per CPU second of the worker threads ({@code opsPerCpuSec}: what the threads would do with a
 * core each, GC threads not counted).
 */
public final class Worker {
    private static final int WARMUP = 0;
    private static final int TIMED = 1;
    private static final int STOP = 2;

    private static volatile int phase = WARMUP;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private Worker() {}

    public static void main(String[] args) {
        ChildJvm.exitWith(() -> {
            WorkerConfig config = WorkerConfig.parse(args);
            return run(config, Registry.contender(config.contender(),
                    Registry.scenario(config.scenario()).family()));
        });
    }

    /** What one worker thread measured. */
    private static final class Runner extends Thread {
        private final Runnable body;
        volatile Throwable failure;

        Runner(String name, Runnable body) {
            super(name);
            this.body = body;
        }

        @Override
        public void run() {
            try {
                body.run();
            } catch (Throwable t) {
                failure = t;
                phase = STOP;
            }
        }
    }

    /** Counts of one thread, taken by the thread itself when it sees the phase change. */
    private static final class Measure {
        ThreadContext context;
        long timedOps;
        long timedNanos;
        long timedCpuNanos;
        long[] timedOperations;
    }

    private static <S extends Subject> Map<String, String> run(WorkerConfig config, Contender<S> contender)
            throws Exception {
        Scenario scenario = Registry.scenario(config.scenario());
        Family<S> family = contender.family();
        if (!family.name().equals(scenario.family())) {
            throw new IllegalArgumentException("contender " + contender.name() + " serves family " + family.name()
                    + ", scenario " + scenario.name() + " needs " + scenario.family());
        }
        byte[][] opTables = new byte[config.threads()][];
        for (int t = 0; t < opTables.length; t++) {
            opTables[t] = opTable(scenario, scenario.mixOf(t), family);
        }
        family.prepare(config);
        System.gc();
        long heapBeforeOpen = heapUsed();
        long rssBeforeOpen = procStatusBytes("VmRSS");
        S subject = contender.open(config);
        try {
            if (scenario instanceof TraceScenario trace) {
                Map<String, String> out = new LinkedHashMap<>();
                out.put("scenario", scenario.name());
                out.put("contender", contender.name());
                out.put("family", family.name());
                out.put("threads", "1");
                out.putAll(trace.replay(subject, config));
                if (trace.measuresMemoryAfterReplay()) {
                    memoryFields(out, subject, heapBeforeOpen, rssBeforeOpen);
                }
                out.put("rssPeak", Long.toString(procStatusBytes("VmHWM")));
                out.put("rss", Long.toString(procStatusBytes("VmRSS")));
                return out;
            }
            long[] gcBeforePrefill = gcTotals();
            long t0 = System.nanoTime();
            family.prefill(subject, config);
            double prefillSeconds = (System.nanoTime() - t0) / 1e9;
            long[] gcAfterPrefill = gcTotals();
            Subject.OffHeap afterPrefill = subject.offHeap();
            Map<String, String> memory = new LinkedHashMap<>();
            memoryFields(memory, subject, heapBeforeOpen, rssBeforeOpen);

            int threads = config.threads();
            Measure[] measures = new Measure[threads];
            List<Runner> runners = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Measure m = measures[t] = new Measure();
                long seed = config.seed() * 31 + t;
                byte[] opTable = opTables[t];
                runners.add(new Runner("worker-" + t, () -> loop(family, subject, opTable, config.keys(), seed, m,
                        scenario.batch())));
            }
            runners.forEach(Thread::start);
            Thread.sleep(config.warmupMillis());
            long[] gcBefore = gcTotals();
            long processCpuBefore = processCpuNanos();
            long[] machineBefore = Machine.cpuTicks();
            long wallBefore = System.nanoTime();
            phase = TIMED;
            Thread.sleep(config.durationMillis());
            phase = STOP;
            long processCpu = processCpuNanos() - processCpuBefore;
            double othersShare = othersCpuShare(machineBefore, Machine.cpuTicks(), processCpu,
                    System.nanoTime() - wallBefore);
            for (Runner r : runners) {
                r.join();
            }
            long[] gcAfter = gcTotals();
            for (Runner r : runners) {
                if (r.failure != null) {
                    throw new IllegalStateException(r.getName() + " failed: " + r.failure, r.failure);
                }
            }
            long heapAfterRun = heapUsed();
            Subject.OffHeap afterRun = subject.offHeap();
            long verifyWrong = family.verify(subject, config);
            System.gc();
            long heapLive = heapUsed();

            Map<String, String> out = new LinkedHashMap<>();
            double opsPerSec = 0;
            long ops = 0;
            double seconds = 0;
            double opsPerCpuSec = 0;
            double cpuSeconds = 0;
            double threadSeconds = 0;
            long[] perOp = new long[family.operations().size()];
            long misses = 0, mismatches = 0, readRetries = 0, writeRetries = 0, lostRaces = 0, anomalies = 0, sink = 0;
            for (Measure m : measures) {
                opsPerSec += m.timedOps / (m.timedNanos / 1e9);
                ops += m.timedOps;
                seconds += m.timedNanos / 1e9 / threads;
                threadSeconds += m.timedNanos / 1e9;
                cpuSeconds += m.timedCpuNanos / 1e9;
                opsPerCpuSec += m.timedCpuNanos > 0 ? m.timedOps / (m.timedCpuNanos / 1e9) : Double.NaN;
                for (int i = 0; i < perOp.length; i++) {
                    perOp[i] += m.timedOperations[i];
                }
                mismatches += m.context.mismatches;
                misses += m.context.misses;
                readRetries += m.context.readRetries;
                writeRetries += m.context.writeRetries;
                lostRaces += m.context.lostRaces;
                anomalies += m.context.anomalies;
                sink ^= m.context.sink;
            }
            out.put("scenario", scenario.name());
            out.put("contender", contender.name());
            out.put("family", family.name());
            out.put("threads", Integer.toString(threads));
            out.put("opsPerSec", String.format(Locale.ROOT, "%.1f", opsPerSec));
            out.put("ops", Long.toString(ops));
            out.put("seconds", String.format(Locale.ROOT, "%.3f", seconds));
            out.put("opsPerCpuSec", String.format(Locale.ROOT, "%.1f", opsPerCpuSec));
            out.put("threadCpuSeconds", String.format(Locale.ROOT, "%.3f", cpuSeconds));
            out.put("cpuShare", String.format(Locale.ROOT, "%.3f", cpuSeconds / threadSeconds));
            out.put("processCpuSeconds", String.format(Locale.ROOT, "%.3f", processCpu / 1e9));
            out.put("othersCpuShare", String.format(Locale.ROOT, "%.3f", othersShare));
            for (int i = 0; i < perOp.length; i++) {
                out.put("op." + family.operations().get(i), Long.toString(perOp[i]));
            }
            out.put("mismatches", Long.toString(mismatches));
            out.put("misses", Long.toString(misses));
            out.put("verifyWrong", Long.toString(verifyWrong));
            out.put("readRetries", Long.toString(readRetries));
            out.put("writeRetries", Long.toString(writeRetries));
            out.put("lostRaces", Long.toString(lostRaces));
            out.put("anomalies", Long.toString(anomalies));
            out.put("prefillSeconds", String.format(Locale.ROOT, "%.2f", prefillSeconds));
            out.put("prefillGcCount", Long.toString(gcAfterPrefill[0] - gcBeforePrefill[0]));
            out.put("prefillGcMillis", Long.toString(gcAfterPrefill[1] - gcBeforePrefill[1]));
            out.put("gcCount", Long.toString(gcAfter[0] - gcBefore[0]));
            out.put("gcMillis", Long.toString(gcAfter[1] - gcBefore[1]));
            out.put("gcConcurrentCount", Long.toString(gcAfter[2] - gcBefore[2]));
            out.put("gcConcurrentMillis", Long.toString(gcAfter[3] - gcBefore[3]));
            out.put("gcNames", gcNames());
            out.put("heapMax", Long.toString(Runtime.getRuntime().maxMemory()));
            out.put("heapUsedAfterRun", Long.toString(heapAfterRun));
            out.put("heapLiveAfterGc", Long.toString(heapLive));
            out.put("offHeapLimit", Long.toString(config.offHeapLimit()));
            out.put("offHeapReservedAfterPrefill", Long.toString(afterPrefill.reserved()));
            out.put("offHeapReserved", Long.toString(afterRun.reserved()));
            out.put("offHeapLive", Long.toString(afterRun.live()));
            out.put("offHeapReleased", Long.toString(afterRun.released()));
            out.put("offHeapFree", Long.toString(afterRun.free()));
            out.putAll(memory);
            out.put("rssPeak", Long.toString(procStatusBytes("VmHWM")));
            out.put("rss", Long.toString(procStatusBytes("VmRSS")));
            out.put("sink", Long.toHexString(sink));
            return out;
        } finally {
            subject.close();
        }
    }

    /**
     * Memory figures of the subject as it is now (after prefill, or after a trace) relative to the JVM before the
     * subject was opened: {@code entries}; {@code heapPerEntry} = growth of the heap used after a full GC;
     * {@code rssPerEntry} = growth of the resident set (heap pages touched, off-heap memory, the library's own
     * structures); {@code offHeapPerEntry} = the off-heap bytes the library itself reports (-1 if none) per entry.
     */
    private static void memoryFields(Map<String, String> out, Subject subject, long heapBefore, long rssBefore) {
        long entries = subject.entries();
        System.gc();
        long heap = heapUsed();
        long rss = procStatusBytes("VmRSS");
        Subject.OffHeap offHeap = subject.offHeap();
        long offHeapBytes = offHeap.reserved();
        out.put("entries", Long.toString(entries));
        out.put("heapGrowth", Long.toString(heap - heapBefore));
        out.put("rssGrowth", Long.toString(rss - rssBefore));
        out.put("offHeapUsed", Long.toString(offHeapBytes));
        out.put("offHeapLiveAfterPrefill", Long.toString(offHeap.live()));
        if (entries > 0) {
            out.put("heapPerEntry", String.format(Locale.ROOT, "%.1f", (heap - heapBefore) / (double) entries));
            out.put("rssPerEntry", String.format(Locale.ROOT, "%.1f", (rss - rssBefore) / (double) entries));
            out.put("offHeapPerEntry", String.format(Locale.ROOT, "%.1f",
                    offHeapBytes > 0 ? offHeapBytes / (double) entries : -1.0));
        }
    }

    /** The hot loop of one thread. */
    private static <S extends Subject> void loop(Family<S> family, S subject, byte[] opTable, int keys, long seed,
            Measure m, int batch) {
        ThreadContext context = new ThreadContext(seed, family.operations().size());
        m.context = context;
        long[] counts = context.operations;
        long ops = 0;
        long startOps = 0;
        long startNanos = 0;
        long startCpu = 0;
        long[] startCounts = null;
        int seen = WARMUP;
        while (true) {
            for (int i = 0; i < batch; i++) {
                long r = context.nextLong();
                int op = opTable[ThreadContext.below(r >>> 32, 100)];
                family.perform(subject, op, ThreadContext.below(r, keys), context);
                counts[op]++;
            }
            ops += batch;
            int p = phase;
            if (p != seen) {
                long now = System.nanoTime();
                long cpu = THREADS.getCurrentThreadCpuTime();
                if (seen == WARMUP) {
                    startOps = ops;
                    startNanos = now;
                    startCpu = cpu;
                    startCounts = counts.clone();
                }
                if (p == STOP) {
                    m.timedOps = ops - startOps;
                    m.timedNanos = now - startNanos;
                    m.timedCpuNanos = cpu - startCpu;
                    long[] timed = counts.clone();
                    for (int i = 0; i < timed.length; i++) {
                        timed[i] -= startCounts[i];
                    }
                    m.timedOperations = timed;
                    return;
                }
                seen = p;
            }
        }
    }

    /** 100 entries, each an operation index, in the proportions of {@code mix}, one thread's mix of the scenario. */
    private static byte[] opTable(Scenario scenario, Map<String, Integer> mix, Family<?> family) {
        byte[] table = new byte[100];
        int at = 0;
        for (Map.Entry<String, Integer> e : mix.entrySet()) {
            int op = family.operations().indexOf(e.getKey());
            if (op < 0) {
                throw new IllegalArgumentException("scenario " + scenario.name() + ": family " + family.name()
                        + " has no operation '" + e.getKey() + "'; it has " + family.operations());
            }
            for (int i = 0; i < e.getValue(); i++) {
                table[at++] = (byte) op;
            }
        }
        return table;
    }

    /** {pause collections, pause millis, concurrent cycles, concurrent millis} over all collectors so far. */
    public static long[] gcTotals() {
        long[] totals = new long[4];
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            int at = gc.getName().contains("Concurrent") ? 2 : 0; // G1's "G1 Concurrent GC": not a pause
            totals[at] += Math.max(0, gc.getCollectionCount());
            totals[at + 1] += Math.max(0, gc.getCollectionTime());
        }
        return totals;
    }

    private static String gcNames() {
        return String.join("+", ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(gc -> gc.getName().replace(' ', '_')).toList());
    }

    /**
     * The share of the machine's CPU capacity that other processes (and the kernel, and the parent) used during the
     * timed phase: busy time of all CPUs minus this JVM's CPU time, over (wall time × CPUs); NaN if unknown. Steal
     * time counts as busy, so a hypervisor's neighbours show up too.
     */
    public static double othersCpuShare(long[] before, long[] after, long processCpuNanos, long wallNanos) {
        if (before == null || after == null || processCpuNanos < 0) {
            return Double.NaN;
        }
        long total = after[1] - before[1];
        if (total <= 0) {
            return Double.NaN;
        }
        double ticksPerSecond = total / (wallNanos / 1e9) / Runtime.getRuntime().availableProcessors();
        double othersTicks = (after[0] - before[0]) - processCpuNanos / 1e9 * ticksPerSecond;
        return Math.max(0, othersTicks / total);
    }

    /** The CPU time of all of this JVM's threads so far, or -1 where the JVM does not tell. */
    public static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    private static long heapUsed() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** A {@code kB} figure from {@code /proc/self/status} in bytes, or -1 where there is none (not Linux). */
    static long procStatusBytes(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(field + ":")) {
                    String[] parts = line.substring(field.length() + 1).trim().split("\\s+");
                    return Long.parseLong(parts[0]) * 1024;
                }
            }
        } catch (Exception e) {
            // not Linux
        }
        return -1;
    }
}
