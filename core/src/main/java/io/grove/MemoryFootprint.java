package io.grove;

/**
 * Off-heap memory figures of a {@link MemoryPool}, each read in constant time. All are in bytes except
 * {@code liveSlices}. A slice is one key or value with its header. Figures are read without stopping writers,
 * so under concurrent updates they are each exact at some moment but not necessarily at the same moment.
 *
 * @param reservedBytes memory taken from the operating system (whole blocks)
 * @param allocatedBytes part of the reserved memory ever handed out as slices (headers included)
 * @param liveBytes slices in use now, headers included
 * @param headerBytes the headers of the slices in use now
 * @param releasedBytes slices removed but not yet reusable, because a thread may still be writing them
 * @param freeBytes slices ready for reuse
 * @param liveSlices the number of slices in use now
 */
public record MemoryFootprint(
        long reservedBytes,
        long allocatedBytes,
        long liveBytes,
        long headerBytes,
        long releasedBytes,
        long freeBytes,
        long liveSlices) {}
