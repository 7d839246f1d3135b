package io.grove.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The summary of a YCSB result CSV ({@code ./grove ycsb}: {@code workload,threads,db,metric,value}) for
 * {@link Summary}: per workload and thread count, the throughput of Grove's faster map as a ratio to each peer, and
 * the chart of that table ({@link RatioChart}). A store that does not scan fails workload E's scans
 * ({@code SCAN-FAILED}) and, like a run that exited with an error, takes no part in that row. YCSB runs once per
 * cell, so a ratio is one run's against another's, not a median.
 */
final class YcsbSummary {
    private static final String THROUGHPUT = "OVERALL Throughput(ops/sec)";

    private YcsbSummary() {}

    /** Whether {@code csv} is a YCSB result file ({@code ycsb-<time>.csv}). */
    static boolean isYcsb(Path csv) {
        return csv.getFileName().toString().startsWith("ycsb-");
    }

    static String of(Path csv, Path base) throws IOException {
        Map<String, Map<String, Double>> throughput = new LinkedHashMap<>(); // "workload | threads" -> db -> ops/s
        Set<String> failed = new HashSet<>(); // "workload | threads | db"
        List<String> dbs = new ArrayList<>();
        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", 5);
            String row = f[0].toUpperCase(Locale.ROOT) + " | " + f[1];
            if (!dbs.contains(f[2])) {
                dbs.add(f[2]);
            }
            if (f[3].equals(THROUGHPUT)) {
                throughput.computeIfAbsent(row, r -> new LinkedHashMap<>()).put(f[2], Double.parseDouble(f[4]));
            } else if ((f[3].equals("exit") || f[3].endsWith("-FAILED Operations")) && !f[4].equals("0")) {
                failed.add(row + " | " + f[2]);
            }
        }
        List<String> groves = dbs.stream().filter(db -> db.startsWith("grove")).toList();
        List<Scenario.Comparison> columns = dbs.stream().filter(db -> !db.startsWith("grove"))
                .map(db -> new Scenario.Comparison("Grove", db)).toList();
        RunInfo info = RunInfo.read(csv);
        String name = csv.getFileName().toString();
        StringBuilder md = new StringBuilder(String.format(Locale.ROOT, "**ycsb** — started %s (the file's name),"
                + " commit `%s`, one run per cell, the ratio of the throughput of Grove's faster map (%s) to each"
                + " store:%n`%s` (`%s`)%n%n", started(name), info.commit(), String.join(" or ", groves),
                info.command(), name));
        Summary.tableHead(md, List.of("workload", "threads", "faster Grove map"), columns);
        List<String> rows = new ArrayList<>();
        List<double[]> ratios = new ArrayList<>();
        for (Map.Entry<String, Map<String, Double>> r : throughput.entrySet()) {
            String best = null;
            for (String grove : groves) {
                Double ops = r.getValue().get(grove);
                if (ops != null && !failed.contains(r.getKey() + " | " + grove)
                        && (best == null || ops > r.getValue().get(best))) {
                    best = grove;
                }
            }
            double[] row = new double[columns.size()];
            for (int i = 0; i < columns.size(); i++) {
                String peer = columns.get(i).denominator();
                Double ops = r.getValue().get(peer);
                row[i] = best == null || ops == null || failed.contains(r.getKey() + " | " + peer) ? Double.NaN
                        : r.getValue().get(best) / ops;
            }
            Summary.tableRow(md, "| " + r.getKey() + " | " + (best == null ? "-" : best) + " |", row);
            rows.add(r.getKey());
            ratios.add(row);
        }
        md.append('\n');
        Path png = RatioChart.draw(csv, "ycsb", rows, columns, ratios);
        if (png != null) {
            md.append("![ycsb: Grove's ratios to each store](").append(Summary.link(base, png)).append(")\n\n");
        }
        return md.toString();
    }

    /** {@code ycsb-20261126-045723.csv} as {@code 2026-11-26 04:57}. */
    private static String started(String name) {
        return name.matches("ycsb-\\d{8}-\\d{6}\\.csv") ? name.substring(5, 9) + "-" + name.substring(9, 11) + "-"
                + name.substring(11, 13) + " " + name.substring(14, 16) + ":" + name.substring(16, 18) : name;
    }
}
