package io.grove.bench.ordered;

import io.grove.bench.Scenario;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One of the Oak paper's Fig. 4 workloads on the ordered-map family: an operation mix over uniform keys of a range
 * of which half is ingested first, 100-byte keys and 1,000-byte values, baseline {@code cslm}. With a
 * {@code firstThreadMix} of its own, the first worker thread runs that and the others {@code mix}, at 2 threads
 * whatever is asked (scans beside one writer).
 *
 * @param quickKeys the key range under {@code --quick}
 */
public record OrderedScenario(String name, String description, Map<String, Integer> mix,
        Map<String, Integer> firstThreadMix, int keys, int quickKeys) implements Scenario {
    /** Ratios printed below the table besides each contender's ratio to {@code cslm}. */
    static final List<Comparison> COMPARISONS = List.of(new Comparison("grove-sorted", "cslm"),
            new Comparison("grove-sorted", "skiplist-offheap"), new Comparison("grove-sorted-lo", "cslm"));

    public OrderedScenario {
        mix = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(mix));
        firstThreadMix = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(firstThreadMix));
        for (Map<String, Integer> m : List.of(mix, firstThreadMix)) {
            if (m.values().stream().mapToInt(Integer::intValue).sum() != 100) {
                throw new IllegalArgumentException("scenario " + name + ": a mix does not sum to 100%");
            }
        }
    }

    /** A workload whose threads all run {@code mix}. */
    public OrderedScenario(String name, String description, Map<String, Integer> mix, int keys, int quickKeys) {
        this(name, description, mix, mix, keys, quickKeys);
    }

    @Override
    public Map<String, Integer> mixOf(int thread) {
        return thread == 0 ? firstThreadMix : mix;
    }

    /** Scans take milliseconds each: look at the phase after every one. */
    @Override
    public int batch() {
        return mix.keySet().stream().anyMatch(op -> op.startsWith("scan")) ? 1 : 64;
    }

    @Override
    public String family() {
        return OrderedFamily.NAME;
    }

    @Override
    public int valueSize() {
        return OrderedCodec.VALUE_SIZE;
    }

    @Override
    public String baseline() {
        return "cslm";
    }

    @Override
    public List<Comparison> comparisons() {
        return COMPARISONS;
    }
}
