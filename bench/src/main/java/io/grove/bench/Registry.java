package io.grove.bench;

import static io.grove.bench.MixScenario.mix;

import io.grove.bench.slices.HeapContender;
import io.grove.bench.slices.PoolContender;
import io.grove.bench.slices.SliceTableFamily;
import java.util.List;

/**
 * Every scenario and contender the runner knows. A new peer library or workload is one class plus one line here.
 */
public final class Registry {
    private Registry() {}

    /** Slice table: 1,000,000 slots of 1,000-byte values, about 1 GB of raw data (paper 001's value size). */
    private static final int SLICE_KEYS = 1_000_000;
    private static final int SLICE_VALUE = 1_000;
    private static final List<Scenario.Comparison> SLICE_COMPARISONS =
            List.of(new Scenario.Comparison("nova", "grow-only"));

    public static final List<Scenario> SCENARIOS = List.of(
            new MixScenario("read-only", "memory layer: 100% optimistic reads of 4 words",
                    SliceTableFamily.NAME, mix("read", 100), SLICE_KEYS, SLICE_VALUE, "heap", SLICE_COMPARISONS),
            new MixScenario("read-heavy", "memory layer: 90% read, 5% in-place update, 5% replace",
                    SliceTableFamily.NAME, mix("read", 90, "update", 5, "replace", 5), SLICE_KEYS, SLICE_VALUE,
                    "heap", SLICE_COMPARISONS),
            new MixScenario("write-heavy", "memory layer: 50% read, 50% replace",
                    SliceTableFamily.NAME, mix("read", 50, "replace", 50), SLICE_KEYS, SLICE_VALUE, "heap",
                    SLICE_COMPARISONS));

    public static final List<Contender<?>> CONTENDERS = List.of(
            PoolContender.NOVA,
            PoolContender.GROW_ONLY,
            HeapContender.INSTANCE);

    public static Scenario scenario(String name) {
        for (Scenario s : SCENARIOS) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("no scenario '" + name + "'; known: "
                + SCENARIOS.stream().map(Scenario::name).toList());
    }

    public static Contender<?> contender(String name) {
        for (Contender<?> c : CONTENDERS) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException("no contender '" + name + "'; known: "
                + CONTENDERS.stream().map(Contender::name).toList());
    }
}
