package io.grove.bench.batches;

import io.grove.bench.Scenario;
import java.util.List;
import java.util.Map;

/** A workload of the {@link BatchFamily}: an operation mix over {@code keys} ids, baseline {@code cslm}. */
public record BatchScenario(String name, String description, Map<String, Integer> mix, int keys, int quickKeys)
        implements Scenario {
    private static final List<Comparison> COMPARISONS = List.of(new Comparison("grove-sorted", "locked"),
            new Comparison("grove-snapshots", "locked"));

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
