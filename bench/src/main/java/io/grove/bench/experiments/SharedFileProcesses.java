package io.grove.bench.experiments;

import io.grove.GroveHashMap;
import io.grove.bench.ChildJvm;
import io.grove.bench.maps.ChronicleKv;
import io.grove.bench.maps.GroveKv;
import io.grove.bench.maps.KvMap;
import io.grove.bench.maps.KvThread;
import io.grove.serial.Serializers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Several processes on one hash map file (MapHash §4.9), each a JVM of its own on this machine.
 *
 * <p>{@code throughput [processes P] [threads T] [records N] [seconds S] [rounds R]}: MapHash's 80/15/5 workload
 * (8-byte keys, 248-byte values, N records loaded, uniform ids; copying get, put, remove) run by P processes of T
 * threads at once on one file, for Grove ({@code grove-hash-file}'s map) and Chronicle Map ({@code createPersistedTo},
 * the same file opened by each process), then by one process of P x T threads on a file of its own, each timed for
 * S seconds after a warm-up of 3 s: the aggregate operations per second of each, rounds interleaved, with the medians
 * and the ratios the issue asks for (Grove's P processes over Chronicle's, and over Grove's one process) and
 * Chronicle's own cost of sharing. Defaults: 2 processes, 1 thread, 1,000,000 records, 10 s, 3 rounds. With
 * {@code cells 1}, Grove's map is {@code grove-hash-file-inline}'s (entries in the table's cells) instead. With
 * {@code reads G}, G% of the operations are gets and the rest puts and removes in MapHash's 3 to 1 (80 by default;
 * 100: gets only). With {@code warmup W}, each run warms up for W seconds (3 by default).
 *
 * <p>{@code resume [kills K] [records N]}: how long the survivors wait when a process is killed holding a lock. A
 * holder process updates key 0 in place again and again, each update holding its segment's lock for 5 ms; a survivor
 * process runs the 80/15/5 workload with one thread and with another puts key 0 in a loop, so that it waits for the
 * holder most of the time. The driver kills the holder with {@code SIGKILL} at a random moment, K times (starting a new
 * holder each time), and reports per kill how long after the kill the survivor's waiting put returned (the resume
 * time: the waiter's next look at the holder, about every 30 ms, then the repair of the segment) and the workload
 * thread's operations per second around the kills against its whole run (the other segments never stopped).
 * Defaults: 20 kills, 100,000 records.
 *
 * <pre>
 * java -cp "bench/target/grove-bench.jar:bench/target/lib/*" io.grove.bench.experiments.SharedFileProcesses throughput
 * java -cp "bench/target/grove-bench.jar:bench/target/lib/*" io.grove.bench.experiments.SharedFileProcesses resume
 * </pre>
 */
public final class SharedFileProcesses {
    private static final int KEY = 8;
    private static final int VALUE = 248;
    private static final long HEAP = 512L << 20;
    /** Grove's map with entries in cells ({@code throughput cells 1}). */
    private static final String GROVE_CELLS = "grove-inline";

    private SharedFileProcesses() {}

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "throughput" -> throughput(option(args, "cells", 0) == 1 ? GROVE_CELLS : "grove",
                    option(args, "processes", 2), option(args, "threads", 1), option(args, "records", 1_000_000),
                    option(args, "seconds", 10), option(args, "rounds", 3), option(args, "reads", 80),
                    option(args, "warmup", 3));
            case "resume" -> resume(option(args, "kills", 20), option(args, "records", 100_000));
            case "fill" -> fill(args[1], Path.of(args[2]), Long.parseLong(args[3]));
            case "run" -> run(args[1], Path.of(args[2]), Long.parseLong(args[3]), Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]), Integer.parseInt(args[6]), Integer.parseInt(args[7]));
            case "hold" -> hold(Path.of(args[1]), Long.parseLong(args[2]));
            case "survive" -> survive(Path.of(args[1]), Long.parseLong(args[2]));
            default -> throw new IllegalArgumentException("throughput or resume, not " + args[0]);
        }
    }

    private static long option(String[] args, String name, long fallback) {
        for (int i = 1; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return Long.parseLong(args[i + 1]);
            }
        }
        return fallback;
    }

    // ---- throughput ----------------------------------------------------------------------------------------------

    private static void throughput(String grove, long processes, long threads, long records, long seconds,
            long rounds, long reads, long warmup) throws Exception {
        String[] runs = {grove + ", " + processes + " processes", "chronicle, " + processes + " processes",
                grove + ", 1 process", "chronicle, 1 process"};
        double[][] results = new double[runs.length][(int) rounds];
        for (int round = 0; round < rounds; round++) {
            results[0][round] = shared(grove, (int) processes, threads, records, seconds, reads, warmup);
            results[1][round] = shared("chronicle", (int) processes, threads, records, seconds, reads, warmup);
            results[2][round] = shared(grove, 1, processes * threads, records, seconds, reads, warmup);
            results[3][round] = shared("chronicle", 1, processes * threads, records, seconds, reads, warmup);
            System.out.printf("round %d: %s%n", round + 1, describe(runs, results, round));
        }
        double[] medians = Arrays.stream(results).mapToDouble(SharedFileProcesses::median).toArray();
        System.out.printf("medians over %d rounds of %d s, %,d records, %d%% gets, %d x %d threads: %s%n", rounds,
                seconds, records, reads, processes, threads, describe(runs, Arrays.stream(medians)
                        .mapToObj(m -> new double[] {m}).toArray(double[][]::new), 0));
        System.out.printf("grove %d processes / chronicle %d processes: %.2f; / grove 1 process of %d threads: %.2f;"
                + " chronicle %d processes / chronicle 1 process: %.2f%n", processes, processes,
                medians[0] / medians[1], processes * threads, medians[0] / medians[2], processes,
                medians[1] / medians[3]);
    }

    private static String describe(String[] runs, double[][] results, int round) {
        List<String> parts = new ArrayList<>();
        for (int r = 0; r < runs.length; r++) {
            parts.add(String.format("%s %,.0f ops/s", runs[r], results[r][round]));
        }
        return String.join("; ", parts);
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }

    /**
     * Fills a new file of {@code contender}'s with {@code records} records, runs {@code processes} processes of
     * {@code threads} threads on it for {@code seconds} after one start signal, and returns their operations per
     * second summed.
     */
    private static double shared(String contender, int processes, long threads, long records, long seconds,
            long reads, long warmup) throws Exception {
        Path file = Files.createTempFile("grove-shared-", ".map");
        Files.delete(file);
        try {
            Process filler = child(contender, "fill", contender, file.toString(), String.valueOf(records)).start();
            if (filler.waitFor() != 0) {
                throw new IllegalStateException(contender + " fill failed: " + output(filler));
            }
            Process[] runners = new Process[processes];
            BufferedReader[] outputs = new BufferedReader[processes];
            for (int p = 0; p < processes; p++) {
                runners[p] = child(contender, "run", contender, file.toString(), String.valueOf(records),
                        String.valueOf(seconds), String.valueOf(threads), String.valueOf(reads), String.valueOf(warmup))
                        .start();
                outputs[p] = new BufferedReader(new InputStreamReader(runners[p].getInputStream(),
                        StandardCharsets.US_ASCII));
                expect(outputs[p], "ready", runners[p]);
            }
            for (Process runner : runners) {
                signal(runner);
            }
            double total = 0;
            for (int p = 0; p < processes; p++) {
                String ops = expect(outputs[p], "ops ", runners[p]);
                total += Double.parseDouble(ops.substring(4));
                if (runners[p].waitFor() != 0) {
                    throw new IllegalStateException(contender + " run failed: " + output(runners[p]));
                }
            }
            return total;
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** A child JVM of this class with {@code args}, and Chronicle's options when {@code contender} needs them. */
    private static ProcessBuilder child(String contender, String... args) {
        List<String> options = contender.equals("chronicle") ? ChronicleKv.JVM_OPTIONS : List.of();
        return new ProcessBuilder(ChildJvm.command(HEAP, options, SharedFileProcesses.class, List.of(args)))
                .redirectError(ProcessBuilder.Redirect.INHERIT);
    }

    private static KvMap open(String contender, Path file, long records) {
        boolean cells = contender.equals(GROVE_CELLS);
        return contender.equals("chronicle") ? ChronicleKv.sharedFile(file, records, KEY, VALUE)
                : GroveKv.sharedFile(file, records, KEY, VALUE, records * (cells ? 1024 : 512) + (256L << 20), cells);
    }

    private static void fill(String contender, Path file, long records) {
        try (KvMap map = open(contender, file, records)) {
            KvThread t = new KvThread(KEY, VALUE);
            for (long id = 0; id < records; id++) {
                t.record(id);
                map.put(t, id);
            }
        }
    }

    /**
     * Runs MapHash's 80/15/5 workload on the shared file once the driver says so, {@code warmup} seconds and then
     * {@code seconds} more; prints its operations per second over the latter.
     */
    private static void run(String contender, Path file, long records, int seconds, int threads, int reads,
            int warmup) throws Exception {
        try (KvMap map = open(contender, file, records)) {
            System.out.println("ready");
            System.out.flush();
            awaitSignal();
            AtomicBoolean stop = new AtomicBoolean();
            LongAdder ops = new LongAdder();
            Thread[] workers = new Thread[threads];
            for (int i = 0; i < threads; i++) {
                long seed = ProcessHandle.current().pid() * 1_000 + i;
                workers[i] = new Thread(() -> workload(map, records, reads, seed, stop, ops));
                workers[i].start();
            }
            Thread.sleep(warmup * 1_000L);
            long start = System.nanoTime();
            long before = ops.sum();
            Thread.sleep(seconds * 1_000L);
            long done = ops.sum() - before;
            long end = System.nanoTime();
            stop.set(true);
            for (Thread worker : workers) {
                worker.join();
            }
            System.out.println("ops " + done * 1e9 / (end - start));
        }
    }

    /**
     * MapHash's 80/15/5 on uniform ids ({@code reads}% gets, the rest puts and removes 3 to 1) until {@code stop},
     * adding the operations done to {@code ops} every 256. Throws on a wrong value.
     */
    private static void workload(KvMap map, long records, int reads, long seed, AtomicBoolean stop, LongAdder ops) {
        int puts = reads + (100 - reads) * 3 / 4;
        KvThread t = new KvThread(KEY, VALUE);
        SplittableRandom random = new SplittableRandom(seed);
        while (!stop.get()) {
            for (int i = 0; i < 256; i++) {
                long id = random.nextLong(records);
                int op = random.nextInt(100);
                if (op < reads) {
                    t.key(id);
                    if (map.get(t, id) == KvMap.WRONG) {
                        throw new IllegalStateException("a wrong value for id " + id);
                    }
                } else if (op < puts) {
                    t.record(id);
                    map.put(t, id);
                } else {
                    t.key(id);
                    map.remove(t, id);
                }
            }
            ops.add(256);
        }
    }

    // ---- resume --------------------------------------------------------------------------------------------------

    private static GroveHashMap<Long, byte[]> openGrove(Path file, long records) {
        return GroveHashMap.builder(Serializers.longs(), Serializers.bytes()).file(file)
                .maxFileSize(records * 512 + (256L << 20)).expectedSize(records).build();
    }

    private static void resume(long kills, long records) throws Exception {
        Path file = Files.createTempFile("grove-resume-", ".grove");
        Files.delete(file);
        Random random = new Random(1);
        try {
            try (GroveHashMap<Long, byte[]> map = openGrove(file, records)) {
                for (long id = 0; id < records; id++) {
                    map.put(id, new byte[VALUE]);
                }
            }
            Process survivor = child("grove", "survive", file.toString(), String.valueOf(records)).start();
            BufferedReader survivorOutput = new BufferedReader(new InputStreamReader(survivor.getInputStream(),
                    StandardCharsets.US_ASCII));
            expect(survivorOutput, "ready", survivor);
            long[] killedAt = new long[(int) kills];
            for (int k = 0; k < kills; k++) {
                Process holder = child("grove", "hold", file.toString(), String.valueOf(records)).start();
                BufferedReader holderOutput = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                        StandardCharsets.US_ASCII));
                expect(holderOutput, "holding", holder);
                Thread.sleep(500 + random.nextInt(500));
                killedAt[k] = System.nanoTime();
                holder.destroyForcibly().waitFor();
                Thread.sleep(500);
            }
            signal(survivor);
            List<long[]> waits = new ArrayList<>();
            String line;
            double opsPerSecond = 0;
            List<long[]> windows = new ArrayList<>();
            while ((line = survivorOutput.readLine()) != null) {
                String[] f = line.split(" ");
                switch (f[0]) {
                    case "wait" -> waits.add(new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
                    case "window" -> windows.add(new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
                    case "ops" -> opsPerSecond = Double.parseDouble(f[1]);
                    default -> { }
                }
            }
            survivor.waitFor();
            long[] resumeMicros = new long[(int) kills];
            for (int k = 0; k < kills; k++) {
                long at = killedAt[k];
                resumeMicros[k] = waits.stream().filter(w -> w[0] <= at && w[1] >= at)
                        .mapToLong(w -> (w[1] - at) / 1_000).findFirst().orElse(-1);
            }
            long[] found = Arrays.stream(resumeMicros).filter(m -> m >= 0).sorted().toArray();
            System.out.printf("resume after %d kills of a holder (%d found waiting): median %,d us, maximum %,d us;"
                    + " all: %s us%n", kills, found.length, found[found.length / 2], found[found.length - 1],
                    Arrays.toString(resumeMicros));
            double aroundKills = windows.stream().filter(w -> nearAKill(w[0], killedAt)).mapToLong(w -> w[1]).average()
                    .orElse(0) * 10;
            System.out.printf("the survivor's workload thread: %,.0f ops/s over its run, %,.0f ops/s in the 100 ms"
                    + " windows within 100 ms of a kill%n", opsPerSecond, aroundKills);
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static boolean nearAKill(long windowStart, long[] killedAt) {
        for (long at : killedAt) {
            if (Math.abs(windowStart - at) < 100_000_000L) {
                return true;
            }
        }
        return false;
    }

    /** Updates key 0 in place again and again, each update holding its segment's lock for 5 ms, until killed. */
    private static void hold(Path file, long records) throws InterruptedException {
        GroveHashMap<Long, byte[]> map = openGrove(file, records); // never closed: killed
        System.out.println("holding");
        System.out.flush();
        while (true) {
            map.zc().computeIfPresent(0L, view -> {
                view.putLong(0, view.getLong(0) + 1);
                long until = System.nanoTime() + 5_000_000;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
            });
            Thread.sleep(0, 100_000);
        }
    }

    /**
     * Until the driver's signal: one thread puts key 0 in a loop and records each put that took more than 1 ms
     * ({@code wait start end}); another runs the 80/15/5 workload on the other keys, counting its operations per
     * 100 ms window ({@code window start count}); then prints the workload's operations per second.
     */
    private static void survive(Path file, long records) throws Exception {
        try (GroveHashMap<Long, byte[]> map = openGrove(file, records)) {
            AtomicBoolean stop = new AtomicBoolean();
            List<String> lines = new ArrayList<>();
            Thread waiter = new Thread(() -> {
                byte[] value = new byte[VALUE];
                while (!stop.get()) {
                    long start = System.nanoTime();
                    map.put(0L, value);
                    long end = System.nanoTime();
                    if (end - start > 1_000_000) {
                        synchronized (lines) {
                            lines.add("wait " + start + " " + end);
                        }
                    }
                }
            });
            long[] total = new long[1];
            Thread worker = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(7);
                byte[] value = new byte[VALUE];
                long windowStart = System.nanoTime();
                long count = 0;
                while (!stop.get()) {
                    long id = 1 + random.nextLong(records - 1);
                    int op = random.nextInt(100);
                    if (op < 80) {
                        map.get(id);
                    } else if (op < 95) {
                        map.put(id, value);
                    } else {
                        map.remove(id);
                    }
                    count++;
                    total[0]++;
                    long now = System.nanoTime();
                    if (now - windowStart >= 100_000_000) {
                        synchronized (lines) {
                            lines.add("window " + windowStart + " " + count);
                        }
                        windowStart = now;
                        count = 0;
                    }
                }
            });
            System.out.println("ready");
            System.out.flush();
            long start = System.nanoTime();
            waiter.start();
            worker.start();
            awaitSignal();
            stop.set(true);
            waiter.join();
            worker.join();
            for (String line : lines) {
                System.out.println(line);
            }
            System.out.println("ops " + total[0] * 1e9 / (System.nanoTime() - start));
        }
    }

    // ---- processes -----------------------------------------------------------------------------------------------

    /** Reads lines of {@code process} until one starts with {@code prefix}, which it returns. */
    private static String expect(BufferedReader output, String prefix, Process process) throws IOException {
        String line;
        while ((line = output.readLine()) != null) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
        throw new IllegalStateException("the child ended (status " + process.exitValue() + ") before \"" + prefix
                + "\"");
    }

    private static void signal(Process process) throws IOException {
        OutputStream in = process.getOutputStream();
        in.write('\n');
        in.flush();
    }

    private static void awaitSignal() {
        try {
            if (System.in.read() < 0) {
                throw new IllegalStateException("the driver ended");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String output(Process process) throws IOException {
        return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
