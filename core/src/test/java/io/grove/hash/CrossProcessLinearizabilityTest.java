package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Single-key operations of two processes on one file are linearizable: each process ({@link RegisterWorker}) writes
 * its own keys with increasing sequence numbers and reads the keys of both, recording when each call began and
 * returned on {@link System#nanoTime}, which on Linux reads a clock every process of the machine shares. Each key has
 * one writer, so it is a single-writer register, and such a register's history is linearizable exactly when (Lamport,
 * "On interprocess communication", atomic registers) every read returns the value of a write that began before the
 * read returned ({@link Violation#FUTURE}), no later write ended before the read began ({@link Violation#STALE}), and
 * no read that began after another read ended returns an older value ({@link Violation#INVERSION}). So the check is
 * exact and runs in {@code O(n log n)}: no search over orders as a general checker (or Lincheck, which cannot run
 * threads of two JVMs) needs. {@link #theCheckFindsEachKindOfViolation} shows it rejects each kind.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class CrossProcessLinearizabilityTest {
    static final int OPERATIONS = 200_000;

    @TempDir
    Path dir;

    enum Violation { FUTURE, STALE, INVERSION }

    /** A call: its key, the sequence number it wrote or read, and when it began and returned. */
    record Call(long key, long seq, long start, long end) {}

    @Test
    void singleKeyOperationsOfTwoProcessesAreLinearizable() throws Exception {
        Path file = dir.resolve("registers.grove");
        int keys = 2 * RegisterWorker.KEYS_EACH;
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
            for (long k = 0; k < keys; k++) {
                map.put(k, "0");
            }
        }
        Process[] workers = new Process[2];
        Path[] histories = new Path[2];
        Path[] outputs = new Path[2];
        try {
            for (int p = 0; p < 2; p++) {
                histories[p] = dir.resolve("history-" + p);
                outputs[p] = dir.resolve("worker-" + p + ".out");
                workers[p] = ChildJvm.of(RegisterWorker.class, file.toString(), String.valueOf(p),
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
                assertTrue(workers[p].waitFor(3, TimeUnit.MINUTES), "worker " + p + " did not end");
                assertEquals(0, workers[p].exitValue(), Files.readString(outputs[p]));
            }
        } finally {
            for (Process worker : workers) {
                if (worker != null) {
                    worker.destroyForcibly().waitFor();
                }
            }
        }
        List<Call> writes = new ArrayList<>();
        List<Call> reads = new ArrayList<>();
        long othersKeys = 0;
        long[] began = new long[2];
        long[] ended = new long[2];
        for (int p = 0; p < 2; p++) {
            try (DataInputStream in = new DataInputStream(Files.newInputStream(histories[p]))) {
                int first = writes.size();
                readCalls(in, writes);
                began[p] = writes.get(first).start();
                ended[p] = writes.getLast().end();
                first = reads.size();
                readCalls(in, reads);
                for (Call r : reads.subList(first, reads.size())) {
                    othersKeys += r.key() / RegisterWorker.KEYS_EACH != p ? 1 : 0;
                }
            }
        }
        long together = Math.min(ended[0], ended[1]) - Math.max(began[0], began[1]);
        assertTrue(together > 0, "the two processes' writes did not overlap in time");
        assertEquals(List.of(), check(writes, reads, keys));
        System.out.println("linearizable: " + writes.size() + " writes, " + reads.size() + " reads of two processes ("
                + othersKeys + " of the other process's keys); their writers ran together for " + together / 1_000_000
                + " of " + (ended[0] - began[0]) / 1_000_000 + " and " + (ended[1] - began[1]) / 1_000_000 + " ms");
    }

    @Test
    void theCheckFindsEachKindOfViolation() {
        List<Call> writes = List.of(new Call(0, 1, 10, 20), new Call(0, 2, 30, 40));
        assertEquals(List.of(), check(writes, List.of(new Call(0, 0, 0, 15), new Call(0, 1, 15, 35),
                new Call(0, 2, 35, 50)), 1));
        assertEquals(List.of("key 0: " + Violation.FUTURE + " read of 2 at [5, 25]"),
                check(writes, List.of(new Call(0, 2, 5, 25)), 1));
        assertEquals(List.of("key 0: " + Violation.STALE + " read of 0 at [25, 26]"),
                check(writes, List.of(new Call(0, 0, 25, 26)), 1));
        assertEquals(List.of("key 0: " + Violation.INVERSION + " read of 1 at [33, 34] after a read of 2"),
                check(writes, List.of(new Call(0, 2, 31, 32), new Call(0, 1, 33, 34)), 1));
    }

    /** Every violation in the history, one line each; empty if the history is linearizable. */
    static List<String> check(List<Call> writes, List<Call> reads, int keys) {
        List<String> violations = new ArrayList<>();
        for (long key = 0; key < keys; key++) {
            long k = key;
            Call[] byWrite = writes.stream().filter(w -> w.key() == k).sorted(Comparator.comparingLong(Call::seq))
                    .toArray(Call[]::new);
            Call[] byStart = reads.stream().filter(r -> r.key() == k).sorted(Comparator.comparingLong(Call::start))
                    .toArray(Call[]::new);
            for (Call r : byStart) {
                int s = (int) r.seq(); // write s is byWrite[s - 1]; 0 is the value before them
                if (s > byWrite.length || (s > 0 && byWrite[s - 1].start() >= r.end())) {
                    violations.add(describe(k, Violation.FUTURE, r));
                } else if (s < byWrite.length && byWrite[s].end() < r.start()) {
                    violations.add(describe(k, Violation.STALE, r));
                }
            }
            Call[] byEnd = byStart.clone();
            Arrays.sort(byEnd, Comparator.comparingLong(Call::end));
            long newest = -1;
            int ended = 0;
            for (Call r : byStart) {
                while (ended < byEnd.length && byEnd[ended].end() < r.start()) {
                    newest = Math.max(newest, byEnd[ended++].seq());
                }
                if (r.seq() < newest) {
                    violations.add(describe(k, Violation.INVERSION, r) + " after a read of " + newest);
                }
            }
        }
        return violations;
    }

    private static String describe(long key, Violation violation, Call read) {
        return "key " + key + ": " + violation + " read of " + read.seq() + " at [" + read.start() + ", " + read.end()
                + "]";
    }

    private static void readCalls(DataInputStream in, List<Call> calls) throws IOException {
        long n = in.readLong();
        for (long i = 0; i < n; i++) {
            calls.add(new Call(in.readLong(), in.readLong(), in.readLong(), in.readLong()));
        }
    }
}
