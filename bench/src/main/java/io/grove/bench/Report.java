package io.grove.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The CSV of every run (written as runs finish) and the table of medians and ratios at the end. */
final class Report implements AutoCloseable {
    private static final List<String> WORKER_FIELDS = List.of("opsPerSec", "ops", "seconds", "opsPerCpuSec",
            "threadCpuSeconds", "cpuShare", "processCpuSeconds", "othersCpuShare", "mismatches",
            "verifyWrong", "readRetries", "writeRetries", "lostRaces", "anomalies", "prefillSeconds", "gcCount",
            "gcMillis", "gcConcurrentCount", "gcConcurrentMillis", "gcNames", "heapMax", "heapUsedAfterRun",
            "heapLiveAfterGc", "offHeapLimit",
            "offHeapReservedAfterPrefill", "offHeapReserved", "offHeapLive", "offHeapReleased", "offHeapFree",
            "rssPeak", "rss", "misses", "entries", "heapGrowth", "rssGrowth", "offHeapUsed",
            "offHeapLiveAfterPrefill", "heapPerEntry", "rssPerEntry", "offHeapPerEntry", "hitRatio", "lruHitRatio",
            "capacity", "entriesAtEnd", "ingestedPairs", "ingestStop", "ingestCurve", "gcPauses",
            "gcPauseTotalMillis", "gcPauseMaxMillis", "pairBytes");

    private final Options options;
    private final String date;
    private final Machine machine;
    private final Path csv;
    private final Writer out; // null when re-reading a CSV
    private final List<RunRecord> runs = new ArrayList<>();

    Report(Options options, Path directory) throws IOException {
        this.options = options;
        this.date = ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        this.machine = Machine.current();
        Files.createDirectories(directory);
        String stamp = ZonedDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        this.csv = directory.resolve(stamp + ".csv");
        this.out = Files.newBufferedWriter(csv, StandardCharsets.UTF_8);
        List<String> header = new ArrayList<>(List.of("date", "host", "cores", "memory_bytes", "cpu", "jdk",
                "scenario", "contender", "threads", "repeat", "run_start", "status", "warmup_ms", "duration_ms",
                "budget_bytes", "xmx_bytes", "off_heap_limit_bytes", "load_avg_1m", "wall_seconds", "operations"));
        header.addAll(WORKER_FIELDS);
        header.add("error");
        line(header);
    }

    /** A report over the runs of an earlier CSV, to print its table again ({@code BenchMain report FILE}). */
    private Report(Options options, Path csv, String date, Machine machine, List<RunRecord> runs) {
        this.options = options;
        this.csv = csv;
        this.date = date;
        this.machine = machine;
        this.out = null;
        this.runs.addAll(runs);
    }

