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
 * <p>An update that leaves an entry without a value (a removal, a placeholder whose function returned null)
 * asks whether the chunk should be compacted ({@link Rebalancer#shouldCompact}); {@link ChunkMap#update} does it
 * after unpublishing.
 */
final class EntryUpdates<K, V> {
    /** Returned by the absent path when its CAS lost: read the entry again. */
    private static final Object AGAIN = new Object();
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
                Object result = onAbsent(s, c, e, op, key, value, function, fresh);
                if (result != AGAIN) {
                    return result;
                }
                continue;
            }
            long locked = values.lock(old);
            if (locked != -1) {
                return onPresent(s, c, e, op, old, locked, key, value, expected, function, fresh);
            }
            // the value left the entry: read it again
        }
    }

    private Object onAbsent(Scratch s, Chunk c, int e, Update op, K key, V value, Object function, long fresh) {
        switch (op.ifAbsent) {
            case INSERT -> {
                if (!c.casValue(e, 0, fresh)) {
                    return AGAIN;
                }
                c.addLive(1);
                s.outcome.freshUsed = true;
                return op.result(false, null, value, true);
            }
            case FUNCTION -> {
                long placeholder = values.placeholder();
                if (!c.casValue(e, 0, placeholder)) {
                    pool.deletePrivate(placeholder);
                    return AGAIN;
                }
                return computeAbsent(s, c, e, op, placeholder, key, function);
            }
            default -> {
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
            c.casValue(e, old, replacement);
            held = false;
            values.retire(old, locked);
            if (next == null) {
                c.addLive(-1);
                s.outcome.compact = rebalancer.shouldCompact(c);
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
     * which holds the locked {@code placeholder}: installs its result, or leaves the entry without a value (it may
     * have been inserted for this call: then the chunk may need a compaction, as after a removal).
     */
    private Object computeAbsent(Scratch s, Chunk c, int e, Update op, long placeholder, K key, Object function) {
        boolean installed = false;
        try {
            V next = call(op, function, key, null, null, placeholder, c);
            if (next != null) {
                c.casValue(e, placeholder, values.write(next, s.writeView));
                c.addLive(1);
                installed = true;
            }
            return op.result(false, null, next, installed);
        } finally {
            if (!installed) {
                c.casValue(e, placeholder, 0);
                s.outcome.compact = rebalancer.shouldCompact(c);
            }
            values.retire(placeholder, ValueHeader.LOCKED_PLACEHOLDER);
        }
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
        resizer.start(old, ValueHeader.HEADER);
        SegmentView view = s.writeView;
        CallRegistry.Slot call = calls.enter(old, c);
        boolean done = false;
        try {
            view.openJournaled(values.block(old), values.bytesOffset(old), values.size(old), resizer, s.journal);
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
                c.casValue(e, old, resizer.current());
                values.retire(old, locked);
            } else {
                values.unlock(old, locked);
            }
        }
    }
}
