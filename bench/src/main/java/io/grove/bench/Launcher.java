package io.grove.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Starts one {@link Worker} JVM ({@link ChildJvm}: same {@code java} binary and class path as this JVM) with the
 * memory split the contender's {@link Placement} asks for, waits for it with a time limit, and parses its result
 * line.
 */
final class Launcher {
    /** Time a worker may take beyond warm-up and timed phase (JVM start, prefill, verification, GC). */
    private static final long SLACK_MILLIS = 180_000;

    private final Options options;

    Launcher(Options options) {
        this.options = options;
    }

    /** The heap and off-heap limit the contender's JVM gets: {@code {xmx, offHeapLimit}}. */
    long[] memorySplit(Contender<?> contender) {
        long budget = options.budgetFor(contender.name());
        return switch (contender.placement()) {
            case ON_HEAP -> new long[] {budget, 0};
            case OFF_HEAP -> new long[] {options.smallHeap, budget - options.smallHeap};
            case OFF_HEAP_UNBOUNDED -> new long[] {options.smallHeap, options.growOnlyLimit};
        };
    }

    RunRecord run(WorkerConfig config, Contender<?> contender, int repeat) {
        long[] split = memorySplit(contender);
        List<String> jvmOptions = new ArrayList<>(contender.jvmOptions());
        jvmOptions.addAll(options.jvmArgs);
        List<String> command = ChildJvm.command(split[0], jvmOptions, Worker.class, config.toArgs());

        double load = Machine.loadAverage();
        String startTime = java.time.ZonedDateTime.now().withNano(0)
                .format(java.time.format.DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        long start = System.nanoTime();
        String status;
        String error;
        Map<String, String> fields = Map.of();
        try {
            long limit = config.warmupMillis() + config.durationMillis() + SLACK_MILLIS;
            ChildJvm.Outcome outcome = ChildJvm.run(command, limit, options.verbose);
            status = outcome.status();
            fields = outcome.result();
            error = status.equals("timeout") ? "no result after " + limit / 1000 + " s; killed" : outcome.error();
            if (status.equals("ok") && fields.get("opsPerSec") == null) {
                status = "failed";
                error = "the worker printed no result line";
            }
            if (!status.equals("ok") && error.isEmpty()) {
                error = "exit status " + outcome.exitValue();
            }
            if (!status.equals("ok") && !options.verbose) {
                outcome.printTail(System.err, command);
            }
        } catch (IOException e) {
            status = "failed";
            error = "cannot start " + command.getFirst() + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            status = "failed";
            error = "interrupted";
        }
        double wall = (System.nanoTime() - start) / 1e9;
        return new RunRecord(config.scenario(), config.contender(), config.threads(), repeat, startTime, status, fields,
                error, split[0], split[1], wall, load);
    }

    /**
     * Waits until the machine's CPUs are busy less than {@code busyBelow} over one second, for at most
     * {@code maxMillis}; returns the milliseconds waited, or -1 if the machine never went idle enough.
     */
    static long waitIdle(long maxMillis, double busyBelow) throws InterruptedException {
        long start = System.nanoTime();
        while (true) {
            long[] a = Machine.cpuTicks();
            Thread.sleep(1_000);
            long[] b = Machine.cpuTicks();
            long waited = (System.nanoTime() - start) / 1_000_000;
            if (a == null || b == null || b[1] == a[1]
                    || (b[0] - a[0]) / (double) (b[1] - a[1]) < busyBelow) {
                return waited;
            }
            if (waited >= maxMillis) {
                return -1;
            }
        }
    }
}
