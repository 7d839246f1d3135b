package io.grove.internal.sorted;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The snapshots open on an ordered map, and the clock their versions are read from: each open snapshot holds a slot
 * with its time; writers ask whether one is older than their own time to decide whether a value they replace must be
 * kept as an older version ({@link Versions}).
 *
 * <h2>Implementation notes</h2>
 *
 * <p>The clock is {@link System#nanoTime()} (a vDSO read of {@code CLOCK_MONOTONIC} on Linux, no shared counter),
 * shifted so that it reads at least 1: 0 is the time of a version older than any snapshot.
 *
 * <p>Opening: take a free slot by a CAS to {@link #REGISTERING} (which {@link #reads} takes for any
 * time), then read the clock as the snapshot's time {@code s}, store it, and wait until the clock passes {@code s}:
 * every update that reads the clock after the open returned stamps a time above {@code s}.
 *
 * <p>Why a writer that misses a registration may drop the old version: a writer stores its time {@code t} (a
 * volatile store, whose value depends on the clock read, so the clock read precedes it) and then reads the slots
 * (after the store, volatile). If it misses a snapshot's slot store, that store comes after its slot read in
 * memory order, and the snapshot reads its clock after its own store is visible (the volatile store's fence, then
 * the clock read's ordering on x86-64): {@code t < s}, so the snapshot sees the writer's value, not the one it
 * replaced. This holds on x86-64, where Grove is tested; it assumes the clock reads are ordered as described.
 *
 * <p>No counter shared by writers: a writer reads {@link #open} (written only by opens and closes) and, only when
 * it is not 0, the slots up to {@link #highWater}.
 */
final class SnapshotRegistry {
    /** The most snapshots one map may have open at once. */
    static final int MAX_OPEN = 1024;
    /**
     * How many times an open that finds every slot taken waits for the {@link java.lang.ref.Cleaner} to close
     * snapshots dropped unclosed, 1, 2, 4... ms in turn (511 ms in all), before it throws.
     */
    private static final int RECLAIM_WAITS = 9;
    /** A slot taken by a snapshot that has not read its time yet. */
    private static final long REGISTERING = Long.MIN_VALUE;
    private static final long FREE = 0;
    private static final long ORIGIN = System.nanoTime() - 1;

    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle OPEN;
    private static final VarHandle HIGH_WATER;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            OPEN = l.findVarHandle(SnapshotRegistry.class, "open", int.class);
            HIGH_WATER = l.findVarHandle(SnapshotRegistry.class, "highWater", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long[] slots = new long[MAX_OPEN];
    @SuppressWarnings("unused") private volatile int open;
    /** One past the highest slot ever taken: the slots {@link #reads} looks at. */
    @SuppressWarnings("unused") private volatile int highWater;

    /** The clock: at least 1, never decreasing. */
    static long now() {
        return System.nanoTime() - ORIGIN;
    }

    /**
     * Opens a snapshot: its slot; its time is {@link #timeOf}. Throws {@link IllegalStateException} if
     * {@value #MAX_OPEN} snapshots are open ({@link #takeSlot}).
     */
    int register() {
        OPEN.getAndAdd(this, 1);
        int slot = takeSlot();
        long s = now();
        SLOTS.setVolatile(slots, slot, s);
        while (now() <= s) {
            Thread.onSpinWait();
        }
        return slot;
    }

    /**
     * A slot taken for a snapshot that opens. When every slot is taken, some may belong to snapshots dropped without
     * {@code close()}, which hold their slots until the {@link java.lang.ref.Cleaner} closes them after a garbage
     * collection: as the JDK's direct buffers do when direct memory runs out, the open then asks for a collection
     * ({@link System#gc()}) and looks again after waits of 1, 2, 4... ms ({@value #RECLAIM_WAITS} of them), and
     * throws {@link IllegalStateException} only if every slot is still taken.
     */
    private int takeSlot() {
        for (int wait = 0; ; wait++) {
            int slot = tryTakeSlot();
            if (slot >= 0) {
                return slot;
            }
            if (wait == RECLAIM_WAITS) {
                OPEN.getAndAdd(this, -1);
                throw new IllegalStateException(MAX_OPEN + " snapshots of this map are open: close some first");
            }
            if (wait == 0) {
                System.gc();
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1L << wait));
        }
    }

    /** A free slot, taken; -1 if there is none. */
    private int tryTakeSlot() {
        int start = (int) (Thread.currentThread().threadId() & (MAX_OPEN - 1));
        for (int i = 0; i < MAX_OPEN; i++) {
            int slot = (start + i) & (MAX_OPEN - 1);
            if ((long) SLOTS.getVolatile(slots, slot) == FREE
                    && SLOTS.compareAndSet(slots, slot, FREE, REGISTERING)) {
                int high;
                while ((high = (int) HIGH_WATER.getVolatile(this)) <= slot
                        && !HIGH_WATER.compareAndSet(this, high, slot + 1)) {
                    Thread.onSpinWait();
                }
                return slot;
            }
        }
        return -1;
    }

    long timeOf(int slot) {
        return (long) SLOTS.getVolatile(slots, slot);
    }

    /** The number of open snapshots, those still taking their time included. */
    int openCount() {
        return (int) OPEN.getVolatile(this);
    }

    /** The least time above {@code after} of an open snapshot, or {@link Long#MAX_VALUE} if there is none. */
    long oldestAfter(long after) {
        long oldest = Long.MAX_VALUE;
        int high = (int) HIGH_WATER.getVolatile(this);
        for (int slot = 0; slot < high; slot++) {
            long s = (long) SLOTS.getVolatile(slots, slot);
            if (s != FREE && s != REGISTERING && s > after && s < oldest) {
                oldest = s;
            }
        }
        return oldest;
    }

    void deregister(int slot) {
        SLOTS.setVolatile(slots, slot, FREE);
        OPEN.getAndAdd(this, -1);
    }

    /**
     * Whether an open snapshot reads a version written at {@code from} that a version written at {@code to}
     * replaced: one whose time is at or after {@code from} and before {@code to}, or one still taking its time. A
     * writer that depends on the answer for its own time {@code to} stored that time (volatile) just before.
     */
    boolean reads(long from, long to) {
        if ((int) OPEN.getVolatile(this) == 0) {
            return false;
        }
        int high = (int) HIGH_WATER.getVolatile(this);
        for (int slot = 0; slot < high; slot++) {
            long s = (long) SLOTS.getVolatile(slots, slot);
            if (s == REGISTERING || (s != FREE && from <= s && s < to)) {
                return true;
            }
        }
        return false;
    }
}
