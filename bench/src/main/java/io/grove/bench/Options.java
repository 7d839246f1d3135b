package io.grove.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of the comparison ({@code ./grove bench [options]}). */
final class Options {
    static final String USAGE = """
            usage: ./grove bench [options]          run the comparison (each contender in its own JVM); without
                                                    options: every scenario against its peers, 535 runs,
                                                    about an hour on 2 cores (bench/README.md)
                   ./grove bench list               list scenarios and contenders
                   ./grove bench report FILE.csv    print the table of an earlier run again from its CSV
                   ./grove bench summary [--into F] FILE.csv...
                                                    Grove's ratios to its peers as Markdown tables; --into
                                                    replaces the generated part of F (e.g. BENCHMARKS.md)
                   ./grove bench jmh [JMH args]     run the JMH micro-benchmarks (io.grove.bench.jmh)
                   ./grove bench latency [args]     get latency with one slow writer (./grove bench latency --help)

            options:
              --quick                 smoke test of every scenario: --threads 2 --warmup 0.5s --duration 1s
                                      --repeats 1 --retry-disturbed 0, map scenarios with 100,000 keys (explicit
                                      options still win); about 3 minutes
              --scenario A,B          scenarios or groups to run: 'slices' (the memory layer), 'maps' (the hash
                                      map against its peers), 'ordered' (the ordered map against its peers),
                                      'rollup' (Druid-style rollup), 'all'; default: all (the comparison
                                      against peers)
              --contender X,Y         contenders to run (default: all of each scenario's family)
              --threads 1,2           worker thread counts (default: 1,2)
              --warmup 1s             warm-up before each timed phase (default: 1s)
              --duration 2s           timed phase (default: 2s)
              --repeats 2             runs per cell; the table shows the median (default: 2; oak-ingest: 1)
              --budget 4g             total memory per worker JVM (default: 4g); on-heap contenders get
                                      -Xmx=budget, off-heap ones -Xmx=small heap and the rest off heap
              --budget-of NAME=SIZE   the budget of one contender instead of --budget (repeatable), e.g. to give
                                      chm twice Grove's memory: --budget-of grove-hash=1g --budget-of chm=2g
              --small-heap 512m       the heap of off-heap contenders (default: 512m)
              --grow-only-limit 12g   off-heap limit of contenders that never reuse memory (grow-only); beyond
                                      the budget by design (default: 12g)
              --keys N                override the scenarios' number of keys
              --value-size N          override the scenarios' value size in bytes
              --seed N                random seed (default: 42)
              --retry-disturbed N     run again (once) a run during whose timed phase other processes took more than
                                      --disturbed-above of the machine's CPUs beyond the cores the worker threads
                                      leave idle; at most N such re-runs in all, so the time stays bounded
                                      (default: 6)
              --disturbed-above 0.15  that share (default: 0.15); the table's 'others%' column shows the share
              --wait-idle 60s         before each run, wait up to this long until other processes use less than
                                      --disturbed-above of the CPUs over one second (default: 0, do not wait)
              --jvm-arg ARG           extra option for every worker JVM (repeatable)
              --results DIR           where the CSV goes (default: bench/results)
              --verbose               print every worker's output
              --help
            """;

    List<String> scenarios = List.of();
    List<String> contenders = List.of();
    List<Integer> threads = List.of(1, 2);
    long warmupMillis = 1_000;
    long durationMillis = 2_000;
    int repeats = 2;
    long budget = 4L << 30;
    final java.util.Map<String, Long> budgets = new java.util.HashMap<>();
    long smallHeap = 512L << 20;
    long growOnlyLimit = 12L << 30;
    Integer keys;
    Integer valueSize;
    long seed = 42;
    int retryDisturbed = 6;
    long waitIdleMillis = 0;
    double disturbedAbove = 0.15;
    final List<String> jvmArgs = new ArrayList<>();
    Path results;
    boolean verbose;
    boolean quick;
    /** Whether {@code --repeats} was given (else a scenario may run fewer, {@link Scenario#defaultRepeats}). */
    boolean repeatsSet;

