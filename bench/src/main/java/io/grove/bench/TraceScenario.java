package io.grove.bench;

import java.util.Map;

/**
 * A scenario that runs its own single-threaded procedure on the subject instead of the timed operation mix: it
 * replays a fixed trace (e.g. a cache's hit ratio on a Zipfian trace) or runs a procedure to its end (e.g.
 * ingesting pairs until the memory budget is exhausted). The worker opens the contender, calls {@link #replay},
 * adds the subject's memory figures if {@link #measuresMemoryAfterReplay()}, and prints the fields returned, which
 * must include {@code opsPerSec} and {@code cpuShare}.
 */
public interface TraceScenario extends Scenario {

    /** Replays the trace or runs the procedure on {@code subject} (opened empty) and returns the result fields. */
    Map<String, String> replay(Subject subject, WorkerConfig config);

    /**
     * Whether the worker adds the subject's memory figures (entries, heap, resident set and off-heap bytes per
     * entry) after {@link #replay}; {@code false} for a procedure that may leave the subject closed, e.g. a heap
     * map dropped after an {@link OutOfMemoryError}.
     */
    default boolean measuresMemoryAfterReplay() {
        return true;
    }

    @Override
    default java.util.List<Integer> threadCounts(java.util.List<Integer> requested) {
        return java.util.List.of(1);
    }
}
