package io.grove.bench.latency;

import io.grove.bench.ChildJvm;
import io.grove.bench.Machine;
import io.grove.bench.ThreadContext;
import io.grove.bench.Worker;
import io.grove.bench.maps.KvRecords;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * One run of the slow-writer experiment in its own JVM, started by {@link SlowWriterLatency}: how long readers'
 * gets take while one writer keeps updating one key slowly.
 *
 * <p>Procedure: open the contender, insert keys {@code 0..keys-1} ({@link KvRecords}: the key is the scrambled
 * 64-bit word of the id, boxed once into an array so that no lookup allocates) on one thread, pick the slow key from
 * the seed. Then one writer thread runs slow updates of that key back to back (or {@code pauseNanos} apart), each
 * holding the key for {@code holdNanos} inside the map's atomic update ({@link SlowWriterMap#update}), while
 * {@code readers} threads get keys: uniformly drawn among all the other keys ({@code other}), or the slow key
 * itself ({@code same}). Writer and readers run through the warm-up and the timed phase without stopping.
 *
 * <p>Each reader times every get with {@code System.nanoTime()} around the call (the check of the value comes
 * after) and records it in its own {@link LatencyHistogram}, allocation-free. A get counts if it ended after the
 * timed phase began (so a get that started in the warm-up and waited into the timed phase counts with its whole
 * wait); a reader stops at the first get that ends after the timed phase ended, and the writer stops after its
 * update in progress, which lets every waiting reader through. The readers are closed-loop: a reader that waits
 * issues no gets meanwhile, so a long wait is one sample; {@code waitedTimeShare} (the time readers spent in gets
 * of at least {@code waitedAboveNanos}, over their timed time) shows how much of the readers' time waiting took.
 *
 * <p>Checks: every value read carries its key's word (else {@code mismatches}); no key is missing ({@code misses});
 * at the end the slow key's counter equals the writer's completed updates and the map holds every key.
 *
 * <p>After an {@code other} run, {@link BlockedKeyProbe} finds which share of the other keys a held update of
 * the slow key blocks at all ({@code blockedKeyShare}): the share of gets that can land in the slow key's
 * segment or chunk, which {@code waitedShare} understates (a closed-loop reader that waited reads on while the
 * writer is between two updates).
 */
public final class SlowWriterRun {
    private static final int WARMUP = 0;
    private static final int TIMED = 1;
    private static final int STOP = 2;

    /** The probe of blocked keys ({@link BlockedKeyProbe}) after an {@code other} run stops at the first limit. */
    private static final long PROBE_MAX_KEYS = 100_000;
    private static final long PROBE_MAX_BLOCKED = 200;
    private static final long PROBE_MAX_NANOS = 5_000_000_000L;

    private static volatile int phase = WARMUP;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private SlowWriterRun() {}

    public static void main(String[] args) {
        ChildJvm.exitWith(() -> run(SlowWriterConfig.parse(args)));
    }

