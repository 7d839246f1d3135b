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

    /** The number of entries. */
    long size();

    /** Entries whose value does not belong to their key (with no writer running). */
    long verify();

    @Override
    default long entries() {
        return size();
    }
}
