package io.grove.bench;

import static io.grove.bench.MixScenario.mix;

import io.grove.bench.maps.ChmKv;
import io.grove.bench.maps.ChronicleKv;
import io.grove.bench.maps.EvictionScenario;
import io.grove.bench.maps.GroveKv;
import io.grove.bench.maps.KvScenario;
import io.grove.bench.maps.MapDbKv;
import io.grove.bench.maps.OhcKv;
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
     * MapHash §4.3: 1,000,000 records of 256 bytes (8-byte key + 248-byte value), all loaded, table sized to the
     * record count (paper: 10M-100M records; scaled to this 2-core machine's run time).
     */
    private static final int MAPHASH_KEYS = 1_000_000;
    /** Paper 001: 100-byte keys, 1,000-byte values, a range of 1,000,000 keys, half of them ingested. */
    private static final int OAK_KEYS = 1_000_000;
    private static final List<Scenario.Comparison> KV_COMPARISONS = List.of(
            new Scenario.Comparison("grove-hash", "chronicle"), new Scenario.Comparison("grove-hash", "chm"),
            new Scenario.Comparison("grove-hash", "ohc"), new Scenario.Comparison("grove-hash", "mapdb"));

    /** Scenario groups for {@code --scenario}: a group name stands for its scenarios. */
    public static final java.util.Map<String, List<String>> GROUPS = java.util.Map.of(
            "slices", List.of("read-only", "read-heavy", "write-heavy"),
            "maps", List.of("maphash-80-15-5", "oak-put", "oak-zc-get", "evict-zipf"));

    /** What {@code ./grove bench} runs without {@code --scenario} (and without {@code --quick}, which runs all). */
    public static final List<String> DEFAULT_GROUP = GROUPS.get("slices");

    public static final List<Scenario> SCENARIOS = List.of(
            new MixScenario("read-only", "memory layer: 100% optimistic reads of 4 words",
                    SliceTableFamily.NAME, mix("read", 100), SLICE_KEYS, SLICE_VALUE, "heap", SLICE_COMPARISONS),
            new MixScenario("read-heavy", "memory layer: 90% read, 5% in-place update, 5% replace",
                    SliceTableFamily.NAME, mix("read", 90, "update", 5, "replace", 5), SLICE_KEYS, SLICE_VALUE,
                    "heap", SLICE_COMPARISONS),
            new MixScenario("write-heavy", "memory layer: 50% read, 50% replace",
                    SliceTableFamily.NAME, mix("read", 50, "replace", 50), SLICE_KEYS, SLICE_VALUE, "heap",
                    SLICE_COMPARISONS),
            new KvScenario("maphash-80-15-5", "MapHash 4.3: 80% get (copy), 15% put, 5% remove; 8-byte keys"
                    + " (distinct scrambled 64-bit words, all loaded), 248-byte values; uniform ids",
                    KvScenario.mix("get", 80, "put", 15, "remove", 5), MAPHASH_KEYS, 100_000, 8, 248, 1.0, "chm",
                    KV_COMPARISONS),
            new KvScenario("oak-put", "paper 001: 100% put, 100-byte keys, 1,000-byte values; 50% of the range"
                    + " ingested with putIfAbsent; uniform ids", KvScenario.mix("put", 100), OAK_KEYS, 100_000, 100,
                    1_000, 0.5, "chm", KV_COMPARISONS),
            new KvScenario("oak-zc-get", "paper 001: 100% zero-copy get, 100-byte keys, 1,000-byte values; 50% of"
                    + " the range ingested (so half the gets miss); uniform ids", KvScenario.mix("zc-get", 100),
                    OAK_KEYS, 100_000, 100, 1_000, 0.5, "chm", KV_COMPARISONS),
            new EvictionScenario("evict-zipf", "cache on a Zipf(0.99) trace of 4 x keys accesses over 1,000,000"
                    + " ids, bound 10% of them; get, put on miss; hit ratio vs exact LRU on the same trace",
                    1_000_000, 100_000, 8, 248, 4));

    public static final List<Contender<?>> CONTENDERS = List.of(
            PoolContender.NOVA,
            PoolContender.GROW_ONLY,
            HeapContender.INSTANCE,
            GroveKv.INSTANCE,
            ChmKv.INSTANCE,
            ChronicleKv.INSTANCE,
            OhcKv.INSTANCE,
            MapDbKv.INSTANCE);

    public static Scenario scenario(String name) {
        for (Scenario s : SCENARIOS) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("no scenario '" + name + "'; known: "
                + SCENARIOS.stream().map(Scenario::name).toList());
    }

    /** The scenarios {@code names} stand for: scenario names or {@link #GROUPS} names. */
    public static List<Scenario> scenarios(List<String> names) {
        List<Scenario> out = new java.util.ArrayList<>();
        for (String n : names) {
            for (String m : GROUPS.getOrDefault(n, List.of(n))) {
                Scenario s = scenario(m);
                if (!out.contains(s)) {
                    out.add(s);
                }
            }
        }
        return out;
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
