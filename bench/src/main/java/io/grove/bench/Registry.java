package io.grove.bench;

import static io.grove.bench.MixScenario.mix;

import io.grove.bench.batches.BatchContender;
import io.grove.bench.batches.BatchFamily;
import io.grove.bench.batches.BatchScenario;
import io.grove.bench.maps.ChmKv;
import io.grove.bench.maps.ChronicleKv;
import io.grove.bench.maps.EvictionScenario;
import io.grove.bench.maps.GroveKv;
import io.grove.bench.maps.KvFamily;
import io.grove.bench.maps.KvScenario;
import io.grove.bench.maps.LmdbKv;
import io.grove.bench.maps.MapDbKv;
import io.grove.bench.maps.OhcKv;
import io.grove.bench.ordered.IngestScenario;
import io.grove.bench.ordered.OrderedContender;
import io.grove.bench.ordered.OrderedFamily;
import io.grove.bench.ordered.OrderedScenario;
import io.grove.bench.rollup.RollupContender;
import io.grove.bench.rollup.RollupFamily;
import io.grove.bench.rollup.RollupScenario;
import io.grove.bench.slices.HeapContender;
import io.grove.bench.slices.PoolContender;
import io.grove.bench.slices.SliceTableFamily;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every scenario and contender the runner knows. A new peer library or workload is one class plus one line here.
 */
public final class Registry {
    private Registry() {}

    /**
     * Slice table: 1,000,000 slots of 1,000-byte values, about 1 GB of raw data (the value size of Oak's
     * performance evaluation).
     */
    private static final int SLICE_KEYS = 1_000_000;
    private static final int SLICE_VALUE = 1_000;
    private static final List<Scenario.Comparison> SLICE_COMPARISONS =
            List.of(new Scenario.Comparison("nova", "grow-only"));

    /**
     * MapHash §4.3: 1,000,000 records of 256 bytes (8-byte key + 248-byte value), all loaded, table sized to the
     * record count (MapHash: 10M-100M records; scaled to this 2-core machine's run time).
     */
    private static final int MAPHASH_KEYS = 1_000_000;
    /**
     * The method of Oak's performance evaluation on the hash map: 100-byte keys, 1,000-byte values, a range of
     * 300,000 keys, half of them ingested (the size of the run recorded in BENCHMARKS.md; scaled to the default
     * run's time).
     */
    private static final int HASH_OAK_KEYS = 300_000;
    /** The eviction trace's id space: 300,000 ids, bound 30,000 (MapDB replays it at about 30,000 accesses/s). */
    private static final int EVICT_KEYS = 300_000;
    /** The key range of every key-value scenario under {@code --quick}. */
    private static final int KV_QUICK_KEYS = 100_000;
    private static final List<Scenario.Comparison> KV_COMPARISONS = List.of(
            new Scenario.Comparison("grove-hash", "chronicle"), new Scenario.Comparison("grove-hash", "chm"),
            new Scenario.Comparison("grove-hash", "ohc"), new Scenario.Comparison("grove-hash", "mapdb"));
    /** MapHash's scenario also compares the map in a file with the peers that keep theirs in files. */
    private static final List<Scenario.Comparison> MAPHASH_COMPARISONS = java.util.stream.Stream.concat(
            KV_COMPARISONS.stream(), java.util.stream.Stream.of(
                    new Scenario.Comparison("grove-hash-file", "chronicle-file"),
                    new Scenario.Comparison("grove-hash-file", "mapdb-file"),
                    new Scenario.Comparison("grove-hash-file", "lmdb"),
                    new Scenario.Comparison("grove-hash-file", "grove-hash"),
                    new Scenario.Comparison("grove-hash-file-inline", "chronicle-file"),
                    new Scenario.Comparison("grove-hash-file-inline", "grove-hash-file"),
                    new Scenario.Comparison("grove-hash-hp", "chronicle"),
                    new Scenario.Comparison("grove-hash-hp", "grove-hash"),
                    new Scenario.Comparison("grove-hash-inline", "chronicle"),
                    new Scenario.Comparison("grove-hash-inline", "chm"),
                    new Scenario.Comparison("grove-hash-inline", "grove-hash"),
                    new Scenario.Comparison("grove-hash-inline-hp", "chronicle"),
                    new Scenario.Comparison("grove-hash-inline-hp", "chm"),
                    new Scenario.Comparison("grove-hash-inline-hp", "grove-hash-inline"))).toList();

    /**
     * Ordered map (Oak, §5, Fig. 4): a range of 400,000 keys of 100 bytes, half of them ingested
     * with putIfAbsent before the run (200,000 pairs, about 220 MB of raw data; the Oak paper: 10M pairs on 32 cores,
     * scaled to this 2-core machine's run time; the size recorded in BENCHMARKS.md); --quick: 100,000 keys.
     */
    private static final int ORDERED_KEYS = 400_000;
    private static final int ORDERED_QUICK_KEYS = 100_000;

    /**
     * Rollup (Druid's incremental index): a day of 2,000,000 events, 5 dimensions, rolled up into hourly rows;
     * --quick: 200,000 events.
     */
    private static final int ROLLUP_EVENTS = 2_000_000;
    private static final int ROLLUP_QUICK_EVENTS = 200_000;

