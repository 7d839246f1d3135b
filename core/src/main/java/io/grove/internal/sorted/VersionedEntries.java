package io.grove.internal.sorted;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The entries of one chunk whose values may have older versions ({@link Versions}), so that the sweep after a
 * snapshot's close visits those entries and no others. An entry is noted when its value gains a previous version
 * it did not have (by a writer published in the chunk, by a rebalance building the chunk, by a sweep that leaves
 * versions some snapshot still reads); notes may repeat. When the notes do not fit, the whole chunk is marked.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A lock-free append-only array: a note is written into the slot at {@code count} by a CAS from 0, then
 * {@code count} moves past it by a CAS (any thread that finds the slot written helps), so every slot below
 * {@code count} holds a note. The sweep reads the slots below {@code count}, clears them, and takes {@code count} back
 * to 0 by a CAS, again from the new count if notes came meanwhile. A note written at the old count whose writer
 * had not moved the count yet is not lost: it stays in its slot, the sweep looks there after its reset and takes it,
 * and its writer, whose count CAS fails, notes the entry again from 0 (a harmless repeat).
 */
final class VersionedEntries {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(int[].class);
    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(VersionedEntries.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Entry plus one per slot; 0: free. */
    private final int[] slots;
    @SuppressWarnings("unused") private volatile int count;
    /** Whether every entry is to be visited (the notes did not fit). */
    private volatile boolean all;

    VersionedEntries(int capacity) {
        this.slots = new int[capacity];
    }

    /** Notes entry {@code e}. */
    void note(int e) {
        while (true) {
            int n = (int) COUNT.getVolatile(this);
            if (n >= slots.length) {
                all = true;
                return;
            }
            int there = (int) SLOT.getVolatile(slots, n);
            if (there == 0 && !SLOT.compareAndSet(slots, n, 0, e + 1)) {
                continue;
            }
            COUNT.compareAndSet(this, n, n + 1); // (ours, or helping the writer of that slot)
            if (there == 0) {
                return;
            }
        }
    }

    /** Whether nothing is noted. */
    boolean isEmpty() {
        return !all && (int) COUNT.getVolatile(this) == 0 && (int) SLOT.getVolatile(slots, 0) == 0;
    }

    /** Whether every entry is to be visited; clears that mark. */
    boolean takeAll() {
        if (!all) {
            return false;
        }
        all = false;
        return true;
    }

    /** What a sweep does with a noted entry. */
    interface Visit {
        void entry(int e);
    }

    /**
     * Takes every note: visits each noted entry (some maybe twice) and forgets the note. The visit may note entries
     * again only once this returns (its notes would be taken too).
     */
    void take(Visit visit) {
        int from = 0;
        while (true) {
            int n = (int) COUNT.getVolatile(this);
            for (int i = from; i < n; i++) {
                int e = (int) SLOT.getAndSet(slots, i, 0) - 1;
                if (e >= 0) {
                    visit.entry(e);
                }
            }
            if (COUNT.compareAndSet(this, n, 0)) {
                if (n < slots.length) {
                    int stranded = (int) SLOT.getAndSet(slots, n, 0) - 1; // written, count not moved yet
                    if (stranded >= 0) {
                        visit.entry(stranded);
                    }
                }
                return;
            }
            from = n;
        }
    }
}
