package io.grove.bench.rollup;

import io.grove.bench.Contender;
import io.grove.bench.Family;
import io.grove.bench.Placement;
import io.grove.bench.WorkerConfig;
import java.util.function.Function;

/**
 * The contenders of the rollup family: Grove's ordered map, as built by default and laying its rows out in key order
 * for its queries, and {@code ConcurrentSkipListMap} with {@code merge}.
 *
 * @param opener builds the empty index inside the worker JVM
 */
public record RollupContender(String name, Placement placement, String description,
        Function<WorkerConfig, RollupIndex> opener) implements Contender<RollupIndex> {
    public static final RollupContender GROVE = new RollupContender("grove-sorted", Placement.OFF_HEAP,
            "GroveSortedMap<byte[], byte[]>: 28-byte keys (time, 5 dimensions), 24-byte values (count, sum, max)"
                    + " aggregated in place by zc().putIfAbsentComputeIfPresent; queries stream zc().subMap;"
                    + " off-heap limit = budget - small heap",
            config -> new GroveRollup(config.offHeapLimit(), false));
    public static final RollupContender GROVE_LAID_OUT = new RollupContender("grove-sorted-lo", Placement.OFF_HEAP,
            "grove-sorted with GroveSortedMap.Builder.layOutForScans() (queries move the rows they read twice into"
                    + " key order)",
            config -> new GroveRollup(config.offHeapLimit(), true));
    public static final RollupContender CSLM = new RollupContender("cslm", Placement.ON_HEAP,
            "ConcurrentSkipListMap<Row, Aggregate> on heap, merge(new Row, new Aggregate, combine) per event;"
                    + " queries iterate subMap; -Xmx = budget",
            config -> new CslmRollup());

    @Override
    public Family<RollupIndex> family() {
        return RollupFamily.INSTANCE;
    }

    @Override
    public RollupIndex open(WorkerConfig config) {
        return opener.apply(config);
    }
}
