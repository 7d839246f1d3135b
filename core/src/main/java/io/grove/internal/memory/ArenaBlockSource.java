package io.grove.internal.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Blocks from one shared {@link Arena}. Closing the arena frees every block at once; the JDK makes any access
 * racing with or following the close fail with {@link IllegalStateException} instead of touching freed memory.
 */
final class ArenaBlockSource implements BlockSource {
    private final Arena arena = Arena.ofShared();

    @Override
    public MemorySegment reserve(long bytes) {
        return arena.allocate(bytes, SliceHeader.GRANULE);
    }

    @Override
    public void close() {
        arena.close();
    }
}
