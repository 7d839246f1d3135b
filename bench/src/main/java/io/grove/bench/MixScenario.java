package io.grove.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** A scenario given by data: an operation mix over uniformly random keys. */
public record MixScenario(String name, String description, String family, Map<String, Integer> mix, int keys,
        int valueSize, String baseline, List<Comparison> comparisons) implements Scenario {

    public MixScenario {
        Objects.requireNonNull(name);
        mix = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(mix));
        int total = mix.values().stream().mapToInt(Integer::intValue).sum();
        if (total != 100) {
            throw new IllegalArgumentException("scenario " + name + ": the mix sums to " + total + "%, not 100%");
        }
        comparisons = List.copyOf(comparisons);
    }

    /** A mix from alternating names and percentages: {@code mix("read", 90, "update", 10)}. */
    public static Map<String, Integer> mix(Object... namesAndPercents) {
        Map<String, Integer> mix = new LinkedHashMap<>();
        for (int i = 0; i < namesAndPercents.length; i += 2) {
            mix.put((String) namesAndPercents[i], (Integer) namesAndPercents[i + 1]);
        }
        return mix;
    }
}