    /**
     * Reads a CSV this class wrote and returns a report over its runs; {@code options} gets the CSV's durations,
     * budget and memory split.
     */
    static Report read(Path csv, Options options) throws IOException {
        List<List<String>> rows = Csv.parse(Files.readString(csv, StandardCharsets.UTF_8));
        if (rows.isEmpty()) {
            throw new IOException(csv + " is empty");
        }
        List<String> header = rows.getFirst();
        List<RunRecord> runs = new ArrayList<>();
        Machine machine = null;
        String date = "";
        for (List<String> row : rows.subList(1, rows.size())) {
            if (row.size() != header.size()) {
                continue;
            }
            java.util.Map<String, String> c = new java.util.LinkedHashMap<>();
            for (int i = 0; i < header.size(); i++) {
                c.put(header.get(i), row.get(i));
            }
            java.util.Map<String, String> fields = new java.util.HashMap<>();
            for (String f : WORKER_FIELDS) {
                String v = c.get(f);
                if (v != null && !v.isEmpty()) {
                    fields.put(f, v);
                }
            }
            String ops = c.getOrDefault("operations", "");
            for (String op : ops.isEmpty() ? new String[0] : ops.split("\\|")) {
                int colon = op.indexOf(':');
                fields.put("op." + op.substring(0, colon), op.substring(colon + 1));
            }
            long xmx = Long.parseLong(c.get("xmx_bytes"));
            long offHeap = Long.parseLong(c.get("off_heap_limit_bytes"));
            runs.add(new RunRecord(c.get("scenario"), c.get("contender"), Integer.parseInt(c.get("threads")),
                    Integer.parseInt(c.get("repeat")), c.getOrDefault("run_start", ""), c.get("status"), fields,
                    c.getOrDefault("error", ""), xmx, offHeap, Double.parseDouble(c.get("wall_seconds")),
                    Double.parseDouble(c.get("load_avg_1m"))));
            date = c.get("date");
            machine = new Machine(c.get("host"), Integer.parseInt(c.get("cores")),
                    Long.parseLong(c.get("memory_bytes")), c.get("cpu"), c.get("jdk"));
            options.warmupMillis = Long.parseLong(c.get("warmup_ms"));
            options.durationMillis = Long.parseLong(c.get("duration_ms"));
            options.budget = Long.parseLong(c.get("budget_bytes"));
            // contenders of one name place their memory alike in every family they serve (Registry checks it)
            Contender<?> contender = Registry.contenders(c.get("contender")).getFirst();
            if (contender.placement() == Placement.OFF_HEAP) {
                options.smallHeap = xmx;
            } else if (contender.placement() == Placement.OFF_HEAP_UNBOUNDED) {
                options.smallHeap = xmx;
                options.growOnlyLimit = offHeap;
            }
        }
        options.repeats = runs.stream().mapToInt(RunRecord::repeat).max().orElse(0);
        if (machine == null) {
            throw new IOException(csv + " holds no runs");
        }
        return new Report(options, csv, date, machine, runs);
    }

    /** The date the runs started. */
    String date() {
        return date;
    }

    /** Scenarios, in registry order, that have runs here. */
    List<Scenario> scenariosRun() {
        return Registry.SCENARIOS.stream().filter(s -> runs.stream().anyMatch(r -> r.scenario().equals(s.name())))
                .toList();
    }

    /** Thread counts that have runs here, ascending. */
    List<Integer> threadsRun() {
        return runs.stream().map(RunRecord::threads).distinct().sorted().toList();
    }

    /** Per scenario, the contenders (in registry order) that have runs here. */
    List<List<Contender<?>>> contendersRun(List<Scenario> scenarios) {
        List<List<Contender<?>>> out = new ArrayList<>();
        for (Scenario s : scenarios) {
            out.add(Registry.CONTENDERS.stream().filter(c -> c.family().name().equals(s.family()) && runs.stream()
                    .anyMatch(r -> r.scenario().equals(s.name()) && r.contender().equals(c.name()))).toList());
        }
        return out;
    }

    Path csv() {
        return csv;
    }

    Machine machine() {
        return machine;
    }

    void add(RunRecord r) throws IOException {
        runs.add(r);
        List<String> row = new ArrayList<>(List.of(date, machine.host(), Integer.toString(machine.cores()),
                Long.toString(machine.memoryBytes()), machine.cpu(), machine.jdk(), r.scenario(), r.contender(),
                Integer.toString(r.threads()), Integer.toString(r.repeat()), r.start(), r.status(),
                Long.toString(options.warmupMillis), Long.toString(options.durationMillis),
                Long.toString(options.budgetFor(r.contender())), Long.toString(r.xmx()),
                Long.toString(r.offHeapLimit()),
                String.format(Locale.ROOT, "%.2f", r.loadAverage()),
                String.format(Locale.ROOT, "%.1f", r.wallSeconds()),
                r.fields().entrySet().stream().filter(e -> e.getKey().startsWith("op."))
                        .map(e -> e.getKey().substring(3) + ":" + e.getValue()).sorted()
                        .collect(Collectors.joining("|"))));
        for (String f : WORKER_FIELDS) {
            row.add(r.fields().getOrDefault(f, ""));
        }
        row.add(r.error());
        line(row);
        out.flush();
    }

    private void line(List<String> cells) throws IOException {
        out.write(cells.stream().map(Report::csvCell).collect(Collectors.joining(",")));
        out.write('\n');
    }

    private static String csvCell(String s) {
        if (s.contains(",") || s.contains("\"") || s.contains("\n")) {
            return '"' + s.replace("\"", "\"\"") + '"';
        }
        return s;
    }

