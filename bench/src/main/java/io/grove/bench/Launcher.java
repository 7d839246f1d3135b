package io.grove.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts one {@link Worker} JVM (same {@code java} binary and class path as this JVM) with the memory split the
 * contender's {@link Placement} asks for, waits for it with a time limit, and parses its result line.
 */
final class Launcher {
    /** Time a worker may take beyond warm-up and timed phase (JVM start, prefill, verification, GC). */
    private static final long SLACK_MILLIS = 180_000;

    private final Options options;
    /** The worker running now, ended by a shutdown hook if this JVM is stopped (e.g. Ctrl-C) meanwhile. */
    private volatile Process running;

    Launcher(Options options) {
        this.options = options;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Process p = running;
            if (p != null) {
                p.destroyForcibly();
            }
        }, "end-worker"));
    }

    /** The heap and off-heap limit the contender's JVM gets: {@code {xmx, offHeapLimit}}. */
    long[] memorySplit(Contender<?> contender) {
        long budget = options.budgetFor(contender.name());
        return switch (contender.placement()) {
            case ON_HEAP -> new long[] {budget, 0};
            case OFF_HEAP -> new long[] {options.smallHeap, budget - options.smallHeap};
            case OFF_HEAP_UNBOUNDED -> new long[] {options.smallHeap, options.growOnlyLimit};
        };
    }

    RunRecord run(WorkerConfig config, Contender<?> contender, int repeat) {
        long[] split = memorySplit(contender);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xms" + Units.jvmSize(split[0]));
        command.add("-Xmx" + Units.jvmSize(split[0]));
        command.addAll(contender.jvmOptions());
        command.addAll(options.jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(Worker.class.getName());
        command.addAll(config.toArgs());

        double load = loadAverage();
        String startTime = java.time.ZonedDateTime.now().withNano(0)
                .format(java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        long start = System.nanoTime();
        List<String> output = new ArrayList<>();
        String status;
        String error = "";
        Map<String, String> fields = new HashMap<>();
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            running = process;
            Thread reader = Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader in = new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        synchronized (output) {
                            output.add(line);
                        }
                        if (options.verbose) {
                            System.err.println("    | " + line);
                        }
                    }
                } catch (IOException e) {
                    // the process ended
                }
            });
            long limit = config.warmupMillis() + config.durationMillis() + SLACK_MILLIS;
            if (!process.waitFor(limit, TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor();
                status = "timeout";
                error = "no result after " + limit / 1000 + " s; killed";
            } else {
                status = process.exitValue() == 0 ? "ok" : "failed";
            }
            running = null;
            reader.join(10_000);
            synchronized (output) {
                for (String line : output) {
                    if (line.startsWith(Worker.RESULT_PREFIX + " ")) {
                        for (String field : line.substring(Worker.RESULT_PREFIX.length() + 1).split(" ")) {
                            int eq = field.indexOf('=');
                            fields.put(field.substring(0, eq), field.substring(eq + 1));
                        }
                    } else if (line.startsWith(Worker.ERROR_PREFIX + " ")) {
                        error = line.substring(Worker.ERROR_PREFIX.length() + 1);
                    }
                }
            }
            if (status.equals("ok") && fields.get("opsPerSec") == null) {
                status = "failed";
                error = "the worker printed no result line";
            }
            if (!status.equals("ok") && error.isEmpty()) {
                error = "exit status " + process.exitValue();
            }
        } catch (IOException e) {
            status = "failed";
            error = "cannot start " + command.getFirst() + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = "failed";
            error = "interrupted";
        }
        if (!status.equals("ok") && !options.verbose) {
            System.err.println();
            System.err.println("    worker command: " + String.join(" ", command));
            synchronized (output) {
                int from = Math.max(0, output.size() - 40);
                for (String line : output.subList(from, output.size())) {
                    System.err.println("    | " + line);
                }
            }
        }
        double wall = (System.nanoTime() - start) / 1e9;
        return new RunRecord(config.scenario(), config.contender(), config.threads(), repeat, startTime, status, fields, error,
                split[0], split[1], wall, load);
    }

    /**
     * Waits until the machine's CPUs are busy less than {@code busyBelow} over one second, for at most
     * {@code maxMillis}; returns the milliseconds waited, or -1 if the machine never went idle enough.
     */
    static long waitIdle(long maxMillis, double busyBelow) throws InterruptedException {
        long start = System.nanoTime();
        while (true) {
            long[] a = machineTicks();
            Thread.sleep(1_000);
            long[] b = machineTicks();
            long waited = (System.nanoTime() - start) / 1_000_000;
            if (a == null || b == null || b[1] == a[1]
                    || (b[0] - a[0]) / (double) (b[1] - a[1]) < busyBelow) {
                return waited;
            }
            if (waited >= maxMillis) {
                return -1;
            }
        }
    }

    /** {busy, total} jiffies of all CPUs from {@code /proc/stat}, or null (not Linux). */
    static long[] machineTicks() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length && i <= 8; i++) { // user nice system idle iowait irq softirq steal
                total += Long.parseLong(f[i]);
            }
            return new long[] {total - Long.parseLong(f[4]) - Long.parseLong(f[5]), total};
        } catch (Exception e) {
            return null;
        }
    }

    /** The 1-minute load average from {@code /proc/loadavg}, or NaN. */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (Exception e) {
            return Double.NaN;
        }
    }
}
