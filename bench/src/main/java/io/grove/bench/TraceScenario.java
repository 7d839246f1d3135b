package io.grove.bench;

import java.util.Map;

/**
 * A scenario that runs its own single-threaded procedure on the subject instead of the timed operation mix (e.g.
 * ingesting pairs until the memory budget is exhausted). The worker opens the contender, calls {@link #replay}
 * and prints the fields it returns, which must include {@code opsPerSec} and {@code cpuShare}.
 */
public interface TraceScenario extends Scenario {

    /** Runs the procedure on {@code subject} (opened empty) and returns the result fields. */
    Map<String, String> replay(Subject subject, WorkerConfig config);

    @Override
    default java.util.List<Integer> threadCounts(java.util.List<Integer> requested) {
        return java.util.List.of(1);
    }
}
