package io.grove.internal.sorted;

/**
 * What other threads see of one attempt of an atomic batch ({@link BatchUpdates}): its id, which the value headers
 * it claims carry, its status, and, once it committed, which value replaces each value it claimed.
 *
 * <p>The status goes from {@link #PENDING} to {@link #COMMITTED} (one release store: the linearization point of the
 * whole batch) or to {@link #ABORTED} (the attempt gives its claims back and the batch starts over with a new attempt).
 * In a map that takes snapshots, the commit passes through {@link #COMMITTING} while the batch reads its commit time
 * (the time of all its values, {@link Versions}) and stamps its values; every reader waits until it is
 * {@code COMMITTED}, when {@link #time} is set (writers wait for the claim's end anyway). A plain reader may not take a
 * committing batch for pending: a snapshot whose time is at or after the commit time includes the batch, so a read that
 * starts after that snapshot was opened must see it too, though the status may still be {@code COMMITTING} then (a
 * history checked by {@code SortedMapHistoryStressTest} had such a cycle). The replacements are recorded before the
 * commit, in an open-addressed table keyed by the claimed value's reference (never 0), and never change after it, so a
 * thread that reads {@code COMMITTED} (acquire) finds them complete.
 */
final class Batch {
    static final int PENDING = 0;
    static final int COMMITTED = 1;
    static final int ABORTED = 2;
    static final int COMMITTING = 3;

    final long id;
    private volatile int status = PENDING;
    /** The commit time, set before the status becomes {@link #COMMITTED} (a map that takes snapshots). */
    private long time;
    /** Claimed value references (0: free place) and, at the same index, the value replacing each (0: none). */
    private final long[] claimed;
    private final long[] replacements;

    Batch(long id, int capacity) {
        this.id = id;
        int places = Integer.highestOneBit(Math.max(capacity, 1) * 2 - 1) * 2; // a power of two, at most half full
        this.claimed = new long[places];
        this.replacements = new long[places];
    }

    int status() {
        return status;
    }

    /** Records, before the commit, that the batch claimed value {@code ref} and replaces it by {@code next}. */
    void add(long ref, long next) {
        int at = placeOf(ref);
        claimed[at] = ref;
        replacements[at] = next;
    }

    /** Announces the commit to snapshot readers, before the commit time is read. */
    void beginCommit() {
        status = COMMITTING;
    }

    /**
     * The batch takes effect: every value it claimed is replaced by its replacement from now on, written at
     * {@code time} for snapshots.
     */
    void commit(long time) {
        this.time = time;
        status = COMMITTED;
    }

    long time() {
        return time;
    }

    void abort() {
        status = ABORTED;
    }

    /** The value that replaces claimed value {@code ref} in its entry now that the batch committed (0: none). */
    long replacementOf(long ref) {
        int at = placeOf(ref);
        if (claimed[at] != ref) {
            throw new IllegalStateException("value " + ref + " is not claimed by batch " + id);
        }
        return replacements[at];
    }

    /** The place of {@code ref} in the table, or the free place where it goes (linear probing). */
    private int placeOf(long ref) {
        int mask = claimed.length - 1;
        int at = (int) ((ref * 0x9E3779B97F4A7C15L) >>> 32) & mask;
        while (claimed[at] != 0 && claimed[at] != ref) {
            at = (at + 1) & mask;
        }
        return at;
    }
}
