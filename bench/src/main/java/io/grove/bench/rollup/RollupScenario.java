package io.grove.bench.rollup;

import io.grove.bench.Scenario;
import java.util.Map;

/**
 * A rollup workload: an operation mix of the {@link RollupFamily} over a stream of {@code keys} events. Queries read
 * tens of thousands of rows each, so a worker thread looks at the phase after every query.
 */
public record RollupScenario(String name, String description, Map<String, Integer> mix, int keys, int quickKeys)
        implements Scenario {

    @Override
    public String family() {
        return RollupFamily.NAME;
    }

    @Override
    public int keySize() {
        return GroveRollup.KEY_SIZE;
    }

    @Override
    public int valueSize() {
        return GroveRollup.VALUE_SIZE;
    }

    @Override
    public int batch() {
        return mix.containsKey("query") ? 1 : 64;
    }

    @Override
    public String baseline() {
        return "cslm";
    }
}
