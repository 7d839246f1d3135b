package io.grove.internal.memory;

import java.lang.foreign.MemorySegment;

/**
 * Where blocks come from. Today: {@link ArenaBlockSource}, memory from a shared FFM arena. A later source maps
 * blocks from files; nothing above this interface depends on where a block lives, because references are offsets.
 */
interface BlockSource extends AutoCloseable {

    /** A new zero-filled, 16-byte aligned block of {@code bytes} bytes, or an exception if the OS refuses. */
    MemorySegment reserve(long bytes);

    /** Returns every block to the operating system; later accesses to them throw {@link IllegalStateException}. */
    @Override
    void close();
}