    static Options parse(String[] args) {
        Options o = new Options();
        boolean warmupSet = false, durationSet = false, threadsSet = false, retrySet = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            switch (name) {
                case "--quick" -> o.quick = true;
                case "--verbose" -> o.verbose = true;
                case "--help", "-h" -> {
                    System.out.print(USAGE);
                    System.exit(0);
                }
                default -> {
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new IllegalArgumentException(name + " needs a value\n\n" + USAGE);
                        }
                        value = args[++i];
                    }
                    switch (name) {
                        case "--scenario" -> o.scenarios = split(value);
                        case "--contender" -> o.contenders = split(value);
                        case "--threads" -> {
                            o.threads = split(value).stream().map(Options::positiveInt).toList();
                            threadsSet = true;
                        }
                        case "--warmup" -> {
                            o.warmupMillis = Units.parseMillis(value);
                            warmupSet = true;
                        }
                        case "--duration" -> {
                            o.durationMillis = Units.parseMillis(value);
                            durationSet = true;
                        }
                        case "--repeats" -> {
                            o.repeats = positiveInt(value);
                            o.repeatsSet = true;
                        }
                        case "--budget" -> o.budget = Units.parseSize(value);
                        case "--budget-of" -> {
                            int at = value.indexOf('=');
                            if (at <= 0) {
                                throw new IllegalArgumentException("--budget-of needs NAME=SIZE, not " + value);
                            }
                            o.budgets.put(value.substring(0, at).trim(), Units.parseSize(value.substring(at + 1)));
                        }
                        case "--small-heap" -> o.smallHeap = Units.parseSize(value);
                        case "--grow-only-limit" -> o.growOnlyLimit = Units.parseSize(value);
                        case "--keys" -> o.keys = positiveInt(value);
                        case "--value-size" -> o.valueSize = positiveInt(value);
                        case "--seed" -> o.seed = Long.parseLong(value);
                        case "--wait-idle" -> o.waitIdleMillis = value.trim().equals("0") ? 0
                                : Units.parseMillis(value);
                        case "--retry-disturbed" -> {
                            o.retryDisturbed = Integer.parseInt(value.trim());
                            retrySet = true;
                        }
                        case "--disturbed-above" -> o.disturbedAbove = Double.parseDouble(value.trim());
                        case "--jvm-arg" -> o.jvmArgs.add(value);
                        case "--results" -> o.results = Path.of(value);
                        default -> throw new IllegalArgumentException("unknown option " + name + "\n\n" + USAGE);
                    }
                }
            }
        }
        if (o.quick) {
            // A smoke test: every scenario and contender once, on 2 threads (the concurrent path, which runs all
            // that a 1-thread run does), as briefly as the harness allows; its figures are not for reading.
            o.threads = threadsSet ? o.threads : List.of(2);
            o.warmupMillis = warmupSet ? o.warmupMillis : 500;
            o.durationMillis = durationSet ? o.durationMillis : 1_000;
            o.repeats = o.repeatsSet ? o.repeats : 1;
            o.retryDisturbed = retrySet ? o.retryDisturbed : 0;
        }
        for (java.util.Map.Entry<String, Long> e : o.budgets.entrySet()) {
            if (o.smallHeap >= e.getValue()) {
                throw new IllegalArgumentException("--small-heap (" + Units.size(o.smallHeap)
                        + ") must be below --budget-of " + e.getKey() + " (" + Units.size(e.getValue()) + ")");
            }
        }
        if (o.smallHeap >= o.budget) {
            throw new IllegalArgumentException("--small-heap (" + Units.size(o.smallHeap)
                    + ") must be below --budget (" + Units.size(o.budget) + ")");
        }
        return o;
    }

    /** The memory budget of {@code contender}'s worker JVM: its {@code --budget-of}, else {@code --budget}. */
    long budgetFor(String contender) {
        return budgets.getOrDefault(contender, budget);
    }

    private static List<String> split(String value) {
        List<String> items = new ArrayList<>();
        for (String s : value.split(",")) {
            if (!s.isBlank()) {
                items.add(s.trim());
            }
        }
        if (items.isEmpty()) {
            throw new IllegalArgumentException("empty list: '" + value + "'");
        }
        return items;
    }

    private static int positiveInt(String value) {
        int n;
        try {
            n = Integer.parseInt(value.trim().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an integer: " + value);
        }
        if (n <= 0) {
            throw new IllegalArgumentException("must be positive: " + value);
        }
        return n;
    }
}
