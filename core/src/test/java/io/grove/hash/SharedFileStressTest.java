package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.grove.GroveHashMap;
import io.grove.internal.tool.FileTool;
import io.grove.testing.StressRun;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several processes write one file at once while a driver kills them with {@code SIGKILL} at random moments and starts
 * new ones, for 20 s (600 s with {@code -Dgrove.stress.long=true}, {@link StressRun}): {@value #WORKERS} child JVMs
 * ({@link SharedWriter}) of {@value #THREADS} threads each, on this 2-core machine. A process killed while it holds a
 * segment's lock, inside a mutation or an in-place update, is repaired by the first of the others to wait for it, while
 * they run on; what a killed process left (its segments, hazard slots, release stripes) is salvaged by that waiter or
 * by the next process to open the file. Asserted:
 * <ul>
 *   <li>no operation of a surviving process fails or waits out its bound (the children halt on any exception, which an
 *       operation that waited out {@code otherProcessWait} throws), and each thread reads its own keys back exactly;
 *   <li>no acknowledged write is lost, none is torn: what a new process finds on its keys when it starts, and what the
 *       file holds after the last kill, is the last acknowledged value or that of the operation in flight at the kill
 *       (an in-place update cut off is undone);
 *   <li>each shared counter, incremented in place by every process, ends between the increments acknowledged and those
 *       attempted;
 *   <li>after all keys are removed, the file holds as many slices as a new empty table (nothing leaked), and
 *       {@code verify} passes.
 * </ul>
 * Printed: the latencies of the acknowledged operations (median, 99th percentile, maximum) and the salvages done while
 * the others ran (from the processes' logs): at least one per two kills, and, in a run of 10 kills or more, some with
 * segments to repair.
 */
class SharedFileStressTest {
    static final int WORKERS = 3;
    static final int THREADS = 2;
    static final int KEYS = 1_200;
    static final int COUNTERS = 4;
    private static final Object ABSENT = new Object();
    /** What a process logs when it salvaged what a killed one left, before the milliseconds it took. */
    private static final String SALVAGED = "ended without closing the file; salvaged in ";

    @TempDir
    Path dir;

    private final Map<Long, String> acknowledged = new HashMap<>();
    /** The key's other possible value (a value or {@link #ABSENT}): an operation was in flight at a kill. */
    private final Map<Long, Object> inFlight = new HashMap<>();
    private final long[] incrementsAcknowledged = new long[COUNTERS];
    private final long[] incrementsAttempted = new long[COUNTERS];
    private final List<Long> micros = new ArrayList<>();
    /**
     * How long each salvage that repaired segments a killed process left locked took, from the logs of the processes
     * that did them.
     */
    private final List<Long> repairMillis = new ArrayList<>();
    /** The salvages of killed processes (segments repaired or not) the logs tell of. */
    private int salvages;
    private int incarnations;

    @Test
    @Timeout(value = 30, unit = TimeUnit.MINUTES)
    void writersInSeveralProcessesLoseNothingWhenKilled() throws Exception {
        int seconds = StressRun.rounds(20, 600);
        long seed = Long.getLong("grove.seed", System.nanoTime());
        Random random = new Random(seed);
        Path file = dir.resolve("shared.grove");
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
            for (int c = 0; c < COUNTERS; c++) {
                map.put(SharedWriter.counterKey(c), SharedWriter.counterValue(0));
            }
        }
        Process[] running = new Process[WORKERS];
        Path[] outputs = new Path[WORKERS];
        int kills = 0;
        try {
            for (int w = 0; w < WORKERS; w++) {
                outputs[w] = start(file, w, random.nextLong(), running);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() < deadline) {
                Thread.sleep(200 + random.nextInt(800));
                int w = random.nextInt(WORKERS);
                end(running[w], outputs[w], "seed " + seed + ", kill " + kills);
                kills++;
                outputs[w] = start(file, w, random.nextLong(), running);
            }
            for (int w = 0; w < WORKERS; w++) {
                end(running[w], outputs[w], "seed " + seed + ", the last kills");
            }
        } finally {
            for (Process process : running) {
                if (process != null) {
                    process.destroyForcibly().waitFor();
                }
            }
        }
        String context = "seed " + seed;
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) { // recovers the file
            for (long k = 0; k < KEYS; k++) {
                check(k, map.get(k), context + ", after the last kill");
            }
            for (int c = 0; c < COUNTERS; c++) {
                long count = Long.parseLong(map.get(SharedWriter.counterKey(c)));
                assertTrue(count >= incrementsAcknowledged[c] && count <= incrementsAttempted[c], context + ": counter "
                        + c + " holds " + count + ", acknowledged " + incrementsAcknowledged[c] + ", attempted "
                        + incrementsAttempted[c]);
            }
            map.clear();
        }
        long[] sorted = micros.stream().mapToLong(Long::longValue).sorted().toArray();
        System.out.println("shared file, " + WORKERS + " processes x " + THREADS + " threads, " + seconds + " s: "
                + kills + " kills, " + incarnations + " processes, " + sorted.length + " operations acknowledged;"
                + " latency median " + sorted[sorted.length / 2] + " us, 99th percentile "
                + sorted[(int) (sorted.length * 0.99)] + " us, maximum " + sorted[sorted.length - 1] + " us; "
                + salvages + " killed processes salvaged while the others ran, " + repairMillis.size()
                + " of them with segments to repair, taking " + repairMillis + " ms");
        assertTrue(kills >= seconds / 2, context + ": only " + kills + " kills");
        assertTrue(salvages >= kills / 2, context + ": " + kills + " kills, " + salvages + " salvaged");
        assertTrue(kills < 10 || !repairMillis.isEmpty(), context + ": no kill fell while a lock was held");
        assertTrue(sorted.length > 100L * kills, context + ": only " + sorted.length + " operations acknowledged");
        assertEquals(emptyTableSlices(), liveSlices(file), context + ": slices left once every key was removed");
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        int status = FileTool.run(new String[] {"verify", file.toString()},
                new PrintStream(report, true, StandardCharsets.UTF_8), System.err);
        assertEquals(0, status, context + ": verify\n" + report.toString(StandardCharsets.UTF_8));
    }

    /** Starts worker {@code w} on {@code file} into {@code running[w]}; returns its output's path. */
    private Path start(Path file, int w, long seed, Process[] running) throws IOException {
        Path output = dir.resolve("worker-" + w + "-" + incarnations++ + ".out");
        running[w] = ChildJvm.of(SharedWriter.class, file.toString(), String.valueOf(w), String.valueOf(WORKERS),
                String.valueOf(THREADS), String.valueOf(KEYS), String.valueOf(COUNTERS), String.valueOf(seed))
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        return output;
    }

    /**
     * Kills {@code process} and checks what it printed to {@code output}: the values it found on its keys, then its
     * operations, applied to what the test knows.
     */
    private void end(Process process, Path output, String context) throws IOException, InterruptedException {
        process.destroyForcibly();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), context + ": the killed process did not end");
        int writers = WORKERS * THREADS;
        long[] begunKey = new long[writers];
        long[] begunOp = new long[writers];
        boolean[] begun = new boolean[writers];
        for (String line : Files.readAllLines(output, StandardCharsets.US_ASCII)) {
            int salvaged = line.indexOf(SALVAGED);
            if (salvaged >= 0) {
                salvages++;
                if (!line.contains("segments []")) {
                    repairMillis.add(Long.parseLong(line.substring(salvaged + SALVAGED.length(),
                            line.indexOf(" ms:"))));
                }
            }
            String[] f = line.split(" ", 4);
            if (f[0].equals("BAD")) {
                fail(context + ": a process failed: " + line.replace('|', '\n'));
            }
            if (f.length < 3 || !(f[0].equals("s") || f[0].equals("b") || f[0].equals("a"))) {
                continue; // the ready line, the JVM's own, or a line cut by the kill
            }
            int g = Integer.parseInt(f[1]);
            if (f[0].equals("s") && f.length == 4) {
                long key = Long.parseLong(f[2]);
                check(key, f[3].equals("-") ? null : f[3], context + ", found by a new process");
            } else if (f[0].equals("b") && f.length == 4) {
                begunKey[g] = Long.parseLong(f[2]);
                begunOp[g] = Long.parseLong(f[3]);
                begun[g] = true;
                if (begunOp[g] == SharedWriter.INCREMENT) {
                    incrementsAttempted[counter(begunKey[g])]++;
                }
            } else if (f[0].equals("a") && begun[g]) {
                if (begunOp[g] == SharedWriter.INCREMENT) {
                    incrementsAcknowledged[counter(begunKey[g])]++;
                } else {
                    acknowledged.compute(begunKey[g], (k, v) -> CrashWriter.after(k, v, begunOp[g]));
                }
                micros.add(Long.parseLong(f[2]));
                begun[g] = false;
            }
        }
        for (int g = 0; g < writers; g++) {
            if (begun[g] && begunOp[g] != SharedWriter.INCREMENT) {
                String value = CrashWriter.after(begunKey[g], acknowledged.get(begunKey[g]), begunOp[g]);
                inFlight.put(begunKey[g], value == null ? ABSENT : value);
            }
        }
    }

    /**
     * Checks that own key {@code key} holds {@code actual}: its last acknowledged value, or that of the operation in
     * flight at the kill of its last writer; what it holds is then known.
     */
    private void check(long key, String actual, String context) {
        Object other = inFlight.remove(key);
        if (!Objects.equals(actual, acknowledged.get(key))
                && !(other != null && Objects.equals(actual, other == ABSENT ? null : other))) {
            fail(context + ": key " + key + " holds " + actual + ", acknowledged " + acknowledged.get(key)
                    + (other == null ? "" : ", or in flight " + (other == ABSENT ? null : other)));
        }
        if (actual == null) {
            acknowledged.remove(key);
        } else {
            acknowledged.put(key, actual);
        }
    }

    private static int counter(long key) {
        return (int) (-1 - key);
    }

    /** The live slices of the map in {@code file}, as its footprint tells after a clean open. */
    private static long liveSlices(Path file) {
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
            return map.footprint().liveSlices();
        }
    }

    /** The live slices of a new empty table built as the test's. */
    private long emptyTableSlices() throws IOException {
        Path empty = dir.resolve("empty.grove");
        long slices = liveSlices(empty);
        Files.delete(empty);
        return slices;
    }
}
