package io.grove.bench.latency;

import io.grove.bench.Units;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The command line of the slow-writer experiment ({@code ./grove bench latency [options]}). */
final class LatencyOptions {
    static final String USAGE = """
            usage: ./grove bench latency [options]
                   (or: java -cp "bench/target/grove-bench.jar:bench/target/lib/*" \\
                        io.grove.bench.latency.SlowWriterLatency [options])

            Get latency of readers while one writer keeps updating one key slowly, each map in its own JVM
            (bench/README.md, "Readers and a slow in-place writer"). Defaults: about 4 minutes on 2 cores.

            options:
              --contender A,B     maps (default: all): grove-hash, grove-hash-unsized, grove-sorted, chm, cslm
              --target A,B        which keys the readers get: 'other' (every key but the slow one, uniform),
                                  'same' (the slow key itself); default: other,same
              --readers N         reader threads (default: 1)
              --hold 200ms        how long each slow update holds its key (default: 200ms)
              --work sleep|spin   how the update holds: sleeping, or busy-waiting on a core (default: sleep)
              --pause 0           the writer's pause between two slow updates (default: 0, back to back)
              --keys N            entries (default: 1,000,000), 8-byte long keys
              --value-size N      bytes per value (default: 100)
              --warmup 1s         writer and readers run this long before the timed phase (default: 1s)
              --duration 4s       timed phase (default: 4s)
              --repeats 3         runs per map and target; the table shows medians (default: 3)
              --waited-above 1ms  a get this long or longer counts as one that waited for the writer (default: 1ms)
              --budget 4g         memory per JVM: on-heap maps -Xmx = budget, off-heap maps -Xmx = small heap
                                  and the rest as the map's memory limit (default: 4g, as the comparison)
              --small-heap 512m   the heap of off-heap maps (default: 512m)
              --seed N            random seed: the slow key and the readers' keys (default: 42)
              --jvm-arg ARG       extra option for every child JVM (repeatable)
              --results DIR       where the CSV goes (default: bench/results)
              --verbose           print every child's output
              --help
            """;

    List<LatencyContender> contenders = Arrays.asList(LatencyContender.values());
    List<String> targets = SlowWriterConfig.TARGETS;
    int readers = 1;
    long holdNanos = 200_000_000L;
    boolean spin;
    long pauseNanos;
    int keys = 1_000_000;
    int valueSize = 100;
    long warmupMillis = 1_000;
    long durationMillis = 4_000;
    int repeats = 3;
    long waitedAboveNanos = 1_000_000L;
    long budget = 4L << 30;
    long smallHeap = 512L << 20;
    long seed = 42;
    final List<String> jvmArgs = new ArrayList<>();
    Path results;
    boolean verbose;

    static LatencyOptions parse(String[] args) {
        LatencyOptions o = new LatencyOptions();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            String value = null;
            int eq = name.indexOf('=');
            if (name.startsWith("--") && eq > 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (name.equals("--help") || name.equals("-h")) {
                System.out.print(USAGE);
                System.exit(0);
            }
            if (name.equals("--verbose")) {
                o.verbose = true;
                continue;
            }
            if (value == null) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(name + " needs a value\n\n" + USAGE);
                }
                value = args[++i];
            }
            switch (name) {
                case "--contender" -> o.contenders = split(value).stream().map(LatencyContender::named).toList();
                case "--target" -> o.targets = targets(value);
                case "--readers" -> o.readers = positiveInt(name, value);
                case "--hold" -> o.holdNanos = Units.parseMillis(value) * 1_000_000L;
                case "--work" -> o.spin = switch (value) {
                    case "sleep" -> false;
                    case "spin" -> true;
                    default -> throw new IllegalArgumentException("--work must be sleep or spin, was " + value);
                };
                case "--pause" -> o.pauseNanos = value.trim().matches("0+(ms|s)?") ? 0
                        : Units.parseMillis(value) * 1_000_000L;
                case "--keys" -> o.keys = positiveInt(name, value);
                case "--value-size" -> o.valueSize = positiveInt(name, value);
                case "--warmup" -> o.warmupMillis = Units.parseMillis(value);
                case "--duration" -> o.durationMillis = Units.parseMillis(value);
                case "--repeats" -> o.repeats = positiveInt(name, value);
                case "--waited-above" -> o.waitedAboveNanos = Units.parseMillis(value) * 1_000_000L;
                case "--budget" -> o.budget = Units.parseSize(value);
                case "--small-heap" -> o.smallHeap = Units.parseSize(value);
                case "--seed" -> o.seed = Long.parseLong(value.trim());
                case "--jvm-arg" -> o.jvmArgs.add(value);
                case "--results" -> o.results = Path.of(value);
                default -> throw new IllegalArgumentException("unknown option " + name + "\n\n" + USAGE);
            }
        }
        if (o.smallHeap >= o.budget) {
            throw new IllegalArgumentException("--small-heap (" + Units.size(o.smallHeap) + ") must be below --budget ("
                    + Units.size(o.budget) + ")");
        }
        if (o.keys < 2) {
            throw new IllegalArgumentException("--keys must be at least 2 (the slow key and another), was " + o.keys);
        }
        if (o.valueSize < 24) {
            throw new IllegalArgumentException("--value-size must be at least 24 (key word, counter, key word), was "
                    + o.valueSize);
        }
        return o;
    }

    private static List<String> targets(String value) {
        List<String> targets = split(value);
        for (String t : targets) {
            if (!SlowWriterConfig.TARGETS.contains(t)) {
                throw new IllegalArgumentException("--target takes " + SlowWriterConfig.TARGETS + ", not " + t);
            }
        }
        return targets;
    }

    private static List<String> split(String value) {
        List<String> items = Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        if (items.isEmpty()) {
            throw new IllegalArgumentException("empty list: '" + value + "'");
        }
        return items;
    }

    private static int positiveInt(String option, String value) {
        try {
            int n = Integer.parseInt(value.trim().replace("_", ""));
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException(option + " takes a positive integer, not " + value);
    }
}
