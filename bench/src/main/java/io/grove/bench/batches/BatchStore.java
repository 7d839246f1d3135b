package io.grove.bench.batches;

import io.grove.bench.Subject;
import io.grove.bench.ThreadContext;

/** An ordered map under test in the batch family: the batch a thread built, applied, and single-key operations. */
interface BatchStore extends Subject {

    /** Applies the batch built in {@code t} ({@link BatchThread#build}): atomically, unless the contender cannot. */
    void apply(BatchThread t);

    /** Puts {@code t.value} at {@code t.key}. */
    void put(BatchThread t);

    /** Reads {@code t.key}'s value, checking it belongs to {@code id}; {@code false} if absent. */
    boolean get(long id, BatchThread t, ThreadContext c);

    /**
     * Reads the {@code count} entries from {@code t.key} on, checking each value belongs to its key: in a snapshot
     * (or what the contender offers instead: see its description).
     */
    void snapshotScan(BatchThread t, int count, ThreadContext c);

    /**
     * Reads the {@code count} entries from {@code t.key} on, checking each value belongs to its key, through the
     * map's own views: weakly consistent, no snapshot and no lock.
     */
    void scan(BatchThread t, int count, ThreadContext c);

    /**
     * Reads {@code t.key}'s value ({@code id}) in a snapshot opened and closed for it (or the contender's
     * stand-in).
     */
    void snapshotGet(long id, BatchThread t, ThreadContext c);

    /** The number of entries. */
    long size();

    /** Entries whose value does not belong to their key (with no writer running). */
    long verify();

    @Override
    default long entries() {
        return size();
    }
}
