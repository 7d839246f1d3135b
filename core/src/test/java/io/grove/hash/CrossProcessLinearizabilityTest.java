package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.testing.History;
import io.grove.testing.LinearizabilityGraph;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Single-key operations of two processes on one file are linearizable: two child JVMs ({@link HistoryWorker}) of two
 * threads each put, remove and get the same 8 keys at once, recording each call's invocation and response on
 * {@link System#nanoTime}, which on Linux reads a clock that every process of the machine shares; the four threads'
 * records make one {@link History}, which {@link LinearizabilityGraph} checks as it checks the histories of threads
 * of one process (sound: a violation it reports is one; its tests show what it finds). Lincheck cannot run threads of
 * two JVMs, so this replaces it across processes.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CrossProcessLinearizabilityTest {
    static final int OPERATIONS = 60_000;

    @TempDir
    Path dir;

    /** What the JDK's {@code jcmd} tells of {@code process}'s threads, for the message of a failure. */
    static String threadDump(Process process) throws Exception {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process dump = new ProcessBuilder(jcmd.toString(), String.valueOf(process.pid()), "Thread.print")
                .redirectErrorStream(true).start();
        String text = new String(dump.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        dump.waitFor(30, TimeUnit.SECONDS);
        return text;
    }

    @Test
    void singleKeyOperationsOfTwoProcessesAreLinearizable() throws Exception {
        Path file = dir.resolve("history.grove");
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
            assertEquals(0, map.size()); // the history starts from an empty map
        }
        Process[] workers = new Process[2];
        Path[] histories = new Path[2];
        Path[] outputs = new Path[2];
        try {
            for (int p = 0; p < 2; p++) {
                histories[p] = dir.resolve("history-" + p);
                outputs[p] = dir.resolve("worker-" + p + ".out");
                workers[p] = ChildJvm.of(HistoryWorker.class, file.toString(), String.valueOf(p),
                        String.valueOf(OPERATIONS), histories[p].toString())
                        .redirectErrorStream(true).redirectOutput(outputs[p].toFile()).start();
            }
            for (int p = 0; p < 2; p++) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!Files.readString(outputs[p]).contains("ready") && workers[p].isAlive()
                        && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
            }
            for (Process worker : workers) {
                OutputStream go = worker.getOutputStream();
                go.write("go\n".getBytes(StandardCharsets.US_ASCII));
                go.flush();
            }
            for (int p = 0; p < 2; p++) {
                assertTrue(workers[p].waitFor(3, TimeUnit.MINUTES), "worker " + p + " did not end; its output: "
                        + Files.readString(outputs[p]) + "\nits threads: " + threadDump(workers[p]));
                assertEquals(0, workers[p].exitValue(), Files.readString(outputs[p]));
            }
        } finally {
            for (Process worker : workers) {
                if (worker != null) {
                    worker.destroyForcibly().waitFor();
                }
            }
        }
        History history = new History(2 * HistoryWorker.THREADS);
        long[] began = {Long.MAX_VALUE, Long.MAX_VALUE};
        long[] ended = new long[2];
        for (int p = 0; p < 2; p++) {
            try (DataInputStream in = new DataInputStream(Files.newInputStream(histories[p]))) {
                for (int t = 0; t < HistoryWorker.THREADS; t++) {
                    History.Recorder recorder = history.recorder(p * HistoryWorker.THREADS + t);
                    long operations = in.readLong();
                    for (long n = 0; n < operations; n++) {
                        long kind = in.readLong();
                        long key = in.readLong();
                        long value = in.readLong();
                        long read = in.readLong();
                        Long result = read == History.ABSENT ? null : read;
                        long invoked = in.readLong();
                        long responded = in.readLong();
                        began[p] = Math.min(began[p], invoked);
                        ended[p] = Math.max(ended[p], responded);
                        if (kind == HistoryWorker.PUT) {
                            recorder.put(invoked, responded, key, value, result);
                        } else if (kind == HistoryWorker.REMOVE) {
                            recorder.remove(invoked, responded, key, result);
                        } else {
                            recorder.get(invoked, responded, key, result);
                        }
                    }
                }
            }
        }
        long together = Math.min(ended[0], ended[1]) - Math.max(began[0], began[1]);
        assertTrue(together > 0, "the two processes did not run at once");
        LinearizabilityGraph.Verdict verdict = LinearizabilityGraph.check(history);
        verdict.assertNoViolation("operations of two processes on one file");
        System.out.println("two processes on one file: " + history.events() + " operations, run together for "
                + together / 1_000_000 + " of " + (ended[0] - began[0]) / 1_000_000 + " and "
                + (ended[1] - began[1]) / 1_000_000 + " ms; " + verdict.figures());
    }
}
