package io.grove.bench;

/**
 * One contender's data structure inside a worker JVM: what a {@link Family} runs operations on. Each family
 * defines its own sub-interface with the operations it needs (a slice table's read/update/replace, later a map's
 * get/put/remove/scan); a contender implements that sub-interface.
 */
public interface Subject extends AutoCloseable {

    /** Off-heap figures of this subject now; {@link OffHeap#NONE} for a contender that lives on the Java heap. */
    default OffHeap offHeap() {
        return OffHeap.NONE;
    }

    /** The number of entries now, or -1 for a subject that does not count them (used for memory per entry). */
    default long entries() {
        return -1;
    }

    /** Frees everything the subject holds (off-heap memory goes back to the operating system). */
    @Override
    void close();

    /**
     * Off-heap memory in bytes: {@code reserved} taken from the operating system, {@code live} in use by live
     * entries (headers included), {@code released} deleted but not yet reusable, {@code free} ready for reuse.
     * A figure a contender cannot tell is -1.
     */
    record OffHeap(long reserved, long live, long released, long free) {
        public static final OffHeap NONE = new OffHeap(0, 0, 0, 0);

        /** The figures of a Grove map's or pool's footprint. */
        public static OffHeap of(io.grove.MemoryFootprint f) {
            return new OffHeap(f.reservedBytes(), f.liveBytes(), f.releasedBytes(), f.freeBytes());
        }
    }
}
