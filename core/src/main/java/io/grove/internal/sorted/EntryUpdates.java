package io.grove.internal.sorted;

import io.grove.internal.memory.Pool;
import io.grove.internal.sync.CallRegistry;
import io.grove.internal.view.SegmentView;
import io.grove.internal.view.SliceResizer;
import io.grove.view.ResizableView;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What an {@link Update} does to the entry of its key, once {@link ChunkMap#update} has found (or inserted) it and
 * is published in its chunk: give an absent key its value, or decide under the present value's lock whether to
 * keep, replace or remove it, or change its bytes in place.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Notation as in {@link ChunkMap}: {@code c} the chunk, {@code e} the entry, {@code old} the value reference
 * the entry held when read, {@code locked} the header under which this thread holds its lock, {@code fresh} the
 * private slice of the update's given value (0 if none).
 *
 * <p>An absent key (value reference 0) gets its value by a CAS from 0: the linearization point of an insertion;
 * a lost CAS means another update gave it a value first, and the entry is read again. A present value is locked
 * first ({@link Values#lock}; -1: it left the entry, read it again); the update then decides, and either unlocks
 * (no change), or CASes the entry to the new value or to 0 and retires the old value: the linearization point,
 * since no other thread can change the entry while this one holds the lock.
 *
 * <p>{@code compute} and {@code computeIfAbsent} on an absent key install a locked placeholder first
 * ({@link ValueHeader#ABSENT}), so their function runs exactly once and no other update of the key can slip in;
 * readers treat the placeholder as no value, so the key stays absent until the function's result replaces it.
 * Every user function runs while its key's value (or placeholder) is locked and its chunk published, and is
 * recorded in the map's {@link CallRegistry} meanwhile, with both, so that a nested call that would wait for
 * them throws instead.
 *
 * <p>Atomic batches ({@link BatchUpdates}) claim values instead of locking them. {@link Values#lock} does not
 * wait for a claim: a pending batch's makes {@link #apply} return {@link #WAIT_FOR_BATCH} ({@link ChunkMap#update}
 * unpublishes, pauses and runs the update again: waiting published could hold up a rebalance the batch waits
 * for); a committed batch's is installed first ({@link #install}: the batch's value replaces the claimed one, as
 * the batch itself would do), then the entry is read again. A placeholder nobody holds (a batch that gave up its
 * claims leaves one) is locked and treated as an absent key, which the update takes out of the entry.
 *
 * <p>Live counts ({@link Chunk#live}): a rebalance counts every entry that holds a value reference as live, and a
 * batch's placeholders (claimed, or left unlocked) can be in entries when a rebalance runs, so they count as live
 * from when they enter an entry until they leave it ({@link #install}, the absent path); {@code compute}'s own
 * placeholder never lives through a rebalance (the rebalance drains the compute first) and does not count. So
 * {@code size()} counts the keys a batch inserts from its claims on, and a batch's removal of an absent key
 * briefly: {@code size()} is exact only when no update runs.
 *
 * <p>An update that leaves an entry without a value (a removal, a placeholder whose function returned null)
 * asks whether the chunk should be compacted ({@link Rebalancer#shouldCompact}); {@link ChunkMap#update} does it
 * after unpublishing.
 */
final class EntryUpdates<K, V> {
    /** Returned by the absent path when its CAS lost: read the entry again. */
    private static final Object AGAIN = new Object();
    /** Returned by {@link #apply} when a pending batch claims the value: unpublish, wait, and run the update again. */
    static final Object WAIT_FOR_BATCH = new Object();
    /** A decision to leave the present value as it is. */
    private static final Object KEEP = new Object();

    private final Pool pool;
    private final Values<V> values;
    private final Rebalancer rebalancer;
    private final CallRegistry calls;

    EntryUpdates(Pool pool, Values<V> values, Rebalancer rebalancer, CallRegistry calls) {
        this.pool = pool;
        this.values = values;
        this.rebalancer = rebalancer;
        this.calls = calls;
    }

    /** What an update did besides its result, read by {@link ChunkMap#update} after it. */
    static final class Outcome {
        /** The given value's slice went into the entry: it is not to be deleted. */
        boolean freshUsed;
        /** The update left an entry without a value and the chunk should be compacted. */
        boolean compact;

        void reset() {
            freshUsed = false;
            compact = false;
        }
    }

    /** Runs {@code op} on entry {@code e} of {@code c}, where the caller is published; returns its result. */
    Object apply(Scratch s, Chunk c, int e, Update op, K key, V value, V expected, Object function, long fresh) {
        while (true) {
            long old = c.valueRef(e);
            if (old == 0) {
                Object result = onAbsent(s, c, e, op, key, value, function, fresh, 0, 0);
                if (result != AGAIN) {
                    return result;
                }
                continue;
            }
            long locked = values.lock(old);
            if (locked == Values.WAIT) {
                return WAIT_FOR_BATCH;
            }
            if (locked == Values.CLAIMED_COMMITTED) {
                long next = values.replacementOf(old);
                if (next != -1) {
                    s.outcome.compact |= install(c, e, old, next);
                }
                continue;
            }
            if (locked == -1) {
                continue; // the value left the entry: read it again
            }
            if (ValueHeader.isPlaceholder(locked)) { // one a batch left when it gave up its claim: take it over
                return onAbsent(s, c, e, op, key, value, function, fresh, old, locked);
            }
            return onPresent(s, c, e, op, old, locked, key, value, expected, function, fresh);
        }
    }

    /**
     * Installs in entry {@code e} of {@code c}, where the caller is published, the value {@code next} (0: none) a
     * committed batch gives it in place of value {@code old}, which the batch claimed, unless another thread
     * installed it first; then retires {@code old}. Returns whether the chunk should then be compacted.
     */
    boolean install(Chunk c, int e, long old, long next) {
        Versions versions = values.versions;
        long oldHeader = values.header(old);
        boolean oldTombstone = versions != null && versions.isTombstone(old, oldHeader);
        boolean nextTombstone = versions != null && next != 0 && ValueHeader.isPlaceholder(values.header(next));
        // (the batch chose at its commit whether a snapshot reads the claimed value, then next's previous is it, and
        // dealt with the versions behind it: BatchUpdates#commit)
        boolean kept = versions != null && next != 0 && versions.previous(next) == old;
        if (!c.casValue(e, old, next)) {
            return false;
        }
        values.retireClaimed(old, oldHeader, kept);
        if (next != 0 && versions != null && versions.previous(next) != 0) {
            versions.note(c, e);
        }
        if (nextTombstone != oldTombstone) {
            c.addTombstones(nextTombstone ? 1 : -1);
        }
        int live = (next == 0 || nextTombstone ? 0 : 1) - (oldTombstone ? 0 : 1);
        if (live != 0) {
            c.addLive(live); // (a batch's placeholder counts as live: see the class notes)
        }
        return live < 0 && rebalancer.shouldCompact(c);
    }

    /**
     * Replaces value {@code old} of entry {@code e}, which this thread holds locked as {@code locked}, by
     * {@code next} (0: none), and retires {@code old}; in a map that takes snapshots, stamps {@code next} and keeps
     * {@code old} as its previous version if an open snapshot may read it, and a removal then leaves a tombstone.
     * Returns what the entry holds now. May throw before changing anything ({@link GroveOutOfMemoryException} for
     * a tombstone): the caller still holds the lock then.
     */
    private long replace(Scratch s, Chunk c, int e, long old, long locked, long next) {
        Versions versions = values.versions;
        if (versions == null) {
            c.casValue(e, old, next);
            values.retire(old, locked);
            return next;
        }
        versions.settle(old); // (an insert's value may still be pending: its time must come before ours)
        boolean noted = versions.previous(old) != 0; // (then its entry is noted already: VersionedEntries)
        values.markStamping(old, locked); // (plain readers wait from here on: see Versions)
        long time = SnapshotRegistry.now();
        boolean history = versions.olderSnapshotOpen(s, time) && versions.hasHistory(old, locked);
        if (next == 0 && history) {
            next = values.placeholder(ValueHeader.UNLOCKED_PLACEHOLDER); // a tombstone
        }
        boolean oldStays = false;
        if (next != 0) {
            versions.setVersion(next, time);
            versions.setPrevious(next, history ? old : 0);
            oldStays = history && versions.prune(next, true);
            if (ValueHeader.isPlaceholder(values.header(next)) && versions.previous(next) == 0) {
                pool.deletePrivate(next); // a tombstone that hides nothing any snapshot reads
                next = 0;
            }
        }
        long older = history ? 0 : versions.previous(old); // (history: what is behind old is next's now)
        c.casValue(e, old, next);
        if (oldStays) {
            values.supersede(old, locked);
        } else {
            values.retire(old, locked);
            versions.free(older);
        }
        if (next != 0 && versions.previous(next) != 0 && !noted) {
            versions.note(c, e);
        }
        return next;
    }

    /** Whether value {@code ref} (header {@code header}) is a tombstone, which no live count includes. */
    private boolean isTombstone(long ref, long header) {
        return values.versions != null && values.versions.isTombstone(ref, header);
    }

    /**
     * The update of a key without a value: the entry holds none ({@code held} 0) or a placeholder a batch left,
     * which this thread holds locked as {@code heldLocked} and takes out of the entry in every case.
     */
    private Object onAbsent(Scratch s, Chunk c, int e, Update op, K key, V value, Object function, long fresh,
            long held, long heldLocked) {
        switch (op.ifAbsent) {
            case INSERT -> {
                if (held == 0) {
                    if (!c.casValue(e, 0, fresh)) {
                        return AGAIN; // another update gave the key a value first
                    }
                    if (values.versions != null) {
                        values.versions.settle(fresh); // (it went in pending: see Versions)
                    }
                    c.addLive(1);
                } else {
                    boolean tombstone = isTombstone(held, heldLocked);
                    replace(s, c, e, held, heldLocked, fresh);
                    if (tombstone) {
                        c.addTombstones(-1);
                        c.addLive(1);
                    }
                }
                s.outcome.freshUsed = true;
                return op.result(false, null, value, true);
            }
            case FUNCTION -> {
                if (held != 0) {
                    return computeAbsent(s, c, e, op, held, heldLocked, !isTombstone(held, heldLocked), key,
                            function);
                }
                long placeholder = values.placeholder(ValueHeader.LOCKED_PLACEHOLDER);
                if (!c.casValue(e, 0, placeholder)) {
                    pool.deletePrivate(placeholder);
                    return AGAIN;
                }
                return computeAbsent(s, c, e, op, placeholder, ValueHeader.LOCKED_PLACEHOLDER, false, key,
                        function);
            }
            default -> {
                if (held != 0) {
                    takeOut(s, c, e, held, heldLocked, true);
                }
                return op.result(false, null, null, false);
            }
        }
    }

    /** Decides about value {@code old}, locked as {@code locked}; unlocks it, or retires it, in every case. */
    @SuppressWarnings("unchecked")
    private Object onPresent(Scratch s, Chunk c, int e, Update op, long old, long locked, K key, V value,
            V expected, Object function, long fresh) {
        if (op.ifPresent == Update.IfPresent.IN_PLACE) {
            updateInPlace(s, c, e, old, locked, (Consumer<? super ResizableView>) function);
            return op.result(true, null, null, true);
        }
        boolean held = true;
        try {
            V current = op.readsValue() ? values.readLocked(old, s.valueView) : null;
            Object next = switch (op.ifPresent) {
                case REPLACE -> value;
                case REMOVE -> null;
                case REPLACE_IF_EQUAL -> current.equals(expected) ? value : KEEP;
                case REMOVE_IF_EQUAL -> current.equals(expected) ? null : KEEP;
                case FUNCTION -> call(op, function, key, current, value, old, c);
                default -> KEEP;
            };
            if (next == KEEP) {
                return op.result(true, current, current, false);
            }
            long replacement = 0;
            if (next != null) {
                replacement = next == value && fresh != 0 ? fresh : values.write((V) next, s.writeView);
                s.outcome.freshUsed = replacement == fresh;
            }
            long now = replace(s, c, e, old, locked, replacement);
            held = false;
            if (next == null) {
                c.addLive(-1);
                if (now != 0) {
                    c.addTombstones(1);
                }
                s.outcome.compact |= rebalancer.shouldCompact(c);
            }
            return op.result(true, current, next, true);
        } finally {
            if (held) {
                values.unlock(old, locked);
            }
        }
    }

    /**
     * Runs the function of a {@code compute} or {@code computeIfAbsent} on the absent key of entry {@code e},
     * which holds {@code placeholder}, locked as {@code locked} and {@code counted} live if a batch left it:
     * installs its result, or leaves the entry without a value (it may have been inserted for this call: then the
     * chunk may need a compaction, as after a removal).
     */
    private Object computeAbsent(Scratch s, Chunk c, int e, Update op, long placeholder, long locked,
            boolean counted, K key, Object function) {
        boolean installed = false;
        try {
            V next = call(op, function, key, null, null, placeholder, c);
            if (next != null) {
                boolean tombstone = isTombstone(placeholder, locked);
                replace(s, c, e, placeholder, locked, values.write(next, s.writeView));
                installed = true;
                if (!counted) {
                    c.addLive(1);
                }
                if (tombstone) {
                    c.addTombstones(-1);
                }
            }
            return op.result(false, null, next, installed);
        } finally {
            if (!installed) {
                takeOut(s, c, e, placeholder, locked, counted);
            }
        }
    }

    /**
     * Takes placeholder {@code held}, locked as {@code locked} and {@code counted} live or not, out of entry
     * {@code e}, which is left without a value; but a tombstone stays (an open snapshot may read what it hides)
     * and is only unlocked.
     */
    private void takeOut(Scratch s, Chunk c, int e, long held, long locked, boolean counted) {
        if (isTombstone(held, locked)) {
            values.restore(held, locked - 1); // (unchanged: the header it had, absent flag kept)
            return;
        }
        c.casValue(e, held, 0);
        values.retire(held, locked);
        if (counted) {
            c.addLive(-1);
        }
        s.outcome.compact |= rebalancer.shouldCompact(c);
    }

    /**
     * Calls the user function of {@code op} (see {@link Update}) on the {@code present} value (null if absent)
     * and the {@code given} one, recorded as holding {@code held} in {@code c} while it runs.
     */
    @SuppressWarnings("unchecked")
    private V call(Update op, Object function, K key, V present, V given, long held, Chunk c) {
        CallRegistry.Slot call = calls.enter(held, c);
        try {
            return switch (op) {
                case COMPUTE_IF_ABSENT -> ((Function<? super K, ? extends V>) function).apply(key);
                case MERGE -> ((BiFunction<? super V, ? super V, ? extends V>) function).apply(present, given);
                default -> ((BiFunction<? super K, ? super V, ? extends V>) function).apply(key, present);
            };
        } finally {
            calls.exit(call);
        }
    }

    /**
     * Runs {@code computer} on value {@code old} of entry {@code e}, locked as {@code locked}, in place, every write
     * journaled; a resize moves the value to a new slice, which replaces the old one in the entry when the computer
     * returns. If the computer throws, the journal restores the bytes it wrote in place and a resized copy is
     * dropped: the value is exactly as it was. Unlocks in every case.
     */
    private void updateInPlace(Scratch s, Chunk c, int e, long old, long locked,
            Consumer<? super ResizableView> computer) {
        SliceResizer resizer = s.resizer;
        resizer.start(old, values.headerSize);
        SegmentView view = s.writeView;
        Versions versions = values.versions;
        long time = 0;
        boolean copy = false;
        if (versions != null) {
            versions.settle(old);
            time = SnapshotRegistry.now();
            copy = versions.olderSnapshotOpen(s, time); // an open snapshot may read the value as it is
        }
        CallRegistry.Slot call = calls.enter(old, c);
        boolean done = false;
        try {
            view.openJournaled(values.block(old), values.bytesOffset(old), values.size(old), resizer, s.journal);
            if (copy) {
                resizer.resize(view, view.size()); // the computer works on a private copy
            }
            computer.accept(view);
            done = true;
        } finally {
            calls.exit(call);
            view.close();
            if (done) {
                s.journal.commit();
            } else {
                s.journal.undo();
                resizer.abandon();
            }
            if (resizer.moved()) {
                replace(s, c, e, old, locked, resizer.current());
            } else {
                if (done && versions != null) {
                    versions.setVersion(old, time); // (no open snapshot is older: see Versions)
                    versions.prune(old, false);
                }
                values.unlock(old, locked);
            }
        }
    }
}
