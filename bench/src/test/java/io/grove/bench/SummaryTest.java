package io.grove.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated summary takes its ratios from the CSV (the median of the ratios of runs with the same repeat
 * number), cites the command and commit kept next to the CSV, leaves out rows where a contender did not run, links
 * its charts when it could draw them, keeps each family apart, and replaces only the marked part of a file, the
 * same way each time.
 */
class SummaryTest {
    @Test
    void tablesComeFromTheCsvAndReplaceOnlyTheMarkedPart(@TempDir Path dir) throws Exception {
        Path csv;
        try (Report report = new Report(new Options(), dir)) {
            csv = report.csv();
            // ratios per repeat 3.0, 2.0, 2.0: paired median 2.0 (the ratio of the medians would be 300/100 = 3.0)
            double[][] opsPerSec = {{300, 100}, {200, 100}, {500, 250}};
            for (int repeat = 1; repeat <= 3; repeat++) {
                report.add(run("oak-put", "grove-sorted", 1, repeat, opsPerSec[repeat - 1][0]));
                report.add(run("oak-put", "cslm", 1, repeat, opsPerSec[repeat - 1][1]));
            }
            report.add(run("oak-put", "grove-sorted", 2, 1, 100)); // no peer at 2 threads: no row
            // the same contender names serve another family: a table of its own
            report.add(run("rollup-ingest", "grove-sorted", 1, 1, 50));
            report.add(run("rollup-ingest", "cslm", 1, 1, 100));
        }
        Files.writeString(dir.resolve(csv.getFileName().toString().replace(".csv", ".run.txt")),
                "command: ./grove bench --scenario oak-put\ncommit: abc1234\n", StandardCharsets.UTF_8);
        Path md = dir.resolve("B.md");
        Files.writeString(md, "# B\n\nbefore\n" + Summary.BEGIN + "\nold\n" + Summary.END + "\nafter\n");

        assertEquals(0, Summary.run(List.of("--into", md.toString(), csv.toString())));
        String once = Files.readString(md);
        assertEquals(0, Summary.run(List.of("--into", md.toString(), csv.toString())));
        assertEquals(once, Files.readString(md), "a second run changes nothing");

        assertTrue(once.startsWith("# B\n\nbefore\n" + Summary.BEGIN + "\n"), once);
        assertTrue(once.endsWith(Summary.END + "\nafter\n"), once);
        assertTrue(!once.contains("old"), once);
        assertTrue(once.contains("commit `abc1234`") && once.contains("`./grove bench --scenario oak-put`"), once);
        assertTrue(once.contains("| scenario | threads | grove-sorted / cslm |"), once);
        assertTrue(once.contains("| oak-put | 1 | 2.00 |"), once);
        assertTrue(!once.contains("| oak-put | 2 |"), once);
        assertTrue(once.contains("**rollup**") && once.contains("| rollup-ingest | 1 | 0.50 |"), once);
        assertTrue(!once.contains("| oak-put | 1 | 2.00 | -"), "no rollup column in the ordered table: " + once);
        for (String chart : List.of("-ordered.png", "-ordered-threads.png", "-rollup.png", "-rollup-threads.png")) {
            Path png = dir.resolve(csv.getFileName().toString().replace(".csv", chart));
            assertEquals(Files.isRegularFile(png), once.contains("](" + png.getFileName() + ")"),
                    "a chart is linked if and only if it was drawn (a machine without fonts draws none): " + once);
        }
    }

    @Test
    void aFamilyRunAgainInALaterCsvIsSummarizedFromThatCsvOnly(@TempDir Path dir) throws Exception {
        Path main = csvOf(dir.resolve("main"), run("oak-put", "grove-sorted", 1, 1, 300), run("oak-put", "cslm", 1, 1,
                100), run("rollup-ingest", "grove-sorted", 1, 1, 50), run("rollup-ingest", "cslm", 1, 1, 100));
        Path rerun = csvOf(dir.resolve("rerun"), run("rollup-ingest", "grove-sorted", 1, 1, 120),
                run("rollup-ingest", "cslm", 1, 1, 100));
        Path md = dir.resolve("B.md");
        Files.writeString(md, Summary.BEGIN + "\n" + Summary.END + "\n");
        assertEquals(0, Summary.run(List.of("--into", md.toString(), main.toString(), rerun.toString())));
        String text = Files.readString(md);
        assertTrue(text.contains("| oak-put | 1 | 3.00 |"), text);
        assertTrue(text.contains("| rollup-ingest | 1 | 1.20 |"), text);
        assertTrue(!text.contains("| rollup-ingest | 1 | 0.50 |"), "the superseded figure: " + text);
    }

    private static Path csvOf(Path dir, RunRecord... runs) throws Exception {
        Files.createDirectories(dir);
        try (Report report = new Report(new Options(), dir)) {
            for (RunRecord r : runs) {
                report.add(r);
            }
            return report.csv();
        }
    }

    @Test
    void aYcsbCsvGetsTheFasterGroveMapsRatioToEachStore(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("ycsb-20261126-045723.csv");
        Files.writeString(csv, String.join("\n", "workload,threads,db,metric,value",
                "a,1,grove-hash,exit,0", "a,1,grove-hash,OVERALL Throughput(ops/sec),200",
                "a,1,grove-sorted,OVERALL Throughput(ops/sec),100", "a,1,chronicle,OVERALL Throughput(ops/sec),100",
                "a,1,mapdb-tree,OVERALL Throughput(ops/sec),400",
                "e,1,grove-hash,OVERALL Throughput(ops/sec),1000", "e,1,grove-hash,SCAN-FAILED Operations,950",
                "e,1,grove-sorted,OVERALL Throughput(ops/sec),20", "e,1,chronicle,OVERALL Throughput(ops/sec),900",
                "e,1,chronicle,SCAN-FAILED Operations,950", "e,1,mapdb-tree,OVERALL Throughput(ops/sec),40",
                "f,1,grove-hash,exit,1", "f,1,grove-sorted,OVERALL Throughput(ops/sec),10",
                "f,1,chronicle,OVERALL Throughput(ops/sec),20",
                "f,1,mapdb-tree,OVERALL Throughput(ops/sec),10") + "\n");
        Files.writeString(dir.resolve("ycsb-20261126-045723.run.txt"), "command: ./grove ycsb --threads 1\n"
                + "commit: abc1234\n", StandardCharsets.UTF_8);
        Path md = dir.resolve("B.md");
        Files.writeString(md, Summary.BEGIN + "\n" + Summary.END + "\n");
        assertEquals(0, Summary.run(List.of("--into", md.toString(), csv.toString())));
        String text = Files.readString(md);
        assertTrue(text.contains("started 2026-11-26 04:57") && text.contains("commit `abc1234`")
                && text.contains("`./grove ycsb --threads 1`"), text);
        assertTrue(text.contains("| workload | threads | faster Grove map | Grove / chronicle | Grove / mapdb-tree |"),
                text);
        assertTrue(text.contains("| A | 1 | grove-hash | 2.00 | 0.50 |"), text);
        assertTrue(text.contains("| E | 1 | grove-sorted | - | 0.50 |"), "no scans, no ratio: " + text);
        assertTrue(text.contains("| F | 1 | grove-sorted | 0.50 | 1.00 |"), "a failed run takes no part: " + text);
    }

    private static RunRecord run(String scenario, String contender, int threads, int repeat, double opsPerSec) {
        return new RunRecord(scenario, contender, threads, repeat, "", "ok", Map.of("opsPerSec",
                Double.toString(opsPerSec)), "", 512L << 20, 0, 1.0, 0.0);
    }
}
