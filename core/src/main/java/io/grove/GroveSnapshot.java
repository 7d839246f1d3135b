package io.grove;

import java.util.NavigableMap;

/**
 * A read-only view of a {@link GroveSortedMap} as it was at one instant, the moment {@link GroveSortedMap#snapshot()}
 * returned: {@code get}, {@code containsKey}, navigation, iteration, streams and every sub-map and key-set view
 * show exactly the entries present then, whatever changes the map since, and together they are one consistent
 * state (an atomic batch is in it completely or not at all). Reads never wait for writers of the map but while a
 * writer holds a value's lock (a few instructions; a {@code compute} function holds it while it runs: a snapshot
 * read of its key waits for it, and one from inside that very function throws "Recursive update") and while an
 * atomic batch stamps its values at its commit; snapshot iterators never throw
 * {@link java.util.ConcurrentModificationException}.
 *
 * <p>Opening a snapshot takes constant time, whatever the map's size. While it is open, the map keeps the values it
 * replaces or removes that the snapshot may read, as older versions, in its pool; they are freed once no open
 * snapshot reads them (by a sweep after each snapshot's close, or when a later write of the key finds them unread).
 * So close every snapshot, with try-with-resources; one that becomes unreachable without being closed is closed
 * by a {@link java.lang.ref.Cleaner}, some time after the next garbage collection (its views, which share its
 * state, must not outlive it). A map has room for 1,024 open snapshots; an open that finds them all taken asks for a
 * garbage collection ({@link System#gc()}, as the JDK's direct buffers do when direct memory runs out) and waits up
 * to half a second for dropped snapshots to be closed before it throws {@link IllegalStateException}.
 *
 * <p>Every method that would change the map throws {@link UnsupportedOperationException} (they are the optional
 * operations of {@link java.util.Map}, which its contract lets a read-only map refuse); every method throws
 * {@link IllegalStateException} once the snapshot or its map is closed. {@code size()} counts the entries
 * (linear time).
 */
public interface GroveSnapshot<K, V> extends NavigableMap<K, V>, AutoCloseable {
    /**
     * The zero-copy reads of the snapshot, ascending: handles on the keys and on the versions of the values the
     * snapshot sees, read where they live. A handle stays valid while the snapshot is open (the map neither writes
     * nor frees those bytes meanwhile; its reads never wait) and throws {@link IllegalStateException} once it is
     * closed. The scans' iterators refuse {@code remove} with {@link UnsupportedOperationException}.
     *
     * @throws IllegalStateException if the snapshot or its map is closed
     */
    ZeroCopySortedReads<K, V> zc();

    /** Closes the snapshot: the versions only it reads are freed. Idempotent. */
    @Override
    void close();
}
