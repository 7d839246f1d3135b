package io.grove.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark runner ({@code ./grove bench [options]}, see {@link Options#USAGE}).
 *
 * <p>Method (Oak's performance evaluation, and CONTRIBUTING.md, "Benchmarks"): for every scenario × thread count ×
 * contender it starts the contender in its own JVM ({@link Worker}) with the same total memory budget, which
 * prefills, warms up for a fixed time and then runs a timed phase of fixed duration; each cell runs
 * {@code --repeats} times and the table shows the median and its ratio to the scenario's baseline contender
 * measured in the same run. The contenders of one repeat run back to back, in an order that rotates from repeat to
 * repeat, so that slow drifts of a noisy machine fall on all of them alike. Every run goes to
 * {@code bench/results/<timestamp>.csv}.
 *
 * <p>Subcommands: {@code list} prints the registry; {@code report FILE.csv} prints the table of an earlier run
 * again from its CSV; {@code summary [--into FILE] FILE.csv...} writes the one-screen summary ({@link Summary});
 * {@code jmh [args]} runs JMH ({@code org.openjdk.jmh.Main})
 * on the micro-benchmarks in {@code io.grove.bench.jmh}; {@code latency [args]} runs the slow-writer latency
 * experiment ({@code io.grove.bench.latency.SlowWriterLatency}).
 */
public final class BenchMain {
    private BenchMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("jmh")) {
            org.openjdk.jmh.Main.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("latency")) {
            io.grove.bench.latency.SlowWriterLatency.main(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        if (args.length > 0 && args[0].equals("list")) {
            list();
            return;
        }
        if (args.length == 2 && args[0].equals("report")) {
            Report report = Report.read(Path.of(args[1]), new Options());
            List<Scenario> scenarios = report.scenariosRun();
            report.printTable(System.out, scenarios, report.threadsRun(), report.contendersRun(scenarios));
            return;
        }
        if (args.length > 0 && args[0].equals("summary")) {
            System.exit(Summary.run(Arrays.asList(args).subList(1, args.length)));
            return;
        }
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("grove bench: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(compare(options, args));
    }

    private static void list() {
        System.out.println("Scenarios:");
        for (Scenario s : Registry.SCENARIOS) {
            System.out.printf("  %-20s %-12s %s; %,d keys (--quick: %,d) x %,d B; baseline %s%n", s.name(),
                    s.family(), s.description(), s.keys(), s.quickKeys(), s.valueSize(), s.baseline());
        }
        System.out.println("Scenario groups (--scenario GROUP): " + Registry.GROUPS + "; without --scenario: "
                + Registry.DEFAULT_GROUP + " (--quick too)");
        System.out.println("Not applicable:");
        for (Scenario s : Registry.SCENARIOS) {
            for (Contender<?> c : Registry.CONTENDERS) {
                String why = c.family().name().equals(s.family()) ? c.notApplicable(s) : null;
                if (why != null) {
                    System.out.printf("  %-20s %-16s %s%n", s.name(), c.name(), why);
                }
            }
        }
        System.out.println("Contenders:");
        for (Contender<?> c : Registry.CONTENDERS) {
            System.out.printf("  %-16s %-12s %s%n", c.name(), c.family().name(), c.description());
            if (!c.jvmOptions().isEmpty()) {
                System.out.printf("  %-16s %-12s JVM options: %s%n", "", "", String.join(" ", c.jvmOptions()));
            }
        }
    }

    /** Runs per cell of {@code s}: {@code --repeats} if given, else the scenario's default for the default. */
    private static int repeats(Scenario s, Options options) {
        return options.repeatsSet ? options.repeats : s.defaultRepeats(options.repeats);
    }

    private static int compare(Options options, String[] args) throws Exception {
        List<Scenario> scenarios = !options.scenarios.isEmpty() ? Registry.scenarios(options.scenarios)
                : Registry.scenarios(Registry.DEFAULT_GROUP);
        List<Contender<?>> chosen = options.contenders.isEmpty() ? Registry.CONTENDERS
                : options.contenders.stream().flatMap(n -> Registry.contenders(n).stream()).toList();
        List<List<Contender<?>>> perScenario = new ArrayList<>();
        int total = 0;
        for (Scenario s : scenarios) {
            List<Contender<?>> cs = chosen.stream().filter(c -> c.family().name().equals(s.family())
                    && c.notApplicable(s) == null).toList();
            perScenario.add(cs);
            total += cs.size() * s.threadCounts(options.threads).size() * repeats(s, options);
        }
        if (total == 0) {
            System.err.println("grove bench: no contender serves the chosen scenarios");
            return 2;
        }

        Path directory = options.results != null ? options.results : defaultResultsDirectory();
        Launcher launcher = new Launcher(options);
        int failures = 0;
        int retried = 0;
        try (Report report = new Report(options, directory)) {
            RunInfo.write(report.csv(), "./grove bench", args);
            System.err.printf("grove bench: %d runs (%d scenario(s) x threads %s x %d repeat(s)), warm-up %s, timed %s,"
                            + " budget %s; results to %s%n", total, scenarios.size(), options.threads,
                    options.repeats, Units.seconds(options.warmupMillis), Units.seconds(options.durationMillis),
                    Units.size(options.budget), report.csv());
            System.err.println("grove bench: machine: " + report.machine());
            long growOnlyNeed = options.growOnlyLimit + options.smallHeap;
            if (report.machine().memoryBytes() > 0 && chosen.stream().anyMatch(
                    c -> c.placement() == Placement.OFF_HEAP_UNBOUNDED)
                    && growOnlyNeed > report.machine().memoryBytes() - (2L << 30)) {
                System.err.println("grove bench: warning: --grow-only-limit " + Units.size(options.growOnlyLimit)
                        + " leaves less than 2 GiB of this machine's memory free if a grow-only run uses it all");
            }
            int n = 0;
            long started = System.nanoTime();
            for (int si = 0; si < scenarios.size(); si++) {
                Scenario s = scenarios.get(si);
                List<Contender<?>> cs = perScenario.get(si);
                for (int threads : s.threadCounts(options.threads)) {
                    for (int repeat = 0; repeat < repeats(s, options); repeat++) {
                        for (int k = 0; k < cs.size(); k++) {
                            Contender<?> c = cs.get((k + repeat) % cs.size());
                            n++;
                            long[] split = launcher.memorySplit(c);
                            if (options.waitIdleMillis > 0) {
                                long waited = Launcher.waitIdle(options.waitIdleMillis, options.disturbedAbove);
                                if (waited < 0 || waited > 1_000) {
                                    System.err.printf("(%s) ", waited < 0 ? "machine still busy after "
                                            + Units.seconds(options.waitIdleMillis) : "waited "
                                            + (waited / 1000) + " s for an idle machine");
                                }
                            }
                            System.err.printf("[%d/%d%s] %s / %s / %d thread%s / run %d of %d (-Xmx%s%s) ... ", n,
                                    total, timeLeft(started, n - 1, total), c.name(), s.name(), threads,
                                    threads == 1 ? "" : "s", repeat + 1,
                                    repeats(s, options),
                                    Units.jvmSize(split[0]),
                                    split[1] > 0 ? ", off-heap limit " + Units.size(split[1]) : "");
                            WorkerConfig config = new WorkerConfig(s.name(), c.name(), threads, options.warmupMillis,
                                    options.durationMillis, options.keys != null ? options.keys
                                            : options.quick ? s.quickKeys() : s.keys(),
                                    options.valueSize != null ? options.valueSize : s.valueSize(),
                                    split[1], options.seed + 1_000_003L * repeat);
                            RunRecord r = launcher.run(config, c, repeat + 1);
                            if (retried < options.retryDisturbed && disturbed(r, options)) {
                                report.add(r.retried());
                                retried++;
                                System.err.printf(Locale.ROOT, "%,.0f ops/s, but other processes used %.0f%% of the"
                                        + " CPUs: again ... ", r.opsPerSec(), 100 * r.othersCpuShare());
                                if (options.waitIdleMillis > 0) {
                                    Launcher.waitIdle(options.waitIdleMillis, options.disturbedAbove);
                                }
                                r = launcher.run(config, c, repeat + 1);
                            }
                            report.add(r);
                            if (r.ok()) {
                                long bad = r.count("mismatches") + r.count("verifyWrong") + r.count("anomalies");
                                System.err.printf(Locale.ROOT, "%,.0f ops/s, cpu %.0f%% (%.0f s)%s%n", r.opsPerSec(),
                                        100 * r.number("cpuShare"), r.wallSeconds(),
                                        bad > 0 ? "  WRONG VALUES: " + bad : "");
                                if (bad > 0) {
                                    failures++;
                                }
                            } else {
                                failures++;
                                System.err.printf("%s: %s%n", r.status().toUpperCase(Locale.ROOT), r.error());
                            }
                        }
                    }
                }
            }
            report.printTable(System.out, scenarios, options.threads, perScenario);
            if (retried > 0) {
                System.out.printf(Locale.ROOT, "%d run(s) were done again because other processes took more than"
                        + " %.0f%% of the CPUs beyond the cores the worker left idle during their timed phase"
                        + " (--retry-disturbed %d: at most that many re-runs); the CSV keeps the first attempts with"
                        + " status 'retried'.%n", retried, 100 * options.disturbedAbove, options.retryDisturbed);
            }
        }
        return failures == 0 ? 0 : 1;
    }

    /**
     * An estimate of the time the {@code total - done} runs left will take, at the mean duration of the {@code done}
     * runs since {@code started} (a {@link System#nanoTime}); empty before the first run ended.
     */
    static String timeLeft(long started, int done, int total) {
        if (done == 0) {
            return "";
        }
        long seconds = Math.round((System.nanoTime() - started) / 1e9 / done * (total - done));
        return seconds < 60 ? ", ~" + seconds + " s left"
                : String.format(Locale.ROOT, ", ~%d min %02d s left", seconds / 60, seconds % 60);
    }

    /**
     * Whether other processes took CPU the worker needed during the timed phase: their share of the machine's CPUs
     * beyond the cores the worker threads leave idle ({@code (cores - threads) / cores}) exceeds
     * {@code --disturbed-above}. (Other disturbances, such as neighbours on the same host sharing caches and memory
     * bandwidth, are invisible from here.)
     */
    static boolean disturbed(RunRecord r, Options options) {
        int cores = Runtime.getRuntime().availableProcessors();
        double headroom = Math.max(0, cores - r.threads()) / (double) cores;
        return r.ok() && r.othersCpuShare() - headroom > options.disturbedAbove;
    }

    /**
     * {@code bench/results} next to the jar ({@code bench/target/grove-bench.jar}), else under the working directory.
     */
    public static Path defaultResultsDirectory() {
        try {
            Path jar = Path.of(BenchMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path bench = jar.getParent() == null ? null : jar.getParent().getParent();
            if (bench != null && Files.isRegularFile(bench.resolve("pom.xml"))) {
                return bench.resolve("results");
            }
        } catch (Exception e) {
            // fall through
        }
        Path here = Path.of("bench");
        return Files.isDirectory(here) ? here.resolve("results") : Path.of("results");
    }
}
