package io.grove.bench.slices;

import io.grove.MemoryPool;
import io.grove.Reclamation;
import io.grove.bench.Contender;
import io.grove.bench.Family;
import io.grove.bench.Placement;
import io.grove.bench.WorkerConfig;
import io.grove.internal.memory.Pool;

/** Grove's memory layer with one of its reclamation schemes, as a slice table. */
public final class PoolContender implements Contender<SliceTable> {
    /** Nova: deleted slices are reused once no writer holds them; stays within the budget. */
    public static final PoolContender NOVA = new PoolContender("nova", Reclamation.NOVA, Placement.OFF_HEAP,
            "Grove Pool, Nova reclamation (reuses deleted slices), off-heap limit = budget - small heap");
    /** Grow-only: never reuses memory, so its limit exceeds the budget by design. */
    public static final PoolContender GROW_ONLY = new PoolContender("grow-only", Reclamation.GROW_ONLY,
            Placement.OFF_HEAP_UNBOUNDED,
            "Grove Pool, grow-only (never reuses memory; off-heap limit --grow-only-limit, beyond the budget by"
                    + " design)");

    private final String name;
    private final Reclamation reclamation;
    private final Placement placement;
    private final String description;

    private PoolContender(String name, Reclamation reclamation, Placement placement, String description) {
        this.name = name;
        this.reclamation = reclamation;
        this.placement = placement;
        this.description = description;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public Family<SliceTable> family() {
        return SliceTableFamily.INSTANCE;
    }

    @Override
    public Placement placement() {
        return placement;
    }

    @Override
    public SliceTable open(WorkerConfig config) {
        Pool pool = (Pool) MemoryPool.builder()
                .memoryLimit(config.offHeapLimit())
                .reclamation(reclamation)
                .build();
        return new PoolSliceTable(pool, config.keys(), config.valueSize());
    }
}
