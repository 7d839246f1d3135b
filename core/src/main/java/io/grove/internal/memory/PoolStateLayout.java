package io.grove.internal.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The record in which a pool over a file keeps its allocator's state; the only place that computes offsets inside
 * it.
 *
 * <pre>
 * byte offset  0  status (long: 0 never used, 1 open, 2 closed cleanly, 3 closed cleanly and forced)
 *              8  bump granule (long)           16  wasted granules (long)
 *             24  era (long)                    32  root reference (long: the map's directory, 0 if none)
 *             40  reserved bytes (long)         48  boot id of the last open (2 longs: {@link BootId}, 0 unknown)
 *             64  salvaged processes (long)     72  size classes n (long)
 *             80  n free-list heads (long each: ABA tag and granule + 1)
 * </pre>
 * In the platform's byte order, as the slices are. The bump granule, wasted granules, era, size classes and free-list
 * heads are the allocator's own words ({@link AllocatorWords.InFile}), current at every moment; so are the status, the
 * root and the reserved bytes. (The counts of live slices and free granules are not here but in the count area, a part
 * per process: {@link AllocatorWords.InFile}.) A file whose status says open was not closed cleanly: its process died,
 * or it is open in another process. Reserved bytes: how much of the block area has been handed out as blocks, in order
 * ({@link RegionBlockSource}), written before a block is first used; nothing beyond it was ever written, so a reopen
 * after a killed process knows where fresh (zero) memory starts. Salvaged processes: how many processes that ended
 * without closing the file others took over while they had it open ({@code Pool#salvage}) since the last recovery of
 * the whole file; what they were inside of when they ended (slices allocated and not linked yet, the counts of those
 * allocations) is known to no structure, so the last close leaves the file to a recovery, which recounts and sets it to
 * 0.
 */
final class PoolStateLayout {
    static final long NEVER_USED = 0;
    static final long OPEN = 1;
    static final long CLOSED = 2;
    /** Closed cleanly, every page forced to the device before this status was written, and it after. */
    static final long CLOSED_FORCED = 3;

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final VarHandle WORD = LONG.varHandle().withInvokeExactBehavior();
    private static final long STATUS = 0;
    static final long BUMP = 8;
    static final long WASTED = 16;
    static final long ERA = 24;
    private static final long ROOT = 32;
    private static final long RESERVED = 40;
    private static final long BOOT = 48;
    private static final long SALVAGED = 64;
    private static final long CLASSES = 72;
    private static final long HEADS = 80;

    private PoolStateLayout() {}

    /** Where the head of free list {@code c} is. */
    static long headOffset(int c) {
        return HEADS + 8L * c;
    }

    /** The number of size classes whose heads the record holds (0 in a record never used). */
    static long classes(MemorySegment state) {
        return state.get(LONG, CLASSES);
    }

    static void setClasses(MemorySegment state, long classes) {
        state.set(LONG, CLASSES, classes);
    }

    /** The bytes a record with {@code classes} size classes takes. */
    static long sizeFor(int classes) {
        return HEADS + 8L * classes;
    }

    static long status(MemorySegment state) {
        return state.get(LONG, STATUS);
    }

    static void setStatus(MemorySegment state, long status) {
        state.set(LONG, STATUS, status);
    }

    static boolean isClosed(long status) {
        return status == CLOSED || status == CLOSED_FORCED;
    }

    static BootId bootId(MemorySegment state) {
        return new BootId(state.get(LONG, BOOT), state.get(LONG, BOOT + 8));
    }

    static void setBootId(MemorySegment state, BootId id) {
        state.set(LONG, BOOT, id.high());
        state.set(LONG, BOOT + 8, id.low());
    }

    static long salvaged(MemorySegment state) {
        return state.get(LONG, SALVAGED);
    }

    /** Counts one more salvaged process; several processes may do so at once. */
    static void addSalvaged(MemorySegment state) {
        long _ = (long) WORD.getAndAdd(state, SALVAGED, 1L);
    }

    static void clearSalvaged(MemorySegment state) {
        state.set(LONG, SALVAGED, 0L);
    }

    static long root(MemorySegment state) {
        return state.get(LONG, ROOT);
    }

    static void setRoot(MemorySegment state, long root) {
        state.set(LONG, ROOT, root);
    }

    static long reservedBytes(MemorySegment state) {
        return state.get(LONG, RESERVED);
    }

    static void setReservedBytes(MemorySegment state, long bytes) {
        state.set(LONG, RESERVED, bytes);
    }

    static long bump(MemorySegment state) {
        return state.get(LONG, BUMP);
    }

    static long wasted(MemorySegment state) {
        return state.get(LONG, WASTED);
    }

    static long era(MemorySegment state) {
        return state.get(LONG, ERA);
    }

    static long head(MemorySegment state, int c) {
        return state.get(LONG, headOffset(c));
    }


}
