package io.grove.internal.memory;

import java.lang.foreign.MemorySegment;

/**
 * Where blocks come from. Today: {@link ArenaBlockSource}, memory from a shared FFM arena. A later source maps
 * blocks from files; nothing above this interface depends on where a block lives, because references are offsets.
 */
interface BlockSource extends AutoCloseable {

    /**
     * A new zero-filled, 16-byte aligned region of {@code bytes} bytes (one block, or several reserved together),
     * or an exception if the OS refuses.
     */
    MemorySegment reserve(long bytes);

    /**
     * The size from which a reservation is sure to go back to the operating system when {@link #close()} frees it;
     * smaller ones may be kept by the allocator underneath for reuse within the process. {@link Blocks} reserves
     * in groups of at least this size once a pool has reserved this much.
     */
    long returnedFrom();

    /**
     * The whole region this source carves its blocks from, in order, if it exists before any reservation (a mapped
     * file's block area), so that every block can be read before this process reserves it (another process may
     * have); {@code null} if each reservation makes its memory.
     */
    default MemorySegment region() {
        return null;
    }

    /** Returns every block to the operating system; later accesses to them throw {@link IllegalStateException}. */
    @Override
    void close();
}
