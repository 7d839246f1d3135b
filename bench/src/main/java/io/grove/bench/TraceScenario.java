package io.grove.bench;

import java.util.Map;

/**
 * A scenario that replays a fixed trace on one thread instead of running a timed operation mix (e.g. a cache's hit
 * ratio on a Zipfian trace). The worker opens the contender, calls {@link #replay}, adds its memory figures and
 * prints the fields returned, which must include {@code opsPerSec} and {@code cpuShare}.
 */
public interface TraceScenario extends Scenario {

    /** Replays the trace on {@code subject} (opened empty) and returns the result fields. */
    Map<String, String> replay(Subject subject, WorkerConfig config);

    @Override
    default java.util.List<Integer> threadCounts(java.util.List<Integer> requested) {
        return java.util.List.of(1);
    }
}