    @Override
    public void close() throws IOException {
        if (out != null) {
            out.close();
        }
    }

    /** Prints the table of medians, the ratios to each scenario's baseline, and the scenarios' comparisons. */
    void printTable(PrintStream p, List<Scenario> scenarios, List<Integer> threadCounts,
            List<List<Contender<?>>> contendersPerScenario) {
        p.println();
        p.printf("Machine: %s. Runs started %s.%n", machine, date);
        p.printf("Budget %s per JVM (on-heap: -Xmx%s; off-heap: -Xmx%s + %s off heap; grow-only: -Xmx%s + up to %s "
                        + "off heap, beyond the budget by design). Warm-up %s, timed %s, median of %d run(s).%n",
                Units.size(options.budget), Units.size(options.budget), Units.size(options.smallHeap),
                Units.size(options.budget - options.smallHeap), Units.size(options.smallHeap),
                Units.size(options.growOnlyLimit), Units.seconds(options.warmupMillis),
                Units.seconds(options.durationMillis), options.repeats);
        if (!options.budgets.isEmpty()) {
            p.printf("Budgets of their own (--budget-of): %s.%n", options.budgets.entrySet().stream().sorted(
                    java.util.Map.Entry.comparingByKey()).map(e -> e.getKey() + " " + Units.size(e.getValue()))
                    .collect(Collectors.joining(", ")));
        }
        p.println();
        String format = "%-20s %3s  %-16s %13s %7s %7s %13s %5s %7s %7s %8s %9s %6s %7s %4s%n";
        p.printf(format, "scenario", "thr", "contender", "median ops/s", "spread", "vs base", "ops/cpu-s",
                "cpu%", "others%", "rss MiB", "off-heap", "heap live", "gc ms", "retries", "bad");
        List<String> problems = new ArrayList<>();
        for (int si = 0; si < scenarios.size(); si++) {
            Scenario s = scenarios.get(si);
            for (int t : s.threadCounts(threadCounts)) {
                double base = median(s.name(), s.baseline(), t, "opsPerSec");
                for (Contender<?> c : contendersPerScenario.get(si)) {
                    List<RunRecord> cell = cell(s.name(), c.name(), t);
                    double m = median(s.name(), c.name(), t, "opsPerSec");
                    double[] v = cell.stream().filter(RunRecord::ok).mapToDouble(RunRecord::opsPerSec).toArray();
                    String spread = v.length < 2 ? "-" : String.format(Locale.ROOT, "±%.0f%%",
                            50 * (Arrays.stream(v).max().orElse(0) - Arrays.stream(v).min().orElse(0)) / m);
                    long bad = cell.stream().mapToLong(r -> Math.max(0, r.count("mismatches"))
                            + Math.max(0, r.count("verifyWrong")) + Math.max(0, r.count("anomalies"))).sum();
                    long failed = cell.stream().filter(r -> !r.ok() && !r.status().equals("retried")).count();
                    if (bad > 0) {
                        problems.add(s.name() + "/" + c.name() + "/" + t + ": " + bad + " wrong values");
                    }
                    if (failed > 0) {
                        problems.add(s.name() + "/" + c.name() + "/" + t + ": " + failed + " failed run(s): "
                                + cell.stream().filter(r -> !r.ok() && !r.status().equals("retried"))
                                .map(RunRecord::error).distinct()
                                .collect(Collectors.joining("; ")));
                    }
                    double cpu = median(s.name(), c.name(), t, "cpuShare");
                    double others = median(s.name(), c.name(), t, "othersCpuShare");
                    p.printf(format, s.name(), t, c.name(), Double.isNaN(m) ? "failed" : String.format(Locale.ROOT,
                                    "%,.0f", m), spread, ratio(m, base),
                            count(median(s.name(), c.name(), t, "opsPerCpuSec")),
                            Double.isNaN(cpu) ? "-" : String.format(Locale.ROOT, "%.0f", 100 * cpu),
                            Double.isNaN(others) ? "-" : String.format(Locale.ROOT, "%.0f", 100 * others),
                            mibMedian(cell, "rssPeak"), mibMedian(cell, "offHeapReserved"),
                            mibMedian(cell, "heapLiveAfterGc"), longMedian(cell, "gcMillis"),
                            longMedian(cell, "readRetries", "writeRetries"), bad);
                }
            }
        }
        p.println();
        p.println("'vs base' = median / median of the scenario's baseline (" + scenarios.stream()
                .map(s -> s.name() + ": " + s.baseline()).distinct().collect(Collectors.joining(", "))
                + "), same run. 'spread' = ±half the range of the runs around the median. 'rss MiB' = peak resident"
                + " set of the worker JVM; 'ops/cpu-s' = operations per CPU second of each worker thread, summed"
                + " over threads (GC threads not counted); 'cpu%' = CPU time the worker threads got / their timed"
                + " wall time (below 100 when other processes or the JVM's own GC threads shared the cores);"
                + " 'others%' = share of the machine's CPUs that other processes used during the timed phase;"
                + " 'off-heap' = off-heap reserved after the run; 'heap live' = heap used after a full GC at the end;"
                + " 'gc ms' = GC pause time in the timed phase; 'retries' = optimistic reads"
                + " and writes retried because the entry was replaced under them; 'bad' = wrong values read or"
                + " found by the final check (must be 0).");
        boolean anyComparison = scenarios.stream().anyMatch(s -> !s.comparisons().isEmpty());
        if (anyComparison) {
            p.println();
            p.printf("%-20s %3s  %-34s %8s %14s %10s%n", "scenario", "thr", "comparison", "ratio", "paired median",
                    "cpu ratio");
            for (Scenario s : scenarios) {
                for (Scenario.Comparison cmp : s.comparisons()) {
                    for (int t : s.threadCounts(threadCounts)) {
                        if (cell(s.name(), cmp.numerator(), t).isEmpty()
                                || cell(s.name(), cmp.denominator(), t).isEmpty()) {
                            continue;
                        }
                        double a = median(s.name(), cmp.numerator(), t, "opsPerSec");
                        double b = median(s.name(), cmp.denominator(), t, "opsPerSec");
                        double ca = median(s.name(), cmp.numerator(), t, "opsPerCpuSec");
                        double cb = median(s.name(), cmp.denominator(), t, "opsPerCpuSec");
                        p.printf("%-20s %3d  %-34s %8s %14s %10s%n", s.name(), t, cmp, ratio(a, b),
                                ratio(pairedMedian(s.name(), cmp, t), 1), ratio(ca, cb));
                    }
                }
            }
            p.println("'ratio' = ratio of the medians of ops/s; 'paired median' = median over repeats of the ratio"
                    + " within each repeat (the contenders of one repeat run back to back); 'cpu ratio' = ratio of"
                    + " the medians of ops/cpu-s.");
        }
        printMemory(p, scenarios, contendersPerScenario);
        printHitRatios(p, scenarios, contendersPerScenario);
        printIngestion(p, scenarios, contendersPerScenario);
        for (Scenario s : scenarios) {
            List<String> na = Registry.CONTENDERS.stream().filter(c -> c.family().name().equals(s.family())
                    && c.notApplicable(s) != null).map(c -> c.name() + " (" + c.notApplicable(s) + ")").toList();
            if (!na.isEmpty()) {
                p.println("Not applicable to " + s.name() + ": " + String.join(", ", na) + ".");
            }
        }
        if (!problems.isEmpty()) {
            p.println();
            p.println("PROBLEMS:");
            problems.forEach(x -> p.println("  " + x));
        }
        p.println();
        p.println("All runs: " + csv);
    }

