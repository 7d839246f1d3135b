package io.grove.internal.hash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The off-heap record at the root of a hash map: the part of a bounded map's bound that no segment holds, and the
 * references of the segment records. The only place that computes offsets inside it.
 *
 * <pre>
 * byte offset 0                   8                   16                  16 + 8 * segments
 *            +-------------------+-------------------+--------------------------+
 *            | free entries      | free bytes        | segment references ...   |
 *            +-------------------+-------------------+--------------------------+
 * </pre>
 *
 * <ul>
 *   <li>free entries, free bytes: in a bounded map, the budget of resource {@link Budget#ENTRIES} and
 *       {@link Budget#BYTES} no segment holds ({@link Budget}); changed by CAS from any thread. 0 if unbounded.
 *   <li>segment references: one per segment, in order, written once when the map is built.
 * </ul>
 * All fields are in the platform's byte order.
 */
final class DirectoryLayout {
    private static final int FREE = 0;
    private static final int SEGMENTS = 16;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();

    private DirectoryLayout() {}

    static long sizeFor(int segments) {
        return SEGMENTS + (long) segments * Long.BYTES;
    }

    /** How many segments a directory of {@code length} bytes lists. */
    static int segmentsIn(long length) {
        return (int) Math.min(Integer.MAX_VALUE, (length - SEGMENTS) / Long.BYTES);
    }

    static void initialize(MemorySegment block, long directory, long freeEntries, long freeBytes) {
        LONG.set(block, directory + FREE, freeEntries);
        LONG.set(block, directory + FREE + 8, freeBytes);
    }

    static long segment(MemorySegment block, long directory, int s) {
        return (long) LONG.get(block, directory + SEGMENTS + (long) s * Long.BYTES);
    }

    static void setSegment(MemorySegment block, long directory, int s, long segmentRef) {
        LONG.set(block, directory + SEGMENTS + (long) s * Long.BYTES, segmentRef);
    }

    /** Where the directory's free budget of {@code resource} is in its block. */
    static long freeAt(long directory, int resource) {
        return directory + FREE + 8L * resource;
    }
}
