package io.grove;

/**
 * What the open snapshots of a {@link GroveSortedMap} hold ({@link GroveSortedMap#snapshotFootprint()}): an
 * unclosed snapshot keeps every value it reads that the map has since replaced or removed, so a snapshot left open
 * for long pins memory, reported here.
 *
 * @param openSnapshots the snapshots open now
 * @param oldestAgeNanos how long the oldest open snapshot has been open, in nanoseconds; 0 if none is
 * @param versions the older versions the map keeps: values replaced or removed that a snapshot reads (a removal
 *     leaves a tombstone, counted here too), and those not yet freed after a snapshot's close
 * @param versionBytes the bytes of their slices in the pool (each with its 24-byte value header)
 * @param oldestPinnedBytes the bytes of the versions that only the oldest open snapshot reads (snapshots opened at
 *     the same instant count as one): what closing it frees
 */
public record SnapshotFootprint(
        int openSnapshots, long oldestAgeNanos, long versions, long versionBytes, long oldestPinnedBytes) {}