    /**
     * Memory per entry after the prefill (1-thread runs; medians): heap growth after a full GC, the off-heap bytes
     * the library reports as taken, and the growth of the resident set, each divided by the entries.
     */
    private void printMemory(PrintStream p, List<Scenario> scenarios, List<List<Contender<?>>> contendersPerScenario) {
        boolean any = runs.stream().anyMatch(r -> r.fields().containsKey("rssPerEntry"));
        if (!any) {
            return;
        }
        p.println();
        String format = "%-20s %-16s %11s %10s %11s %10s %12s%n";
        p.printf(format, "scenario", "contender", "entries", "heap B/e", "off-heap B/e", "rss B/e", "needed B/e");
        for (int si = 0; si < scenarios.size(); si++) {
            Scenario s = scenarios.get(si);
            for (Contender<?> c : contendersPerScenario.get(si)) {
                List<RunRecord> cell = runs.stream().filter(r -> r.scenario().equals(s.name())
                        && r.contender().equals(c.name()) && r.ok() && r.fields().containsKey("rssPerEntry")).toList();
                if (cell.isEmpty()) {
                    continue;
                }
                double entries = median(cell.stream().mapToDouble(r -> r.number("entries")).toArray());
                double heap = median(cell.stream().mapToDouble(r -> r.number("heapPerEntry")).toArray());
                double off = median(cell.stream().mapToDouble(r -> r.number("offHeapPerEntry")).toArray());
                double rss = median(cell.stream().mapToDouble(r -> r.number("rssPerEntry")).toArray());
                double needed = off > 0 ? off + Math.max(0, heap) : Math.max(rss, heap);
                p.printf(format, s.name(), c.name(), count(entries), count(heap), off > 0 ? count(off) : "-",
                        count(rss), count(needed));
            }
        }
        p.println("Per entry after the prefill (eviction: after the trace), medians over all runs: 'heap B/e' = growth"
                + " of the heap used after a full GC since before the map was opened; 'off-heap B/e' = off-heap memory"
                + " the library reports as taken (Grove's maps and the off-heap skiplist's pool: reserved blocks;"
                + " Chronicle: offHeapMemoryUsed; OHC: memUsed; '-' = MapDB, which reports none, and heap maps);"
                + " 'rss B/e' = growth of the resident set (for on-heap maps it includes garbage not yet collected);"
                + " 'needed B/e' = off-heap + heap where the library reports off-heap memory, else the larger of rss"
                + " and heap.");
    }