    private static Map<String, String> run(SlowWriterConfig config) throws InterruptedException {
        LatencyContender contender = LatencyContender.named(config.contender());
        Long[] keys = new Long[config.keys()];
        for (int id = 0; id < keys.length; id++) {
            keys[id] = KvRecords.keyWord(id);
        }
        int slowId = ThreadContext.below(new ThreadContext(config.seed(), 0).nextLong(), config.keys());
        try (SlowWriterMap map = contender.open(config.keys(), config.offHeapLimit())) {
            long t0 = System.nanoTime();
            byte[] value = KvRecords.newValue(config.valueSize());
            Arrays.fill(value, SlowWriterMap.COUNTER, SlowWriterMap.COUNTER + Long.BYTES, (byte) 0);
            for (int id = 0; id < keys.length; id++) {
                KvRecords.stamp(value, id);
                map.putIfAbsent(keys[id], value);
            }
            double prefillSeconds = (System.nanoTime() - t0) / 1e9;
            System.gc();

            Writer writer = new Writer(map, keys[slowId], config);
            Reader[] readers = new Reader[config.readers()];
            for (int r = 0; r < readers.length; r++) {
                readers[r] = new Reader(r, map, keys, slowId, config);
            }
            writer.start();
            for (Reader r : readers) {
                r.start();
            }
            Thread.sleep(config.warmupMillis());
            long[] gcBefore = Worker.gcTotals();
            long processCpuBefore = Worker.processCpuNanos();
            long[] machineBefore = Machine.cpuTicks();
            long wallBefore = System.nanoTime();
            phase = TIMED;
            Thread.sleep(config.durationMillis());
            phase = STOP;
            long processCpu = Worker.processCpuNanos() - processCpuBefore;
            double othersShare = Worker.othersCpuShare(machineBefore, Machine.cpuTicks(), processCpu,
                    System.nanoTime() - wallBefore);
            for (Reader r : readers) {
                r.join();
            }
            writer.join();
            long[] gcAfter = Worker.gcTotals();
            for (Thread t : readers) {
                rethrow(t, ((Reader) t).failure);
            }
            rethrow(writer, writer.failure);

            byte[] slow = map.get(keys[slowId]);
            boolean counterRight = slow != null && SlowWriterMap.counter(slow) == writer.updates;
            long size = map.size();
            Map<String, String> out = fields(config, readers, writer, counterRight, size, prefillSeconds,
                    othersShare, gcBefore, gcAfter);
            if (!config.sameKey()) {
                BlockedKeyProbe.Result probe = new BlockedKeyProbe(map, keys, slowId, config.waitedAboveNanos())
                        .run(new ThreadContext(config.seed() * 31, 0), PROBE_MAX_KEYS, PROBE_MAX_BLOCKED,
                                PROBE_MAX_NANOS);
                out.put("probedKeys", Long.toString(probe.probed()));
                out.put("blockedKeys", Long.toString(probe.blocked()));
                out.put("blockedKeyShare", String.format(Locale.ROOT, "%.6f", probe.share()));
            }
            return out;
        }
    }

    private static void rethrow(Thread t, Throwable failure) {
        if (failure != null) {
            throw new IllegalStateException(t.getName() + " failed: " + failure, failure);
        }
    }

    private static Map<String, String> fields(SlowWriterConfig config, Reader[] readers, Writer writer,
            boolean counterRight, long size, double prefillSeconds, double othersShare, long[] gcBefore,
            long[] gcAfter) {
        LatencyHistogram all = new LatencyHistogram();
        double getsPerSec = 0;
        long timedNanos = 0, cpuNanos = 0, waited = 0, waitedNanos = 0, mismatches = 0, misses = 0;
        for (Reader r : readers) {
            all.add(r.histogram);
            long interval = Math.max(1, r.lastEnd - r.firstStart);
            getsPerSec += r.histogram.count() / (interval / 1e9);
            timedNanos += interval;
            cpuNanos += r.cpuNanos;
            waited += r.waited;
            waitedNanos += r.waitedNanos;
            mismatches += r.mismatches;
            misses += r.misses;
        }
        Map<String, String> out = new LinkedHashMap<>();
        out.put("contender", config.contender());
        out.put("target", config.target());
        out.put("readers", Integer.toString(config.readers()));
        out.put("gets", Long.toString(all.count()));
        out.put("getsPerSec", String.format(Locale.ROOT, "%.1f", getsPerSec));
        out.put("p50", Long.toString(all.valueAt(0.5)));
        out.put("p90", Long.toString(all.valueAt(0.9)));
        out.put("p99", Long.toString(all.valueAt(0.99)));
        out.put("p999", Long.toString(all.valueAt(0.999)));
        out.put("p9999", Long.toString(all.valueAt(0.9999)));
        out.put("max", Long.toString(all.max()));
        out.put("waited", Long.toString(waited));
        out.put("waitedShare", String.format(Locale.ROOT, "%.6f", waited / (double) Math.max(1, all.count())));
        out.put("waitedTimeShare", String.format(Locale.ROOT, "%.4f", waitedNanos / (double) timedNanos));
        out.put("readerCpuShare", String.format(Locale.ROOT, "%.3f", cpuNanos / (double) timedNanos));
        out.put("updates", Long.toString(writer.updates));
        out.put("updateMeanMillis", String.format(Locale.ROOT, "%.2f",
                writer.updates == 0 ? Double.NaN : writer.updateNanos / 1e6 / writer.updates));
        out.put("mismatches", Long.toString(mismatches));
        out.put("misses", Long.toString(misses));
        out.put("counterWrong", counterRight ? "0" : "1");
        out.put("sizeWrong", Long.toString(Math.abs(size - config.keys())));
        out.put("prefillSeconds", String.format(Locale.ROOT, "%.2f", prefillSeconds));
        out.put("gcCount", Long.toString(gcAfter[0] - gcBefore[0]));
        out.put("gcMillis", Long.toString(gcAfter[1] - gcBefore[1]));
        out.put("othersCpuShare", String.format(Locale.ROOT, "%.3f", othersShare));
        return out;
    }

