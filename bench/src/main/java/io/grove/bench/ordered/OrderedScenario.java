package io.grove.bench.ordered;

import io.grove.bench.Scenario;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One of the Oak paper's Fig. 4 workloads on the ordered-map family: an operation mix over uniform keys of a range
 * of which half is ingested first, 100-byte keys and 1,000-byte values, baseline {@code cslm}.
 *
 * @param quickKeys the key range under {@code --quick}
 */
public record OrderedScenario(String name, String description, Map<String, Integer> mix, int keys, int quickKeys)
        implements Scenario {
    /** Ratios printed below the table besides each contender's ratio to {@code cslm}. */
    static final List<Comparison> COMPARISONS = List.of(new Comparison("grove-sorted", "cslm"),
            new Comparison("grove-sorted", "skiplist-offheap"), new Comparison("grove-sorted-lo", "cslm"));

    public OrderedScenario {
        mix = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(mix));
        if (mix.values().stream().mapToInt(Integer::intValue).sum() != 100) {
            throw new IllegalArgumentException("scenario " + name + ": the mix does not sum to 100%");
        }
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
