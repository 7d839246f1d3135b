package io.grove.internal.sync;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Supplier;

/**
 * Reusable per-operation working objects (a map's scratch: probe key buffer, views) for any kind of thread, with
 * no allocation in steady state.
 *
 * <p>Implementation notes.
 *
 * <p><b>Why.</b> A {@link ThreadLocal} caches one object per thread, which suits platform threads, long-lived and
 * few. Virtual threads usually run one task each: a thread-local object is made for every task and dropped with
 * it, and the thread-local map with it. So platform threads keep their own object in a thread local, and virtual
 * threads (and a platform thread whose own object is in use: a map called again from inside a user callback) take
 * one from a small shared pool of idle objects and give it back when done.
 *
 * <p><b>Shared pool.</b> A fixed array of slots, each holding an idle object or {@code null}, slots 64 bytes apart
 * so that neighbours do not share a cache line. A taker starts at a slot picked by its thread id and probes up to
 * {@value #PROBES} slots: the first object it removes with a CAS (object → null) is its; if it finds none it makes
 * a new object. A giver probes the same way for an empty slot and fills it with a CAS (null → object); if it finds
 * none the object is left to the garbage collector, so the pool never holds more than its slots. Invariant: an
 * object is either in exactly one slot, or held by exactly one thread, or dropped. A CAS that succeeds after the
 * slot went object → null → the same object again (ABA) takes an idle object, which is correct: slots say only
 * "this object is free". Memory ordering: both CASes are volatile, so what the giver wrote into the object (its
 * reset state) is visible to the next taker.
 *
 * <p><b>Thread-bound objects</b> belong to one platform thread; their {@code inUse} flag is only read and written
 * by that thread.
 *
 * <p>Size: {@code 8 ×} the available processors, at least 16 and at most 256 slots: enough for every carrier of
 * the virtual-thread scheduler plus virtual threads parked inside an operation (waiting for a lock).
 *
 * @param <T> the objects, which extend {@link Reusable}
 */
public final class ScratchPool<T extends ScratchPool.Reusable> {
    /** Slots probed by one take or give. */
    static final int PROBES = 8;
    /** log2 of the array elements between two slots: 16 references are 64 bytes even when compressed. */
    private static final int SPREAD = 4;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

    /** What a {@link ScratchPool} hands out: remembers where it belongs. */
    public abstract static class Reusable {
        private ScratchPool<?> home;
        /** Whether this is a platform thread's own object (in its thread local), and whether it is taken now. */
        private boolean threadBound;
        private boolean inUse;

        /** Gives this object back to its pool; the caller must not use it afterwards. */
        protected final void giveBack() {
            home.giveBack(this);
        }
    }

    private final Supplier<T> factory;
    private final ThreadLocal<T> perThread;
    private final Object[] slots;
    private final int slotMask;

    /** A pool of objects made by {@code factory} (a new object, reset, not shared with anything). */
    public ScratchPool(Supplier<T> factory) {
        this.factory = factory;
        this.perThread = ThreadLocal.withInitial(() -> {
            T own = make();
            ((Reusable) own).threadBound = true;
            return own;
        });
        int n = Integer.highestOneBit(Math.clamp(8L * Runtime.getRuntime().availableProcessors(), 16, 256));
        this.slots = new Object[n << SPREAD];
        this.slotMask = n - 1;
    }

    private T make() {
        T fresh = factory.get();
        ((Reusable) fresh).home = this;
        return fresh;
    }

    /** An object for the calling thread's operation; give it back with {@link Reusable#giveBack()}. */
    public T acquire() {
        Thread thread = Thread.currentThread();
        if (!thread.isVirtual()) {
            T own = perThread.get();
            Reusable state = own;
            if (!state.inUse) {
                state.inUse = true;
                return own;
            }
        }
        int start = start(thread);
        for (int probe = 0; probe < PROBES; probe++) {
            int index = ((start + probe) & slotMask) << SPREAD;
            Object idle = SLOT.getVolatile(slots, index);
            if (idle != null && SLOT.compareAndSet(slots, index, idle, null)) {
                @SuppressWarnings("unchecked")
                T taken = (T) idle;
                return taken;
            }
        }
        return make();
    }

    private void giveBack(Reusable item) {
        if (item.threadBound) {
            item.inUse = false;
            return;
        }
        int start = start(Thread.currentThread());
        for (int probe = 0; probe < PROBES; probe++) {
            int index = ((start + probe) & slotMask) << SPREAD;
            if (SLOT.getVolatile(slots, index) == null && SLOT.compareAndSet(slots, index, null, item)) {
                return;
            }
        }
        // every probed slot is full: the pool is at its bound, the object goes to the garbage collector
    }

    /** The first slot a thread probes: its id, mixed so that consecutive ids spread. */
    private int start(Thread thread) {
        long id = thread.threadId() * 0x9E37_79B9_7F4A_7C15L;
        return (int) (id >>> 40);
    }

    /** The number of slots (for tests). */
    int capacity() {
        return slotMask + 1;
    }
}
