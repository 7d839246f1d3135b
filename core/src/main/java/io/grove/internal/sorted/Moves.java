package io.grove.internal.sorted;

import io.grove.internal.view.SliceHandle;
import java.util.ConcurrentModificationException;

/**
 * Where a rebalance put the entries of a chunk it replaced, in a map that lays out its pairs for scans
 * ({@link Rebalancer#scanned}): for each old entry with a value, its position among the entries the new chunks were
 * built with, and the key and value references they were built with (new slices for the pairs a layout moved,
 * the old ones otherwise). The replaced chunk keeps it for the reused handles of zero-copy streams pointed from it,
 * which {@link #follow} their bytes through the rebalances since they were pointed ({@link EntryOrigin}).
 *
 * <p>Only streams' handles follow moves; they are short-lived (valid until the stream's next element), so the chain
 * of replaced chunks they keep reachable is short. Long-lived handles ({@code zc().get}, set iterators) mark their
 * chunk instead ({@link Chunk#handOut}), and no rebalance moves pairs of a marked range.
 */
final class Moves {
    private final Chunk[] fresh;
    /** The position in the build arrays of each new chunk's first entry. */
    private final int[] starts;
    /** For each entry of the old chunk, its position in the build arrays below, or -1 if it had no value. */
    private final int[] positions;
    private final long[] keyRefs;
    private final long[] valueRefs;

    Moves(Chunk[] fresh, int[] positions, long[] keyRefs, long[] valueRefs) {
        this.fresh = fresh;
        this.starts = new int[fresh.length];
        for (int i = 1; i < fresh.length; i++) {
            starts[i] = starts[i - 1] + fresh[i - 1].sortedCount;
        }
        this.positions = positions;
        this.keyRefs = keyRefs;
        this.valueRefs = valueRefs;
    }

    /**
     * Points {@code handle}, pointed at the key (or value) of entry {@code e} of chunk {@code c} and found gone, at
     * the slice the rebalances since moved that key (or value) to; {@code false} if it was not moved but removed or
     * replaced. Each step reads a replaced chunk, whose entries no longer change: the handle's slice must still be
     * the entry's when the chunk was frozen, and then it is wherever that chunk's rebalance put it, until a writer
     * replaces it in the new chunk or another rebalance moves it again. A key moved if its entry was moved with a
     * value (keys never change); a value moved if no writer replaced or removed it before or after.
     */
    static boolean follow(SliceHandle handle, Chunk c, int e, boolean key) {
        long ref = handle.reference();
        while (true) {
            Moves moves = c.moves();
            if (moves == null || (key ? c.keyRef(e) : c.valueRef(e)) != ref || moves.positions[e] < 0) {
                return false; // not replaced (or retired by the close), or the slice had left the entry before
            }
            int position = moves.positions[e];
            long to = key ? moves.keyRefs[position] : moves.valueRefs[position];
            Chunk next = moves.chunkAt(position);
            int entry = moves.entryAt(position);
            if (to != ref) {
                try {
                    handle.pointAtMoved(to, next, entry);
                    return true;
                } catch (ConcurrentModificationException goneToo) {
                    // replaced or removed since, or moved once more: the next chunk tells
                }
            }
            c = next;
            e = entry;
            ref = to;
        }
    }

    /**
     * The key slice of entry {@code e} of chunk {@code c} now, through the rebalances since (which may have moved
     * it); 0 if a rebalance dropped the entry (it had no value). Not validated: a rebalance may move it meanwhile.
     */
    static long keyNow(Chunk c, int e) {
        long ref = c.keyRef(e);
        for (Moves moves = c.moves(); moves != null; moves = c.moves()) {
            int position = moves.positions[e];
            if (position < 0) {
                return 0;
            }
            ref = moves.keyRefs[position];
            c = moves.chunkAt(position);
            e = moves.entryAt(position);
        }
        return ref;
    }

    /** The new chunk holding the entry at {@code position} of the build arrays. */
    private Chunk chunkAt(int position) {
        return fresh[chunkIndexAt(position)];
    }

    /** The index, in {@link #chunkAt}, of the entry at {@code position} of the build arrays. */
    private int entryAt(int position) {
        return position - starts[chunkIndexAt(position)];
    }

    /** Which new chunk holds the entry at {@code position} (a rebalance builds a few). */
    private int chunkIndexAt(int position) {
        int i = fresh.length - 1;
        while (starts[i] > position) {
            i--;
        }
        return i;
    }
}
