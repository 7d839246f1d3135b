package io.grove.bench.batches;

import io.grove.bench.Scenario;
import java.util.List;
import java.util.Map;

/**
 * A workload of the {@link BatchFamily}: an operation mix over {@code keys} ids, baseline {@code cslm}; with a
 * {@code firstThreadMix} of its own, the first worker thread runs that and the others {@code mix}, at 2 threads
 * whatever is asked (Jiffy's mixed run: one thread of long snapshot scans beside one of batches).
 */
public record BatchScenario(String name, String description, Map<String, Integer> mix,
        Map<String, Integer> firstThreadMix, int keys, int quickKeys) implements Scenario {
    private static final List<Comparison> COMPARISONS = List.of(new Comparison("grove-sorted", "locked"),
            new Comparison("grove-snapshots", "locked"));

    /** A workload whose threads all run {@code mix}. */
    public BatchScenario(String name, String description, Map<String, Integer> mix, int keys, int quickKeys) {
        this(name, description, mix, mix, keys, quickKeys);
    }

    @Override
    public Map<String, Integer> mixOf(int thread) {
        return thread == 0 ? firstThreadMix : mix;
    }

    @Override
    public String family() {
        return BatchFamily.NAME;
    }

    @Override
    public int keySize() {
        return BatchCodec.KEY_SIZE;
    }

    @Override
    public int valueSize() {
        return BatchCodec.VALUE_SIZE;
    }

    /** A batch of 100 takes tens of microseconds: look at the phase every 8 operations. */
    @Override
    public int batch() {
        return 8;
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