    /**
     * The eviction scenarios (runs with a {@code hitRatio}): each contender's hit ratio against exact LRU on the same
     * trace.
     */
    private void printHitRatios(PrintStream p, List<Scenario> scenarios,
            List<List<Contender<?>>> contendersPerScenario) {
        for (int si = 0; si < scenarios.size(); si++) {
            Scenario s = scenarios.get(si);
            if (runs.stream().noneMatch(r -> r.scenario().equals(s.name()) && r.fields().containsKey("hitRatio"))) {
                continue;
            }
            p.println();
            String format = "%-20s %-16s %10s %10s %10s %11s %9s%n";
            p.printf(format, "scenario", "contender", "hit ratio", "LRU", "vs LRU", "entries end", "bound");
            for (Contender<?> c : contendersPerScenario.get(si)) {
                List<RunRecord> cell = cell(s.name(), c.name(), 1).stream().filter(RunRecord::ok).toList();
                if (cell.isEmpty()) {
                    continue;
                }
                double hit = median(cell.stream().mapToDouble(r -> r.number("hitRatio")).toArray());
                double lru = median(cell.stream().mapToDouble(r -> r.number("lruHitRatio")).toArray());
                p.printf(Locale.ROOT, format, s.name(), c.name(), String.format(Locale.ROOT, "%.4f", hit),
                        String.format(Locale.ROOT, "%.4f", lru), ratio(hit, lru),
                        count(median(cell.stream().mapToDouble(r -> r.number("entriesAtEnd")).toArray())),
                        count(median(cell.stream().mapToDouble(r -> r.number("capacity")).toArray())));
            }
            p.println("Hit ratio over the second half of the trace (the first half warms the cache); 'LRU' = exact LRU"
                    + " with the same bound on the same trace, computed in the same worker; medians over runs.");
        }
    }