    /**
     * Batches (Jiffy §4.3 scaled): 1M entries over 2,000,000 ids of 16-byte keys, 100-byte values; --quick: 200,000
     * ids.
     */
    private static final int BATCH_KEYS = 2_000_000;
    private static final int BATCH_QUICK_KEYS = 200_000;

    private static Scenario batches(String name, String description, Object... mix) {
        return new BatchScenario(name, "batches: " + description, mix(mix), BATCH_KEYS, BATCH_QUICK_KEYS);
    }

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
            new KvScenario("maphash-80-15-5", "MapHash 4.3: 80% get (copy), 15% put, 5% remove; 8-byte keys"
                    + " (distinct scrambled 64-bit words, all loaded), 248-byte values; uniform ids",
                    KvScenario.mix("get", 80, "put", 15, "remove", 5), MAPHASH_KEYS, KV_QUICK_KEYS, 8, 248, 1.0,
                    "chm", MAPHASH_COMPARISONS),
            new KvScenario("hash-oak-put", "hash map, Oak's method: 100% put, 100-byte keys, 1,000-byte values; 50% of"
                    + " the range ingested with putIfAbsent; uniform ids", KvScenario.mix("put", 100), HASH_OAK_KEYS,
                    KV_QUICK_KEYS, 100, 1_000, 0.5, "chm", KV_COMPARISONS),
            new KvScenario("hash-oak-zc-get", "hash map, Oak's method: 100% zero-copy get, 100-byte keys, 1,000-byte"
                    + " values; 50% of the range ingested (so half the gets miss); uniform ids",
                    KvScenario.mix("zc-get", 100), HASH_OAK_KEYS, KV_QUICK_KEYS, 100, 1_000, 0.5, "chm",
                    KV_COMPARISONS),
            new EvictionScenario("evict-zipf", "cache on a Zipf(0.99) trace of 4 x keys accesses over the ids, bound"
                    + " 10% of them; get, put on miss; hit ratio vs exact LRU on the same trace", EVICT_KEYS,
                    KV_QUICK_KEYS, 8, 248, 4),
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
            new OrderedScenario("oak-scan-asc-stream-w", "ordered map: mixed run at 2 threads, one thread scanning"
                    + " ascending streams of 10,000 pairs, the other putting random keys; ops = scans + puts (the"
                    + " CSV counts each: op.scan-asc-stream, op.put)", mix("scan-asc-stream", 100), mix("put", 100),
                    ORDERED_KEYS, ORDERED_QUICK_KEYS),
            new OrderedScenario("oak-scan-desc-stream-w", "ordered map: mixed run at 2 threads, one thread scanning"
                    + " descending streams of 10,000 pairs, the other putting random keys; ops = scans + puts (the"
                    + " CSV counts each: op.scan-desc-stream, op.put)", mix("scan-desc-stream", 100),
                    mix("put", 100), ORDERED_KEYS, ORDERED_QUICK_KEYS),
            new IngestScenario("oak-ingest", "ordered map: pairs ingested (putIfAbsent, 1 thread) until the budget"
                    + " is exhausted (Fig. 3a); ops/s = ingestion rate", 1 << 26, ORDERED_QUICK_KEYS),
            new RollupScenario("rollup-ingest", "rollup (Druid's incremental index): events aggregated into"
                    + " their existing (hour, 5 dimensions) rows (count, sum, max), in place or by merge; the first"
                    + " pass that creates the rows is the prefill; ops = events", mix("ingest", 100), ROLLUP_EVENTS,
                    ROLLUP_QUICK_EVENTS),
            new RollupScenario("rollup-query", "rollup: time-range queries, the rows of 4 of the 24 hours grouped"
                    + " by one dimension (count, sum, max per value); ops = queries", mix("query", 100),
                    ROLLUP_EVENTS, ROLLUP_QUICK_EVENTS),
            batches("batch-10", "atomic batches of 10 random puts/removes; ops = batches", "batch-10", 100),
            batches("batch-100", "atomic batches of 100 random puts/removes; ops = batches", "batch-100", 100),
            batches("batch-100-seq", "atomic batches of 100 consecutive puts/removes; ops = batches",
                    "batch-100-seq", 100),
            batches("batch-100-zipf", "atomic batches of 100 Zipfian (0.99, scrambled) puts/removes; ops = batches",
                    "batch-100-zipf", 100),
            batches("batch-10-get", "50% batches of 10 random puts/removes, 50% gets", "batch-10", 50, "get", 50),
            batches("batch-put-get", "single-key operations: 50% put, 50% get", "put", 50, "get", 50),
            batches("snap-scan", "scans of 100 entries from a random id, in a snapshot; ops = scans", "snap-scan",
                    100),
            batches("put-snap-scan", "50% single-key puts, 50% snapshot scans of 100 entries", "put", 50,
                    "snap-scan", 50),
            batches("batch-100-snap-scan", "50% atomic batches of 100 random puts/removes, 50% snapshot scans of"
                    + " 100 entries", "batch-100", 50, "snap-scan", 50),
            batches("batch-100-zipf-snap-scan", "50% atomic batches of 100 Zipfian puts/removes, 50% snapshot scans"
                    + " of 100 entries", "batch-100-zipf", 50, "snap-scan", 50),
            batches("snap-get", "a snapshot opened for one get, then closed; ops = snapshots", "snap-get", 100),
            batches("scan", "scans of 100 entries from a random id through the map's own (weakly consistent) views,"
                    + " no snapshot, no lock; ops = scans", "scan", 100),
            new BatchScenario("batch-100-long-snap-scan", "batches: mixed run at 2 threads, one thread scanning"
                    + " 10,000 entries in a snapshot after snapshot, the other applying batches of 100 random"
                    + " puts/removes; ops = scans + batches (the CSV counts each: op.long-snap-scan, op.batch-100)",
                    mix("batch-100", 100), mix("long-snap-scan", 100), BATCH_KEYS, BATCH_QUICK_KEYS),
            new BatchScenario("snap-get-100k", "batches: as snap-get, with 100,000 entries over 200,000 ids"
                    + " (acquisition time against the map's size)", mix("snap-get", 100), BATCH_KEYS / 10,
                    BATCH_QUICK_KEYS),
            new BatchScenario("snap-get-4m", "batches: as snap-get, with 4,000,000 entries over 8,000,000 ids",
                    mix("snap-get", 100), 4 * BATCH_KEYS, BATCH_QUICK_KEYS));

    /** Scenario groups for {@code --scenario}: a group name stands for its scenarios (a family each, and all). */
    public static final Map<String, List<String>> GROUPS = groups();

    /** What {@code ./grove bench} runs without {@code --scenario}: the comparison against peers, every scenario. */
    public static final List<String> DEFAULT_GROUP = List.of("all");

    public static final List<Contender<?>> CONTENDERS = List.of(
            PoolContender.NOVA,
            PoolContender.GROW_ONLY,
            HeapContender.INSTANCE,
            GroveKv.INSTANCE,
            GroveKv.IN_FILE,
            GroveKv.HUGE_PAGES,
            GroveKv.INLINE,
            GroveKv.INLINE_HUGE_PAGES,
            GroveKv.INLINE_IN_FILE,
            ChmKv.INSTANCE,
            ChronicleKv.INSTANCE,
            OhcKv.INSTANCE,
            MapDbKv.INSTANCE,
            ChronicleKv.PERSISTED,
            MapDbKv.IN_FILE,
            LmdbKv.INSTANCE,
            OrderedContender.GROVE,
            OrderedContender.GROVE_HUGE_PAGES,
            OrderedContender.GROVE_LAID_OUT,
            OrderedContender.CSLM,
            OrderedContender.OFF_HEAP_SKIPLIST,
            RollupContender.GROVE,
            RollupContender.GROVE_LAID_OUT,
            RollupContender.CSLM,
            BatchContender.GROVE,
            BatchContender.GROVE_SNAPSHOTS,
            BatchContender.CSLM,
            BatchContender.LOCKED);

    /**
     * The groups: {@code slices}, {@code maps} (the hash map), {@code ordered}, {@code rollup}, each a family, and
     * {@code all}.
     */
    private static Map<String, List<String>> groups() {
        Map<String, List<String>> groups = new LinkedHashMap<>();
        groups.put("slices", family(SliceTableFamily.NAME));
        groups.put("maps", family(KvFamily.NAME));
        groups.put("ordered", family(OrderedFamily.NAME));
        groups.put("rollup", family(RollupFamily.NAME));
        groups.put("batches", family(BatchFamily.NAME));
        groups.put("all", SCENARIOS.stream().map(Scenario::name).toList());
        return java.util.Collections.unmodifiableMap(groups);
    }

    private static List<String> family(String family) {
        return SCENARIOS.stream().filter(s -> s.family().equals(family)).map(Scenario::name).toList();
    }

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

    static {
        for (Contender<?> c : CONTENDERS) {
            for (Contender<?> other : contenders(c.name())) {
                if (other.placement() != c.placement()) {
                    throw new ExceptionInInitializerError("contender " + c.name() + " is " + c.placement() + " in "
                            + c.family().name() + " but " + other.placement() + " in " + other.family().name()
                            + ": contenders of one name must place their memory alike (reports read it by name)");
                }
            }
        }
    }

    /**
     * The contenders named {@code name}: one per family it serves (e.g. {@code cslm} in the ordered and the rollup
     * family), all placing their memory alike (checked when this class loads).
     */
    public static List<Contender<?>> contenders(String name) {
        List<Contender<?>> named = CONTENDERS.stream().filter(c -> c.name().equals(name)).toList();
        if (named.isEmpty()) {
            throw new IllegalArgumentException("no contender '" + name + "'; known: "
                    + CONTENDERS.stream().map(Contender::name).distinct().toList());
        }
        return named;
    }

    /** The contender named {@code name} in {@code family}. */
    public static Contender<?> contender(String name, String family) {
        return contenders(name).stream().filter(c -> c.family().name().equals(family)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("contender '" + name + "' serves no scenario of"
                        + " family " + family));
    }
}
