package io.grove.bench.latency;

import io.grove.bench.BenchMain;
import io.grove.bench.ChildJvm;
import io.grove.bench.Machine;
import io.grove.bench.Placement;
import io.grove.bench.Units;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The slow-writer latency experiment ({@code ./grove bench latency [options]}, {@link LatencyOptions#USAGE}): for
 * each target (readers get other keys, or the slow key itself), repeat and map, one child JVM
 * ({@link SlowWriterRun}) with the comparison's memory split; the maps of one repeat run back to back in an order
 * that rotates from repeat to repeat. Every run goes to {@code bench/results/latency-<timestamp>.csv}; at the end a
 * table of medians over the repeats.
 */
public final class SlowWriterLatency {
    /** Time a child may take beyond warm-up and timed phase (JVM start, prefill of a million keys, checks). */
    private static final long SLACK_MILLIS = 180_000;
    /** The result fields the CSV keeps, in its column order. */
    private static final List<String> FIELDS = List.of("gets", "getsPerSec", "p50", "p90", "p99", "p999", "p9999",
            "max", "waited", "waitedShare", "waitedTimeShare", "readerCpuShare", "updates", "updateMeanMillis",
            "mismatches", "misses", "counterWrong", "sizeWrong", "prefillSeconds", "gcCount", "gcMillis",
            "othersCpuShare", "probedKeys", "blockedKeys", "blockedKeyShare");

    private SlowWriterLatency() {}

    /** One child JVM's run as the parent saw it. */
    private record Run(LatencyContender contender, String target, int repeat, String status, Map<String, String> fields,
            String error, double loadAverage, double wallSeconds) {

        boolean ok() {
            return status.equals("ok");
        }

        double number(String field) {
            String v = fields.get(field);
            return v == null ? Double.NaN : Double.parseDouble(v);
        }

        long bad() {
            return (long) (number("mismatches") + number("misses") + number("counterWrong") + number("sizeWrong"));
        }
    }

    public static void main(String[] args) throws Exception {
        LatencyOptions options;
        try {
            options = LatencyOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("grove bench latency: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(measure(options));
    }

    private static int measure(LatencyOptions options) throws IOException, InterruptedException {
        Path directory = options.results != null ? options.results : BenchMain.defaultResultsDirectory();
        Files.createDirectories(directory);
        ZonedDateTime started = ZonedDateTime.now();
        Path csv = directory.resolve("latency-" + started.format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                + ".csv");
        Machine machine = Machine.current();
        List<LatencyContender> contenders = options.contenders;
        int total = options.targets.size() * options.repeats * contenders.size();
        System.err.printf(Locale.ROOT, "grove bench latency: %d runs (targets %s x %d repeat(s) x %d maps); %,d keys,"
                        + " %d-byte values, %d reader(s), slow updates holding %s (%s), %s apart; warm-up %s, timed %s;"
                        + " results to %s%n", total, options.targets, options.repeats, contenders.size(), options.keys,
                options.valueSize, options.readers, duration(options.holdNanos), options.spin ? "spin" : "sleep",
                duration(options.pauseNanos), Units.seconds(options.warmupMillis),
                Units.seconds(options.durationMillis), csv);
        System.err.println("grove bench latency: machine: " + machine + "; load average " + Machine.loadAverage());
        List<Run> runs = new ArrayList<>();
        int failures = 0;
        try (Writer out = Files.newBufferedWriter(csv, StandardCharsets.UTF_8)) {
            out.write(String.join(",", header()) + "\n");
            int n = 0;
            for (String target : options.targets) {
                for (int repeat = 0; repeat < options.repeats; repeat++) {
                    for (int k = 0; k < contenders.size(); k++) {
                        LatencyContender c = contenders.get((k + repeat) % contenders.size());
                        System.err.printf("[%d/%d] %s / %s keys / run %d of %d ... ", ++n, total, c.label(), target,
                                repeat + 1, options.repeats);
                        Run r = runOne(options, c, target, repeat);
                        runs.add(r);
                        out.write(csvRow(started, machine, options, r) + "\n");
                        out.flush();
                        if (r.ok() && r.bad() == 0) {
                            System.err.printf(Locale.ROOT, "%,.0f gets/s, p99.9 %s, max %s%n",
                                    r.number("getsPerSec"), nanos(r.number("p999")), nanos(r.number("max")));
                        } else {
                            failures++;
                            System.err.printf("%s%n", r.ok() ? "WRONG VALUES: " + r.bad() : r.status().toUpperCase(
                                    Locale.ROOT) + ": " + r.error());
                        }
                    }
                }
            }
        }
        printTable(System.out, options, machine, started, runs);
        System.out.println("All runs: " + csv);
        return failures == 0 ? 0 : 1;
    }

    private static Run runOne(LatencyOptions options, LatencyContender c, String target, int repeat)
            throws InterruptedException {
        boolean onHeap = c.placement() == Placement.ON_HEAP;
        long heap = onHeap ? options.budget : options.smallHeap;
        long offHeapLimit = onHeap ? 0 : options.budget - options.smallHeap;
        SlowWriterConfig config = new SlowWriterConfig(c.label(), target, options.readers, options.holdNanos,
                options.spin, options.pauseNanos, options.keys, options.valueSize, options.warmupMillis,
                options.durationMillis, options.waitedAboveNanos, offHeapLimit, options.seed + 1_000_003L * repeat);
        List<String> command = ChildJvm.command(heap, options.jvmArgs, SlowWriterRun.class, config.toArgs());
        double load = Machine.loadAverage();
        long start = System.nanoTime();
        long limit = options.warmupMillis + options.durationMillis + options.holdNanos / 1_000_000 + SLACK_MILLIS;
        try {
            ChildJvm.Outcome outcome = ChildJvm.run(command, limit, options.verbose);
            String error = outcome.status().equals("timeout") ? "no result after " + limit / 1000 + " s; killed"
                    : outcome.error();
            if (!outcome.ok() && error.isEmpty()) {
                error = "exit status " + outcome.exitValue();
            }
            if (!outcome.ok() && !options.verbose) {
                outcome.printTail(System.err, command);
            }
            return new Run(c, target, repeat + 1, outcome.status(), outcome.result(), error, load,
                    (System.nanoTime() - start) / 1e9);
        } catch (IOException e) {
            return new Run(c, target, repeat + 1, "failed", Map.of(), "cannot start " + command.getFirst() + ": "
                    + e.getMessage(), load, (System.nanoTime() - start) / 1e9);
        }
    }

    private static List<String> header() {
        List<String> header = new ArrayList<>(List.of("date", "host", "cores", "cpu", "jdk", "contender", "target",
                "repeat", "status", "readers", "hold_ns", "work", "pause_ns", "keys", "value_size", "warmup_ms",
                "duration_ms", "waited_above_ns", "budget_bytes", "load_avg_1m", "wall_seconds"));
        header.addAll(FIELDS);
        header.add("error");
        return header;
    }

    private static String csvRow(ZonedDateTime started, Machine m, LatencyOptions o, Run r) {
        List<String> row = new ArrayList<>(List.of(started.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME), m.host(),
                Integer.toString(m.cores()), m.cpu(), m.jdk(), r.contender().label(), r.target(),
                Integer.toString(r.repeat()), r.status(), Integer.toString(o.readers), Long.toString(o.holdNanos),
                o.spin ? "spin" : "sleep", Long.toString(o.pauseNanos), Integer.toString(o.keys),
                Integer.toString(o.valueSize), Long.toString(o.warmupMillis), Long.toString(o.durationMillis),
                Long.toString(o.waitedAboveNanos), Long.toString(o.budget),
                String.format(Locale.ROOT, "%.2f", r.loadAverage()),
                String.format(Locale.ROOT, "%.1f", r.wallSeconds())));
        for (String f : FIELDS) {
            row.add(r.fields().getOrDefault(f, ""));
        }
        row.add(r.error());
        return row.stream().map(s -> s.contains(",") || s.contains("\"") ? '"' + s.replace("\"", "\"\"") + '"' : s)
                .collect(Collectors.joining(","));
    }

    private static void printTable(PrintStream p, LatencyOptions o, Machine machine, ZonedDateTime started,
            List<Run> runs) {
        p.println();
        p.printf(Locale.ROOT, "Machine: %s. Runs started %s.%n", machine, started.format(
                DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        p.printf(Locale.ROOT, "%,d keys (8-byte longs), %d-byte values; one writer updates one key, each update holding"
                        + " it %s (%s), %s apart; %d reader(s); warm-up %s, timed %s; medians of %d run(s).%n", o.keys,
                o.valueSize, duration(o.holdNanos), o.spin ? "spin" : "sleep", duration(o.pauseNanos), o.readers,
                Units.seconds(o.warmupMillis), Units.seconds(o.durationMillis), o.repeats);
        p.println();
        String format = "%-6s %-19s %4s %12s %9s %9s %9s %9s %9s %9s %8s %8s %9s %5s %7s %4s%n";
        p.printf(format, "target", "contender", "runs", "gets/s", "p50", "p99", "p99.9", "p99.99", "max",
                "max (all)", "waited%", "w-time%", "blocked%", "cpu%", "updates", "bad");
        for (String target : o.targets) {
            for (LatencyContender c : o.contenders) {
                List<Run> cell = runs.stream().filter(r -> r.contender() == c && r.target().equals(target)).toList();
                List<Run> ok = cell.stream().filter(Run::ok).toList();
                p.printf(Locale.ROOT, format, target, c.label(), ok.size() + "/" + cell.size(),
                        String.format(Locale.ROOT, "%,.0f", median(ok, "getsPerSec")), nanos(median(ok, "p50")),
                        nanos(median(ok, "p99")), nanos(median(ok, "p999")), nanos(median(ok, "p9999")),
                        nanos(median(ok, "max")),
                        nanos(ok.stream().mapToDouble(r -> r.number("max")).max().orElse(Double.NaN)),
                        percent(median(ok, "waitedShare"), 3), percent(median(ok, "waitedTimeShare"), 1),
                        percent(median(ok, "blockedKeyShare"), 3), percent(median(ok, "readerCpuShare"), 0),
                        String.format(Locale.ROOT, "%,.0f", median(ok, "updates")),
                        cell.stream().mapToLong(r -> r.ok() ? r.bad() : 0).sum());
            }
        }
        p.println();
        p.println("gets/s: all readers together; p50..max: get latency (medians over runs; 'max (all)' the largest of"
                + " all runs); waited%: share of gets that took " + duration(o.waitedAboveNanos) + " or more;"
                + " w-time%: share of the readers' time spent in such gets; blocked%: share of the other keys whose"
                + " get waits while the slow key is held, probed after the run (same-key runs: -); cpu%: CPU time of"
                + " the readers over their"
                + " timed time; updates: slow updates completed; bad: wrong values, missing keys, a slow-key counter"
                + " not equal to the updates, or a wrong size (must be 0). Closed-loop readers: a reader that waits"
                + " issues no gets meanwhile, so one long wait is one sample.");
        runs.stream().filter(r -> !r.ok()).forEach(r -> p.printf("FAILED: %s / %s / run %d: %s%n",
                r.contender().label(), r.target(), r.repeat(), r.error()));
    }

    private static double median(List<Run> runs, String field) {
        double[] v = runs.stream().mapToDouble(r -> r.number(field)).filter(x -> !Double.isNaN(x)).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static String percent(double share, int decimals) {
        return Double.isNaN(share) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", 100 * share);
    }

    /** A latency in nanoseconds with a unit that keeps it short: {@code 312 ns}, {@code 45.1 µs}, {@code 200 ms}. */
    static String nanos(double ns) {
        if (Double.isNaN(ns)) {
            return "-";
        }
        if (ns < 1_000) {
            return String.format(Locale.ROOT, "%.0f ns", ns);
        }
        if (ns < 1_000_000) {
            return String.format(Locale.ROOT, ns < 100_000 ? "%.1f µs" : "%.0f µs", ns / 1e3);
        }
        if (ns < 1_000_000_000) {
            return String.format(Locale.ROOT, ns < 100_000_000 ? "%.1f ms" : "%.0f ms", ns / 1e6);
        }
        return String.format(Locale.ROOT, "%.2f s", ns / 1e9);
    }

    private static String duration(long nanos) {
        return nanos == 0 ? "0" : nanos(nanos);
    }
}
