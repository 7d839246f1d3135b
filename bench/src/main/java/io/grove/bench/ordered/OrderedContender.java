package io.grove.bench.ordered;

import io.grove.MemoryPool;
import io.grove.Reclamation;
import io.grove.bench.Contender;
import io.grove.bench.Family;
import io.grove.bench.Placement;
import io.grove.bench.Scenario;
import io.grove.bench.WorkerConfig;
import io.grove.internal.memory.Pool;
import java.util.List;
import java.util.function.Function;

/** The contenders of the ordered-map family: Grove's ordered map and the Oak paper's two skiplists. */
public final class OrderedContender implements Contender<OrderedKv> {
    /** Grove's ordered map, off-heap limit = budget - small heap. */
    public static final OrderedContender GROVE = new OrderedContender("grove-sorted", Placement.OFF_HEAP,
            "GroveSortedMap<byte[], byte[]> (Serializers.bytes()), zero-copy API (zc()); copy-get = Map.get;"
                    + " scans: zc() tailMap/headMap.descendingMap entrySet (set) or entryStream (stream);"
                    + " off-heap limit = budget - small heap",
            config -> new GroveSortedKv(GroveSortedKv.builder(config.offHeapLimit()).build()), false, false);
    /** The same map whose own pool asks for transparent huge pages ({@code hugePages()}). */
    public static final OrderedContender GROVE_HUGE_PAGES = new OrderedContender("grove-sorted-hp",
            Placement.OFF_HEAP, "grove-sorted with GroveSortedMap.Builder.hugePages() (transparent huge pages)",
            config -> new GroveSortedKv(GroveSortedKv.builder(config.offHeapLimit()).hugePages().build()), true,
            true);
    /** The same map laying out its pairs in key order for scans ({@code layOutForScans()}). */
    public static final OrderedContender GROVE_LAID_OUT = new OrderedContender("grove-sorted-lo",
            Placement.OFF_HEAP, "grove-sorted with GroveSortedMap.Builder.layOutForScans() (scans move pairs into"
                    + " key order)",
            config -> new GroveSortedKv(GroveSortedKv.builder(config.offHeapLimit()).layOutForScans().build()),
            false, true);
    /** The baseline, on heap. */
    public static final OrderedContender CSLM = new OrderedContender("cslm", Placement.ON_HEAP,
            "ConcurrentSkipListMap<ByteKey, byte[]> on heap (Oak paper's Skiplist-OnHeap); zc-get = copy-get = get;"
                    + " upsert = non-atomic in-place increment; stream = entrySet().stream() of the same view;"
                    + " -Xmx = budget",
            config -> new CslmKv(), false, false);
    /** The Oak paper's Skiplist-OffHeap over Grove's memory layer. */
    public static final OrderedContender OFF_HEAP_SKIPLIST = new OrderedContender("skiplist-offheap",
            Placement.OFF_HEAP,
            "ConcurrentSkipListMap over cells referencing key and value slices in Grove's Pool (Nova) (Oak paper's"
                    + " Skiplist-OffHeap); upsert = in-place increment under beginWrite, not atomic; copy-get copies"
                    + " the value to a byte[]; stream = entrySet().stream(); off-heap limit = budget - small heap",
            config -> new OffHeapSkiplistKv((Pool) MemoryPool.builder().memoryLimit(config.offHeapLimit())
                    .reclamation(Reclamation.NOVA).build()), false, false);

    private final String name;
    private final Placement placement;
    private final String description;
    private final Function<WorkerConfig, OrderedKv> open;
    /** Whether the contender calls the C library (huge pages): its JVM needs native access. */
    private final boolean nativeAccess;
    /** Whether the contender is a variant for scans, run in the scan scenarios (and zero-copy gets) only. */
    private final boolean scanVariant;

    private OrderedContender(String name, Placement placement, String description,
            Function<WorkerConfig, OrderedKv> open, boolean nativeAccess, boolean scanVariant) {
        this.name = name;
        this.placement = placement;
        this.description = description;
        this.open = open;
        this.nativeAccess = nativeAccess;
        this.scanVariant = scanVariant;
    }

    /** The scan variants run in the scan and zero-copy get scenarios only: they add few runs to the default. */
    @Override
    public String notApplicable(Scenario scenario) {
        return scanVariant && !scenario.name().contains("scan") && !scenario.name().equals("oak-zc-get")
                ? "the " + name + " variant runs in the scan and zc-get scenarios only" : null;
    }

    @Override
    public List<String> jvmOptions() {
        return nativeAccess ? List.of("--enable-native-access=ALL-UNNAMED") : List.of();
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
    public Family<OrderedKv> family() {
        return OrderedFamily.INSTANCE;
    }

    @Override
    public Placement placement() {
        return placement;
    }

    @Override
    public OrderedKv open(WorkerConfig config) {
        return open.apply(config);
    }
}
