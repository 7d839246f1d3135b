package io.grove.internal.sorted;

import io.grove.internal.view.SliceHandle;

/**
 * Where the handles of a zero-copy scan found their slices: an entry of a chunk ({@link SliceHandle#from}). The entry
 * vouches for the slice after a read, so that the read need not look at the slice's header
 * ({@link SliceHandle.Origin}); a stream's reused handles, read by one thread, also follow a slice found gone through
 * the rebalances that may have moved it ({@link Moves}).
 *
 * <p>Why the entry's word is enough: a key slice is deleted only after its chunk was replaced (Chunk I4), and a
 * value slice only after it left its entry (a compare-and-set of the entry by its writer, {@link EntryUpdates}, or by
 * the sweep after a snapshot, then its retirement; older versions are never in an entry) or after its chunk was
 * replaced (a rebalance that moved it, the map's close). So a slice whose entry still refers to it in a chunk not
 * replaced, both read after the slice's bytes, was live when they were read. A reference, which carries its slice's
 * incarnation, never comes back to an entry it left.
 */
enum EntryOrigin implements SliceHandle.Origin {
    KEY {
        @Override
        public boolean holds(Object place, int index, long ref) {
            return !((Chunk) place).isReplaced();
        }
    },
    VALUE {
        @Override
        public boolean holds(Object place, int index, long ref) {
            Chunk c = (Chunk) place;
            return c.valueRef(index) == ref && !c.isReplaced();
        }
    };

    @Override
    public boolean follow(SliceHandle handle, Object place, int index) {
        return Moves.follow(handle, (Chunk) place, index, this == KEY);
    }
}
