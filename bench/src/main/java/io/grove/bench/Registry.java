package io.grove.bench;

import static io.grove.bench.MixScenario.mix;

import io.grove.bench.ordered.IngestScenario;
import io.grove.bench.ordered.OrderedContender;
import io.grove.bench.ordered.OrderedScenario;
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

    /**
     * Ordered map (issue 3, paper 000 §5 Fig. 4): a range of 1,000,000 keys of 100 bytes, half of them ingested
     * with putIfAbsent before the run (500,000 pairs, about 550 MB of raw data; paper: 10M pairs on 32 cores,
     * scaled to this 2-core machine's run time); --quick: 100,000 keys.
     */
    private static final int ORDERED_KEYS = 1_000_000;
    private static final int ORDERED_QUICK_KEYS = 100_000;

    private static Scenario ordered(String name, String description, Object... mix) {
        return new OrderedScenario(name, "ordered map: " + description, mix(mix), ORDERED_KEYS, ORDERED_QUICK_KEYS);
    }

    public static final List<Scenario> SCENARIOS = List.of(
            new MixScenario("read-only", "memory layer: 100% optimistic reads of 4 words",
                    SliceTableFamily.NAME, mix("read", 100), SLICE_KEYS, SLICE_VALUE, "heap", SLICE_COMPARISONS),
            new MixScenario("read-heavy", "memory layer: 90% read, 5% in-place update, 5% replace",
                    SliceTableFamily.NAME, mix("read", 90, "update", 5, "replace", 5), SLICE_KEYS, SLICE_VALUE,
                    "heap", SLICE_COMPARISONS),
            new MixScenario("write-heavy", "memory layer: 50% read, 50% replace",
                    SliceTableFamily.NAME, mix("read", 50, "replace", 50), SLICE_KEYS, SLICE_VALUE, "heap",
                    SLICE_COMPARISONS),
            ordered("oak-put", "100% put (Fig. 4a)", "put", 100),
            ordered("oak-upsert", "100% putIfAbsentComputeIfPresent, 8-byte in-place increment (Fig. 4b)",
                    "upsert", 100),
            ordered("oak-zc-get", "100% zero-copy get, 3 words read (Fig. 4c)", "zc-get", 100),
            ordered("oak-get-copy", "100% get copying the value to the heap (Fig. 4c, Oak-Copy)", "get-copy", 100),
            ordered("oak-95-5", "95% zero-copy get, 5% put (Fig. 4d)", "zc-get", 95, "put", 5),
            ordered("oak-scan-asc-set", "ascending scans of 10,000 pairs, set API; ops = scans (Fig. 4e)",
                    "scan-asc-set", 100),
            ordered("oak-scan-asc-stream", "ascending scans of 10,000 pairs, stream API; ops = scans (Fig. 4e)",
                    "scan-asc-stream", 100),
            ordered("oak-scan-desc-set", "descending scans of 10,000 pairs, set API; ops = scans (Fig. 4f)",
                    "scan-desc-set", 100),
            ordered("oak-scan-desc-stream", "descending scans of 10,000 pairs, stream API; ops = scans (Fig. 4f)",
                    "scan-desc-stream", 100),
            new IngestScenario("oak-ingest", "ordered map: pairs ingested (putIfAbsent, 1 thread) until the budget"
                    + " is exhausted (Fig. 3a); ops/s = ingestion rate", 1 << 26, ORDERED_QUICK_KEYS));

    public static final List<Contender<?>> CONTENDERS = List.of(
            PoolContender.NOVA,
            PoolContender.GROW_ONLY,
            HeapContender.INSTANCE,
            OrderedContender.GROVE,
            OrderedContender.CSLM,
            OrderedContender.OFF_HEAP_SKIPLIST);

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
