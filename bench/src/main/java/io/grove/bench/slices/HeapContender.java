package io.grove.bench.slices;

import io.grove.bench.Contender;
import io.grove.bench.Family;
import io.grove.bench.Placement;
import io.grove.bench.WorkerConfig;

/** The on-heap baseline of the slice table: {@code byte[]} values collected by the garbage collector. */
public final class HeapContender implements Contender<SliceTable> {
    public static final HeapContender INSTANCE = new HeapContender();

    private HeapContender() {}

    @Override
    public String name() {
        return "heap";
    }

    @Override
    public String description() {
        return "on-heap baseline: AtomicReferenceArray<byte[]>, replace allocates a new byte[], -Xmx = budget";
    }

    @Override
    public Family<SliceTable> family() {
        return SliceTableFamily.INSTANCE;
    }

    @Override
    public Placement placement() {
        return Placement.ON_HEAP;
    }

    @Override
    public SliceTable open(WorkerConfig config) {
        return new HeapSliceTable(config.keys(), config.valueSize());
    }
}