    /** Ingestion within the budget (the Oak paper's Fig. 3a): pairs ingested per contender, median and ratio. */
    private void printIngestion(PrintStream p, List<Scenario> scenarios,
            List<List<Contender<?>>> contendersPerScenario) {
        for (int si = 0; si < scenarios.size(); si++) {
            Scenario s = scenarios.get(si);
            if (runs.stream()
                    .noneMatch(r -> r.scenario().equals(s.name()) && r.fields().containsKey("ingestedPairs"))) {
                continue;
            }
            p.println();
            String format = "%-20s %-16s %14s %7s %9s %12s %9s %10s  %s%n";
            p.printf(format, "scenario", "contender", "median pairs", "vs base", "raw GiB", "pairs/s", "gc ms",
                    "max gc ms", "stopped by (per run)");
            double base = median(s.name(), s.baseline(), 1, "ingestedPairs");
            for (Contender<?> c : contendersPerScenario.get(si)) {
                List<RunRecord> cell = cell(s.name(), c.name(), 1).stream().filter(RunRecord::ok).toList();
                double pairs = median(s.name(), c.name(), 1, "ingestedPairs");
                double pairBytes = median(s.name(), c.name(), 1, "pairBytes");
                double raw = pairs * (Double.isNaN(pairBytes) ? 1_100 : pairBytes) / (1L << 30);
                p.printf(format, s.name(), c.name(), count(pairs), ratio(pairs, base),
                        Double.isNaN(raw) ? "-" : String.format(Locale.ROOT, "%.2f", raw),
                        count(median(s.name(), c.name(), 1, "opsPerSec")),
                        count(median(s.name(), c.name(), 1, "gcPauseTotalMillis")),
                        count(median(s.name(), c.name(), 1, "gcPauseMaxMillis")),
                        cell.stream().map(r -> r.fields().getOrDefault("ingestStop", "?"))
                                .collect(Collectors.joining(",")));
            }
            p.println("'raw GiB' = pairs x the bytes of a key and a value (1,100 unless the run set other sizes);"
                    + " 'pairs/s' = ingestion rate over the whole run, one thread; 'gc ms' / 'max gc ms' = total and"
                    + " longest stop-the-world collector pause during the ingestion (medians over runs); stops:"
                    + " heap-full (OutOfMemoryError), off-heap-full (GroveOutOfMemoryException), stalled (a window of"
                    + " 16,384 pairs took over 5 s), time-limit, cap.");
        }
    }

    private List<RunRecord> cell(String scenario, String contender, int threads) {
        return runs.stream().filter(r -> r.scenario().equals(scenario) && r.contender().equals(contender)
                && r.threads() == threads).toList();
    }

    private double median(String scenario, String contender, int threads, String field) {
        return median(cell(scenario, contender, threads).stream().filter(RunRecord::ok)
                .mapToDouble(r -> r.number(field)).toArray());
    }

    private static String count(double value) {
        return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%,.0f", value);
    }

    /** The median ops/s of {@code contender}'s successful runs of {@code scenario} at {@code threads}; NaN if none. */
    double medianOpsPerSec(String scenario, String contender, int threads) {
        return median(scenario, contender, threads, "opsPerSec");
    }

    /** Whether {@code contender} has a successful run of {@code scenario} at {@code threads}. */
    boolean ran(String scenario, String contender, int threads) {
        return cell(scenario, contender, threads).stream().anyMatch(RunRecord::ok);
    }

    double pairedMedian(String scenario, Scenario.Comparison cmp, int threads) {
        List<Double> ratios = new ArrayList<>();
        for (RunRecord a : cell(scenario, cmp.numerator(), threads)) {
            for (RunRecord b : cell(scenario, cmp.denominator(), threads)) {
                if (a.repeat() == b.repeat() && a.ok() && b.ok()) {
                    ratios.add(a.opsPerSec() / b.opsPerSec());
                }
            }
        }
        return median(ratios.stream().mapToDouble(Double::doubleValue).toArray());
    }

    static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    private static String ratio(double a, double b) {
        return Double.isNaN(a) || Double.isNaN(b) || b == 0 ? "-" : String.format(Locale.ROOT, "%.3f", a / b);
    }

    private static String mibMedian(List<RunRecord> cell, String field) {
        double m = median(cell.stream().filter(RunRecord::ok).mapToDouble(r -> r.number(field)).toArray());
        return Double.isNaN(m) || m < 0 ? "-" : Units.mib((long) m);
    }

    private static String longMedian(List<RunRecord> cell, String... fields) {
        double m = median(cell.stream().filter(RunRecord::ok).mapToDouble(r -> {
            double sum = 0;
            for (String f : fields) {
                sum += r.number(f);
            }
            return sum;
        }).toArray());
        return Double.isNaN(m) ? "-" : String.format(Locale.ROOT, "%,.0f", m);
    }
}
