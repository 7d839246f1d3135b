package io.grove.internal.view;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Copies of bytes out of a segment into a heap array that take {@link System#arraycopy} when the segment is itself a
 * heap array (a key a scan copied to the heap, a probe key). {@link MemorySegment#copy} between two heap arrays (by
 * {@code Unsafe.copyMemory}) cost about 110-150 ns per element of a scan of 200,000 laid-out pairs, whose loads miss
 * the cache, and a few ns in cache; with {@code System.arraycopy} the map's key-set iteration over those pairs went
 * from 167-173 to 50-78 ns per element ({@code BENCHMARKS.md}, "Set scans laid out"). Why the first waits so was not
 * found (presumably for the thread's outstanding misses). Bounds are the caller's to check.
 */
public final class ByteCopy {
    private ByteCopy() {}

    /** Copies {@code [offset, offset + length)} of {@code source} to {@code target} from {@code targetIndex}. */
    public static void toArray(MemorySegment source, long offset, byte[] target, int targetIndex, int length) {
        if (!source.isNative() && source.heapBase().orElse(null) instanceof byte[] array) {
            System.arraycopy(array, Math.toIntExact(source.address() + offset), target, targetIndex, length);
        } else {
            MemorySegment.copy(source, ValueLayout.JAVA_BYTE, offset, target, targetIndex, length);
        }
    }
}
