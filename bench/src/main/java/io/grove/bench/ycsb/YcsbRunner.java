package io.grove.bench.ycsb;

import io.grove.bench.RunInfo;
import io.grove.bench.maps.ChronicleKv;
import io.grove.bench.maps.LmdbKv;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs YCSB's own client ({@code site.ycsb.Client}, in a JVM of its own per run, as it ends with
 * {@code System.exit}) on YCSB's workloads A-F ({@code bench/ycsb/workload?}) for each binding and thread count,
 * and prints throughput and latency percentiles per operation; every run's figures also go to
 * {@code bench/results/ycsb-<time>.csv} and its output to a log beside it. Each run is a transaction run whose
 * binding first loads {@code recordcount} records through YCSB's workload ({@link MapDb}, {@code grove.preload}).
 *
 * <pre>
 * ./grove ycsb [--db grove-hash,grove-sorted,cslm,chm,chronicle,mapdb,mapdb-tree,lmdb,rocksdb]
 *              [--workload a,b,c,d,e,f] [--threads 1,2]
 *              [--records 1000000] [--operations 1000000] [--heap 4g]
 * </pre>
 */
public final class YcsbRunner {
    /** A binding: its class, extra options of the client's JVM, extra YCSB arguments. */
    private record Binding(String className, List<String> jvmOptions, List<String> arguments) {
        Binding(Class<?> binding, String... arguments) {
            this(binding.getName(), List.of(), List.of(arguments));
        }
    }

    /** Binding names to their binding. */
    private static final Map<String, Binding> BINDINGS = new LinkedHashMap<>();

    static {
        BINDINGS.put("grove-hash", new Binding(GroveHashDb.class));
        BINDINGS.put("grove-sorted", new Binding(GroveSortedDb.class));
        BINDINGS.put("cslm", new Binding(JdkMapDb.class, "-p", "jdk.map=cslm"));
        BINDINGS.put("chm", new Binding(JdkMapDb.class, "-p", "jdk.map=chm"));
        BINDINGS.put("chronicle", new Binding(ChronicleDb.class.getName(), ChronicleKv.JVM_OPTIONS, List.of()));
        BINDINGS.put("mapdb", new Binding(MapDbDb.class));
        BINDINGS.put("mapdb-tree", new Binding(MapDbDb.class, "-p", "mapdb.map=tree"));
        BINDINGS.put("lmdb", new Binding(LmdbDb.class.getName(), LmdbKv.INSTANCE.jvmOptions(), List.of()));
        BINDINGS.put("rocksdb", new Binding(RocksDbDb.class));
    }

    private static final Pattern LINE = Pattern.compile("^\\[([A-Z-]+)\\], ([^,]+), ([0-9.]+)$");

    private YcsbRunner() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        Map<String, String> options = new LinkedHashMap<>(Map.of("--db", String.join(",", BINDINGS.keySet()),
                "--workload", "a,b,c,d,e,f", "--threads", "1,2", "--records", "1000000", "--operations", "1000000",
                "--heap", "4g"));
        for (int i = 0; i < args.length; i++) {
            if (!options.containsKey(args[i]) || i + 1 == args.length) {
                System.err.println("usage: ./grove ycsb [--db " + String.join(",", BINDINGS.keySet())
                        + "] [--workload a,...,f] [--threads 1,2] [--records N] [--operations N] [--heap 4g]");
                System.exit(2);
            }
            options.put(args[i], args[++i]);
        }
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path results = Path.of("bench", "results");
        Files.createDirectories(results);
        Path csv = results.resolve("ycsb-" + stamp + ".csv");
        Path log = results.resolve("ycsb-" + stamp + ".log");
        Files.writeString(csv, "workload,threads,db,metric,value\n", StandardCharsets.UTF_8);
        RunInfo.write(csv, "./grove ycsb", args);
        System.out.printf("%-8s %3s %-13s %12s %10s %10s %10s  (latencies in us, per operation type)%n", "workload",
                "thr", "db", "ops/s", "p50", "p99", "p99.9");
        for (String workload : options.get("--workload").split(",")) {
            for (String threads : options.get("--threads").split(",")) {
                for (String db : options.get("--db").split(",")) {
                    Map<String, String> figures = run(db, workload, threads, options, log);
                    for (Map.Entry<String, String> f : figures.entrySet()) {
                        Files.writeString(csv, workload + "," + threads + "," + db + "," + f.getKey() + ","
                                + f.getValue() + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
                    }
                    print(workload, threads, db, figures);
                }
            }
        }
        System.out.println("figures: " + csv + ", client output: " + log);
    }

    private static Map<String, String> run(String db, String workload, String threads, Map<String, String> options,
            Path log) throws IOException, InterruptedException {
        Binding binding = BINDINGS.get(db);
        if (binding == null) {
            throw new IllegalArgumentException("unknown db " + db + "; known: " + BINDINGS.keySet());
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xms" + options.get("--heap"), "-Xmx" + options.get("--heap"),
                "--enable-native-access=ALL-UNNAMED"));
        binding.jvmOptions().stream().filter(o -> !command.contains(o)).forEach(command::add);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "site.ycsb.Client", "-t", "-db",
                binding.className(), "-P", Path.of("bench", "ycsb", "workload" + workload)
                        .toString(), "-threads", threads, "-p", "recordcount=" + options.get("--records"), "-p",
                "operationcount=" + options.get("--operations"), "-p", "grove.preload=true", "-p",
                "hdrhistogram.percentiles=50,99,99.9"));
        command.addAll(binding.arguments());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int status = process.waitFor();
        Files.writeString(log, "==== workload " + workload + ", " + threads + " threads, " + db + ", exit " + status
                + "\n" + output, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        Map<String, String> figures = new LinkedHashMap<>();
        figures.put("exit", Integer.toString(status));
        for (String line : output.split("\n")) {
            Matcher m = LINE.matcher(line.strip());
            if (m.matches()) {
                figures.put(m.group(1) + " " + m.group(2), m.group(3));
            }
        }
        return figures;
    }

    private static void print(String workload, String threads, String db, Map<String, String> figures) {
        StringBuilder latencies = new StringBuilder();
        for (String op : List.of("READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE")) {
            String p50 = figures.get(op + " 50thPercentileLatency(us)");
            if (p50 != null && !"0".equals(figures.get(op + " Operations"))) {
                latencies.append(String.format("  %s %s / %s / %s", op, p50,
                        figures.get(op + " 99thPercentileLatency(us)"),
                        figures.get(op + " 99.9PercentileLatency(us)")));
            }
        }
        String failed = figures.keySet().stream().filter(k -> k.endsWith("-FAILED Operations"))
                .map(k -> k.replace(" Operations", "") + "=" + figures.get(k)).reduce("", (a, b) -> a + " " + b);
        String throughput = figures.get("OVERALL Throughput(ops/sec)");
        System.out.printf("%-8s %3s %-13s %12s%s%s%s%n", workload, threads, db,
                throughput == null ? "-" : String.format("%,.0f", Double.parseDouble(throughput)), latencies,
                "0".equals(figures.get("exit")) ? "" : "  exit " + figures.get("exit"), failed);
    }
}
