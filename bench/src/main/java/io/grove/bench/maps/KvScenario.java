package io.grove.bench.maps;

import io.grove.bench.MixScenario;
import io.grove.bench.Scenario;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A key-value workload: an operation mix of {@link KvFamily} over uniformly random ids in {@code [0, keys)}, with
 * keys of {@code keySize} bytes and values of {@code valueSize} bytes ({@link KvRecords}). Before the timed phase
 * the worker inserts a {@code prefillFraction} of the ids with {@code putIfAbsent} on one thread (the ingestion
 * stage of Oak's performance evaluation; MapHash §4.3.2 loads every key).
 *
 * @param quickKeys the key range under {@code --quick}, so that the smoke test stays short
 */
public record KvScenario(String name, String description, Map<String, Integer> mix, int keys, int quickKeys,
        int keySize, int valueSize, double prefillFraction, String baseline, List<Comparison> comparisons)
        implements Scenario {

    public KvScenario {
        Objects.requireNonNull(name);
        mix = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(mix));
        int total = mix.values().stream().mapToInt(Integer::intValue).sum();
        if (total != 100) {
            throw new IllegalArgumentException("scenario " + name + ": the mix sums to " + total + "%, not 100%");
        }
        if (keySize < 8 || valueSize < 16 || prefillFraction < 0 || prefillFraction > 1) {
            throw new IllegalArgumentException("scenario " + name + ": key size " + keySize + " (at least 8), value"
                    + " size " + valueSize + " (at least 16), prefill " + prefillFraction + " (0..1)");
        }
        comparisons = List.copyOf(comparisons);
    }

    /** See {@link MixScenario#mix(Object...)}. */
    public static Map<String, Integer> mix(Object... namesAndPercents) {
        return MixScenario.mix(namesAndPercents);
    }

    @Override
    public String family() {
        return KvFamily.NAME;
    }

    @Override
    public int keySize() {
        return keySize;
    }

    @Override
    public int quickKeys() {
        return quickKeys;
    }
}