    /** An id drawn uniformly among {@code 0..keys-1} except {@code slowId}. */
    static int otherId(ThreadContext random, int keys, int slowId) {
        int id = ThreadContext.below(random.nextLong(), keys - 1);
        return id < slowId ? id : id + 1;
    }

    /** Waits {@code nanos} without using a core (parkNanos may return early: parks again until the deadline). */
    private static void parkFor(long nanos) {
        long end = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /** Waits {@code nanos} on a core. */
    private static void spinFor(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }

    /** The thread that updates the slow key, slowly, until the timed phase ends. */
    private static final class Writer extends Thread {
        private final SlowWriterMap map;
        private final Long key;
        private final Runnable hold;
        private final long pauseNanos;
        long updates;
        long updateNanos;
        volatile Throwable failure;

        Writer(SlowWriterMap map, Long key, SlowWriterConfig config) {
            super("slow-writer");
            this.map = map;
            this.key = key;
            long holdNanos = config.holdNanos();
            this.hold = config.spin() ? () -> spinFor(holdNanos) : () -> parkFor(holdNanos);
            this.pauseNanos = config.pauseNanos();
        }

        @Override
        public void run() {
            try {
                while (phase != STOP) {
                    long start = System.nanoTime();
                    if (!map.update(key, hold)) {
                        throw new IllegalStateException("the slow key " + key + " is missing");
                    }
                    updateNanos += System.nanoTime() - start;
                    updates++;
                    if (pauseNanos > 0) {
                        parkFor(pauseNanos);
                    }
                }
            } catch (Throwable t) {
                failure = t;
                phase = STOP;
            }
        }
    }

    /** A thread that gets keys and times each get, until the timed phase ends. */
    private static final class Reader extends Thread {
        private final SlowWriterMap map;
        private final Long[] keys;
        private final int slowId;
        private final boolean sameKey;
        private final int valueSize;
        private final long waitedAbove;
        private final ThreadContext random;
        final LatencyHistogram histogram = new LatencyHistogram();
        long firstStart;
        long lastEnd;
        long cpuNanos;
        long waited;
        long waitedNanos;
        long mismatches;
        long misses;
        volatile Throwable failure;

        Reader(int index, SlowWriterMap map, Long[] keys, int slowId, SlowWriterConfig config) {
            super("reader-" + index);
            this.map = map;
            this.keys = keys;
            this.slowId = slowId;
            this.sameKey = config.sameKey();
            this.valueSize = config.valueSize();
            this.waitedAbove = config.waitedAboveNanos();
            this.random = new ThreadContext(config.seed() * 31 + index + 1, 0);
        }

        @Override
        public void run() {
            try {
                long cpuStart = 0;
                while (true) {
                    int id = sameKey ? slowId : otherId(random, keys.length, slowId);
                    long start = System.nanoTime();
                    byte[] value = map.get(keys[id]);
                    long end = System.nanoTime();
                    int p = phase;
                    check(value, id);
                    if (p != WARMUP) {
                        if (histogram.count() == 0) {
                            firstStart = start;
                            cpuStart = THREADS.getCurrentThreadCpuTime();
                        }
                        long nanos = end - start;
                        histogram.record(nanos);
                        if (nanos >= waitedAbove) {
                            waited++;
                            waitedNanos += nanos;
                        }
                        lastEnd = end;
                        if (p == STOP) {
                            cpuNanos = THREADS.getCurrentThreadCpuTime() - cpuStart;
                            return;
                        }
                    }
                }
            } catch (Throwable t) {
                failure = t;
                phase = STOP;
            }
        }


        private void check(byte[] value, int id) {
            if (value == null) {
                misses++;
            } else if (!KvRecords.matches(value, value.length, id, valueSize)) {
                mismatches++;
            }
        }
    }
}
