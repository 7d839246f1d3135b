package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.grove.GroveHashMap;
import io.grove.internal.tool.FileTool;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A process killed with {@code SIGKILL} while it writes a file-backed map loses nothing it acknowledged: a child JVM
 * ({@link CrashWriter}) puts, removes and updates values in place (zero-copy, slowly) with several threads, printing
 * each operation before it starts and after it returned; the test kills it at a random moment, opens the file (which
 * recovers it), and checks that every key holds the value of its last acknowledged operation, or of the one operation
 * its thread had begun and not acknowledged; that no value is torn (an in-place update cut off is put back as it was);
 * that {@code verify} passes on the file after a clean close; and that the next child keeps working on it; on a table
 * of slots and on one with entries in its cells ({@link CrashWriter#builder}). Repeated over {@code grove.crash.kills}
 * kills per table (default 5; e.g. 200 on demand), each child continuing the previous one's file, with 3 writer threads
 * on this 2-core machine (more threads than cores) over 4,000 keys. The first child fills an empty table sized for 64
 * entries, so its segments grow while it is killed; the growth moves a kill can cut, which a kill at a random moment
 * rarely hits, are built one by one in {@code TableRecoveryTest}.
 */
class CrashTest {
    static final int THREADS = 3;
    static final int KEYS = 4_000;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "cells {0}")
    @ValueSource(booleans = {false, true})
    void everyAcknowledgedWriteSurvivesAKill(boolean cells) throws Exception {
        int kills = Integer.getInteger("grove.crash.kills", 5);
        long seed = Long.getLong("grove.seed", System.nanoTime());
        Random random = new Random(seed);
        Path file = dir.resolve("crash.grove");
        Map<Long, String> acknowledged = new HashMap<>();
        for (int kill = 0; kill < kills; kill++) {
            String context = "seed " + seed + ", kill " + kill;
            Child child = runAndKill(file, cells, random.nextLong(), 50 + random.nextInt(750));
            Map<Long, String> pending = child.apply(acknowledged);
            try (GroveHashMap<Long, String> map = CrashWriter.builder(file, cells).build()) {
                int present = 0;
                for (long k = 0; k < KEYS; k++) {
                    String actual = map.get(k);
                    String expected = acknowledged.get(k);
                    if (!Objects.equals(actual, expected)
                            && !(pending.containsKey(k) && Objects.equals(actual, pending.get(k)))) {
                        fail(context + ": key " + k + " holds " + actual + ", acknowledged " + expected
                                + (pending.containsKey(k) ? ", or in flight " + pending.get(k) : "")
                                + "; the child's last lines on it: " + child.linesOn(k));
                    }
                    if (actual != null) {
                        present++;
                        acknowledged.put(k, actual);
                    } else {
                        acknowledged.remove(k);
                    }
                }
                assertEquals(present, map.size(), context + ": size after recovery");
                assertTrue(child.operations > 0, context + ": the child acknowledged nothing");
            }
            ByteArrayOutputStream report = new ByteArrayOutputStream();
            int status = FileTool.run(new String[] {"verify", file.toString()},
                    new PrintStream(report, true, StandardCharsets.UTF_8), System.err);
            assertEquals(0, status, context + ": verify after recovery\n" + report.toString(StandardCharsets.UTF_8));
        }
    }

    /** What a killed child printed: the operations each thread acknowledged, and the one it had in flight. */
    static final class Child {
        final List<String> lines = new ArrayList<>();
        long operations;

        /** The last lines about {@code key}, each with the line that followed it, for a failure's message. */
        List<String> linesOn(long key) {
            List<String> about = new ArrayList<>();
            for (int i = 0; i < lines.size(); i++) {
                String[] f = lines.get(i).split(" ");
                if (f.length == 4 && f[2].equals(String.valueOf(key))) {
                    about.add(lines.get(i) + (i + 1 < lines.size() ? " / next: " + lines.get(i + 1) : ""));
                }
            }
            return about.subList(Math.max(0, about.size() - 3), about.size());
        }

        /**
         * Applies every acknowledged operation to {@code state}, in each thread's order; returns the operations in
         * flight at the kill (key to value, {@code null} for a remove).
         */
        Map<Long, String> apply(Map<Long, String> state) {
            long[] begunKey = new long[THREADS];
            long[] begunSeq = new long[THREADS];
            boolean[] begun = new boolean[THREADS];
            for (String line : lines) {
                String[] f = line.split(" ");
                if (f.length < 2 || !(f[0].equals("b") || f[0].equals("a"))) {
                    continue; // the ready line, or a line cut by the kill
                }
                int t = Integer.parseInt(f[1]);
                if (f[0].equals("b") && f.length == 4) {
                    begunKey[t] = Long.parseLong(f[2]);
                    begunSeq[t] = Long.parseLong(f[3]);
                    begun[t] = true;
                } else if (f[0].equals("a") && begun[t]) {
                    state.compute(begunKey[t], (k, v) -> CrashWriter.after(k, v, begunSeq[t]));
                    begun[t] = false;
                    operations++;
                }
            }
            Map<Long, String> pending = new HashMap<>();
            for (int t = 0; t < THREADS; t++) {
                if (begun[t]) {
                    pending.put(begunKey[t], CrashWriter.after(begunKey[t], state.get(begunKey[t]), begunSeq[t]));
                }
            }
            return pending;
        }
    }

    /**
     * Starts a child on {@code file}, kills it {@code millis} ms after its first acknowledged operation (so that the
     * kill falls among its writes: a child's first operation bootstraps classes and call sites, which took more
     * than the shortest delay once on a loaded machine, and the child was killed before it wrote anything), and
     * returns its lines.
     */
    private Child runAndKill(Path file, boolean cells, long seed, int millis)
            throws IOException, InterruptedException {
        Path output = dir.resolve("child.out");
        Path errors = dir.resolve("child.err");
        Process process = startWriting(file, cells, seed, output, errors);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.readString(output, StandardCharsets.US_ASCII).contains("\na ") && process.isAlive()
                && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        Thread.sleep(millis);
        process.destroyForcibly();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the killed child did not end");
        Child child = new Child();
        child.lines.addAll(Files.readAllLines(output, StandardCharsets.US_ASCII));
        assertEquals(CrashWriter.READY, child.lines.getFirst(), "child's first line; errors: "
                + Files.readString(errors));
        return child;
    }

    /** A child JVM running a {@link CrashWriter} on {@code file}, its output going to {@code output}. */
    static ProcessBuilder writer(Path file, boolean cells, long seed, Path output, Path errors) {
        return ChildJvm.of(CrashWriter.class, file.toString(), String.valueOf(THREADS), String.valueOf(KEYS),
                String.valueOf(seed), String.valueOf(cells))
                .redirectError(errors.toFile()).redirectOutput(output.toFile());
    }

    /**
     * Starts a {@link CrashWriter} on {@code file}, its output going to {@code output} (a file keeps every line
     * written, whatever happens to the process), and returns once it has the map open.
     */
    static Process startWriting(Path file, boolean cells, long seed, Path output, Path errors)
            throws IOException, InterruptedException {
        Process process = writer(file, cells, seed, output, errors).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Files.size(output) == 0 && process.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        if (!process.isAlive() || Files.size(output) == 0) {
            process.destroyForcibly().waitFor();
            fail("the child did not start writing: " + Files.readString(errors));
        }
        return process;
    }

    /** The output of {@link FileTool} run here with {@code command} on {@code file}. */
    static String tool(String command, Path file) {
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        FileTool.run(new String[] {command, file.toString()}, new PrintStream(report, true, StandardCharsets.UTF_8),
                new PrintStream(report, true, StandardCharsets.UTF_8));
        return report.toString(StandardCharsets.UTF_8);
    }
}
