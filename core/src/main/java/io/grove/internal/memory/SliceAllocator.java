package io.grove.internal.memory;

/**
 * Allocates and frees slices (Nova's SOMAR API, Nova §2, less the accessors that {@link Pool} shares between
 * allocators). References follow {@link Reference}; headers follow {@link SliceHeader}.
 */
sealed interface SliceAllocator extends Blocks.TailSink permits NovaAllocator, GrowOnlyAllocator {

    /** A new private slice of {@code length} payload bytes, all zero; its header is written. */
    long allocate(int length);

    /** The granules, header included, that a new slice of {@code length} payload bytes takes: its capacity. */
    long sliceGranules(int length);

    /**
     * Makes the {@code granules} granules at {@code g}, fresh from the bump pointer (all zero), a new private slice of
     * {@code length} payload bytes, and returns its reference.
     */
    long publishFresh(long g, long granules, int length);

    /** Deletes a shared slice; {@code false} if it was already deleted or {@code ref} is stale. */
    boolean delete(long ref);

    /** Deletes a slice no other thread has seen. */
    void deletePrivate(long ref);

    /** Announces a write to {@code ref}'s slice and validates it: a token for {@link #endWrite}, or -1. */
    long beginWrite(long ref);

    void endWrite(long token);

    /** Deleted slices not yet reusable. */
    long releasedBytes();

    /** Slices ready for reuse. */
    long freeBytes();

    /** Live slices. */
    long liveSlices();
}
