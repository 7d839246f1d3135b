package io.grove.build;

import io.grove.MemoryFootprint;
import io.grove.MemoryPool;
import io.grove.Reclamation;
import io.grove.internal.memory.Pool;
import io.grove.internal.view.SegmentView;
import io.grove.serial.Serializer;
import io.grove.serial.Serializers;

/**
 * Run by {@link NoWarningsTest} in a JVM started with no flags: exercises the off-heap paths (blocks reserved
 * through an arena, slices allocated, written through a view, read back, deleted and reclaimed, pools closed)
 * under both reclamation modes, then asks for a pool on huge pages, which needs native access and must be refused
 * with an exception rather than a warning of the JDK, then prints {@link #DONE}. Any failure exits non-zero with a
 * stack trace.
 */
public final class NoWarningsMain {

    static final String DONE = "pools used and closed";

    private NoWarningsMain() {}

    public static void main(String[] args) {
        for (Reclamation reclamation : Reclamation.values()) {
            try (MemoryPool pool = MemoryPool.builder()
                    .blockSize(MemoryPool.Builder.MIN_BLOCK_SIZE)
                    .memoryLimit(4L << 20)
                    .reclamation(reclamation)
                    .build()) {
                exercise((Pool) pool);
            }
        }
        try (MemoryPool pool = MemoryPool.builder().hugePages(true).build()) {
            throw new AssertionError("a pool on huge pages was built without native access: " + pool);
        } catch (IllegalStateException refused) {
            if (!refused.getMessage().contains("--enable-native-access=ALL-UNNAMED")) {
                throw new AssertionError("refused without naming the flag", refused);
            }
        }
        System.out.println(DONE);
    }

    private static void exercise(Pool pool) {
        roundTrip(pool, Serializers.longs(), -42L);
        roundTrip(pool, Serializers.strings(), "grove \u00e9\u00e8 \uD83C\uDF33");
        for (int i = 0; i < 10_000; i++) {
            roundTrip(pool, Serializers.ints(), i);
        }
        pool.reclaimNow();
        MemoryFootprint footprint = pool.footprint();
        if (footprint.reservedBytes() <= 0) {
            throw new AssertionError("no memory reserved after allocating: " + footprint);
        }
    }

    private static <T> void roundTrip(Pool pool, Serializer<T> serializer, T value) {
        int size = serializer.size(value);
        long ref = pool.allocate(size);
        SegmentView view = new SegmentView();
        view.open(pool.segment(ref), pool.payloadOffset(ref), size, true);
        try {
            serializer.write(value, view);
        } finally {
            view.close();
        }
        view.open(pool.segment(ref), pool.payloadOffset(ref), pool.length(ref), false);
        T read;
        try {
            read = serializer.read(view);
        } finally {
            view.close();
        }
        pool.validate(ref);
        if (!value.equals(read)) {
            throw new AssertionError("wrote " + value + ", read back " + read);
        }
        if (!pool.delete(ref)) {
            throw new AssertionError("slice was already deleted: " + ref);
        }
    }
}
