package io.grove.internal.view;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * {@link ByteCopy#toArray} copies the same bytes whatever backs the segment: a byte array (by
 * {@code System.arraycopy}, at the slice's own offset), a read-only or non-byte heap segment, native memory.
 */
class ByteCopyTest {
    private static final byte[] BYTES = new byte[64];

    static {
        for (int i = 0; i < BYTES.length; i++) {
            BYTES[i] = (byte) (i * 7 + 1);
        }
    }

    /** What {@code toArray(segment, 3, target, 2, 10)} must leave in a target of 16 zeros, the segment at 5. */
    private static byte[] expected() {
        byte[] target = new byte[16];
        System.arraycopy(BYTES, 8, target, 2, 10);
        return target;
    }

    private static byte[] copied(MemorySegment fromFive) {
        byte[] target = new byte[16];
        ByteCopy.toArray(fromFive, 3, target, 2, 10);
        return target;
    }

    @Test
    void aSliceOfAByteArray() {
        assertArrayEquals(expected(), copied(MemorySegment.ofArray(BYTES.clone()).asSlice(5)));
    }

    @Test
    void aReadOnlySliceOfAByteArray() {
        assertArrayEquals(expected(), copied(MemorySegment.ofArray(BYTES.clone()).asSlice(5).asReadOnly()));
    }

    @Test
    void aHeapSegmentOverLongs() {
        long[] longs = new long[8];
        MemorySegment segment = MemorySegment.ofArray(longs);
        segment.copyFrom(MemorySegment.ofArray(BYTES));
        assertArrayEquals(expected(), copied(segment.asSlice(5)));
    }

    @Test
    void nativeMemory() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(BYTES.length);
            segment.copyFrom(MemorySegment.ofArray(BYTES));
            assertArrayEquals(expected(), copied(segment.asSlice(5)));
        }
    }

    @Test
    void theWholeArray() {
        byte[] target = new byte[BYTES.length];
        ByteCopy.toArray(MemorySegment.ofArray(BYTES), 0, target, 0, BYTES.length);
        assertArrayEquals(BYTES, target);
    }
}
