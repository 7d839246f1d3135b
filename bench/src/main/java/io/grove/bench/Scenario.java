package io.grove.bench;

import java.util.List;
import java.util.Map;

/**
 * A workload: which family it runs on, the operation mix, the data set, and which contender the ratios are
 * taken against. Register an instance in {@link Registry#SCENARIOS}; most scenarios are a {@link MixScenario}, a
 * scenario that needs more (scans, Zipfian keys) can be a class of its own.
 */
public interface Scenario {

    String name();

    String description();

    /** The {@link Family#name()} whose contenders run this scenario. */
    String family();

    /** Percent of operations per {@link Family#operations()} name, summing to 100, in a stable order. */
    Map<String, Integer> mix();

    /**
     * The mix of worker thread {@code thread} (numbered from 0): {@link #mix()}, unless the scenario gives its threads
     * roles (one thread scanning beside writers, say).
     */
    default Map<String, Integer> mixOf(int thread) {
        return mix();
    }

    /** Keys (slots, entries) in the data set. */
    int keys();

    /** Bytes per value. */
    int valueSize();

    /** Bytes per key, for families with keys of their own (8 where a key is just an index). */
    default int keySize() {
        return 8;
    }

    /** The number of keys under {@code --quick} (unless {@code --keys} is given), so the smoke test stays short. */
    default int quickKeys() {
        return keys();
    }

    /**
     * The thread counts this scenario runs, given those asked for: those, unless its first thread has a mix of its own
     * ({@link #mixOf}), which is a mixed run of 2 threads (one beside the other), or it runs on one (a
     * {@link TraceScenario}).
     */
    default List<Integer> threadCounts(List<Integer> requested) {
        return mixOf(0).equals(mix()) ? requested : List.of(2);
    }

    /**
     * Runs per cell when {@code --repeats} is not given, given the default; fewer for a long procedure whose result
     * does not vary from run to run (an explicit {@code --repeats} always wins).
     */
    default int defaultRepeats(int requested) {
        return requested;
    }

    /**
     * Operations a worker thread runs between two looks at the phase (warm-up, timed, stop); 1 for operations as
     * long as a scan of thousands of entries, so that a thread notices the timed phase on time.
     */
    default int batch() {
        return 64;
    }

    /** The contender every contender's median is divided by in the table; measured in the same run. */
    String baseline();

    /** Further pairs whose ratio the table prints, e.g. {@code nova / grow-only}. */
    default List<Comparison> comparisons() {
        return List.of();
    }

    /** The ratio {@code numerator / denominator} of two contenders' medians. */
    record Comparison(String numerator, String denominator) {
        @Override
        public String toString() {
            return numerator + " / " + denominator;
        }
    }
}
