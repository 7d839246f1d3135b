package io.grove.internal.sync;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Predicate;

/**
 * The operations of one map that are calling a user function right now (a {@code compute} function, a zero-copy
 * computer), with what each holds while it waits for the function: a locked value or lock (a {@code long}) and
 * the part of the map it is published in (an object). A function that calls the map again runs on the same
 * thread, so a wait of that nested call for something its own thread holds would never end; waits consult the
 * registry on their slow path ({@link #timeToCheck}) and throw {@link #recursiveUpdate} instead.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A call claims a slot for the duration of the user function only: it starts at a slot chosen by its thread
 * id and takes the first free one by a CAS of {@code owner} from {@code null} to its thread, then writes what it
 * holds (plain writes); {@link #exit} clears them and releases the owner. Slots are padded objects in chunks of
 * 16, 32, 64... slots; a chunk is added (by CAS, once) only when every slot of the chunks before is taken at once,
 * so the slots follow the most user functions ever running at the same time (virtual threads may be unmounted
 * inside one), not the number of threads. The first chunk is made by the first call, so a map whose operations
 * never call user functions keeps none. No ThreadLocal: the registry works for any number of threads, virtual
 * ones included, and costs nothing to operations that call no user function.
 *
 * <p>Memory ordering: a thread only ever looks for slots it owns. It wrote them itself, before the call that
 * looks, so it sees them (program order); a slot another thread owns, or owned, can never read as owned by the
 * looking thread, since the last write the looking thread made to it was the release of its own ownership. So the
 * plain fields need no fences; the owner's CAS is what keeps two threads out of one slot.
 */
public final class CallRegistry {
    private static final int FIRST_CHUNK_SLOTS = 16;
    private static final int MAX_CHUNKS = 20;
    /** Waits spin this many times before the first look (a lock held by another thread is usually freed by then). */
    private static final int FIRST_CHECK = 64;

    private static final VarHandle OWNER;
    private static final VarHandle CHUNK = MethodHandles.arrayElementVarHandle(Slot[][].class);

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(Slot.class, "owner", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Slot[][] chunks = new Slot[MAX_CHUNKS][];

    /** A claimed or free slot. The padding keeps slots claimed by threads on different cores off one cache line. */
    @SuppressWarnings("unused")
    public static final class Slot {
        private long p0, p1, p2, p3, p4, p5, p6;
        private volatile Thread owner;
        private long held;
        private Object within;
        private long q0, q1, q2, q3, q4, q5, q6;

        private Slot() {}
    }

    /**
     * Records that the calling thread's operation, which holds {@code held} and is published in {@code within},
     * calls a user function now; pass the slot to {@link #exit} when the function returns or throws.
     */
    public Slot enter(long held, Object within) {
        Thread me = Thread.currentThread();
        int home = (int) me.threadId();
        for (int c = 0; c < MAX_CHUNKS; c++) {
            Slot[] chunk = chunk(c, true);
            for (int probe = 0; probe < chunk.length; probe++) {
                Slot slot = chunk[(home + probe) & (chunk.length - 1)];
                if (slot.owner == null && OWNER.compareAndSet(slot, (Thread) null, me)) {
                    slot.held = held;
                    slot.within = within;
                    return slot;
                }
            }
        }
        throw new IllegalStateException("more than " + ((FIRST_CHUNK_SLOTS << MAX_CHUNKS) - FIRST_CHUNK_SLOTS)
                + " user functions running at once");
    }

    /** Ends the call that {@link #enter} recorded in {@code slot}. */
    public void exit(Slot slot) {
        slot.within = null;
        slot.held = 0;
        OWNER.setRelease(slot, (Thread) null);
    }

    /** Whether the calling thread is inside a user function of an operation that holds {@code held}. */
    public boolean callerHolds(long held) {
        return callerHas(slot -> slot.held == held);
    }

    /** Whether the calling thread is inside a user function of an operation published in {@code within}. */
    public boolean callerWithin(Object within) {
        return callerHas(slot -> slot.within == within);
    }

    /**
     * Whether the calling thread is inside a user function of an operation published in a part of the map that
     * {@code test} accepts.
     */
    public boolean callerWithinAny(Predicate<Object> test) {
        return callerHas(slot -> test.test(slot.within));
    }

    /** Whether the calling thread is inside a user function of any operation of the map. */
    public boolean callerInside() {
        return callerHas(slot -> true);
    }

    private boolean callerHas(Predicate<Slot> test) {
        Thread me = Thread.currentThread();
        for (int c = 0; c < MAX_CHUNKS; c++) {
            Slot[] chunk = chunk(c, false);
            if (chunk == null) {
                return false; // chunks are added in order
            }
            for (Slot slot : chunk) {
                if (slot.owner == me && test.test(slot)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether a waiter should look now, on its {@code attempt}-th wait (0, 1, 2...): once it has spun a while,
     * then every so often (what it waits for may come to depend on its own thread only later, as when a
     * rebalancer records which chunks it froze together).
     */
    public static boolean timeToCheck(int attempt) {
        return attempt >= FIRST_CHECK && attempt % FIRST_CHECK == 0;
    }

    /** The exception for a call that would wait for its own thread; {@code why} says what it would wait for. */
    public static IllegalStateException recursiveUpdate(String why) {
        return new IllegalStateException("Recursive update: " + why);
    }

    private Slot[] chunk(int c, boolean create) {
        Slot[] chunk = (Slot[]) CHUNK.getAcquire(chunks, c);
        if (chunk != null || !create) {
            return chunk;
        }
        Slot[] fresh = new Slot[FIRST_CHUNK_SLOTS << c];
        for (int i = 0; i < fresh.length; i++) {
            fresh[i] = new Slot();
        }
        return CHUNK.compareAndSet(chunks, c, (Slot[]) null, fresh) ? fresh : (Slot[]) CHUNK.getAcquire(chunks, c);
    }
}
