package io.grove.internal.memory;

import java.lang.foreign.ValueLayout;
import java.util.ConcurrentModificationException;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;

/**
 * Linearizability of a register whose value lives in a Nova slice: {@code set} publishes a new slice and deletes
 * the old one, {@code get} reads optimistically and retries on a stale reference, {@code reclaim} makes deleted
 * slices reusable at once so that small scenarios already reuse memory. A value fills 32 words, so a read that
 * validated although it spanned a reuse shows mixed words and fails.
 *
 * <p>What this does and does not cover: Lincheck checks the register's results and, in model checking, the
 * interleavings of the on-heap synchronization (register cell, hazard slots, release stripes, era); it does not
 * see the off-heap header and payload accesses. With the era advance removed from the allocator, these scenarios
 * did not hit the narrow reuse window within their budget; {@link NovaSafetyStressTest} is the test that catches
 * that class of bug (verified by that mutation).
 */
@Param(name = "value", gen = IntGen.class, conf = "1:9")
abstract class SliceRegister {
    /** Each value fills this many words, so a read that spans a reuse of the slice sees mixed words. */
    private static final int WORDS = 32;

    private final Pool pool;
    private final AtomicLong cell = new AtomicLong(Reference.NULL);

    SliceRegister(Pool pool) {
        this.pool = pool;
    }

    @Operation
    public void set(@Param(name = "value") int value) {
        long ref = pool.allocate(WORDS * Long.BYTES);
        for (int i = 0; i < WORDS; i++) {
            pool.segment(ref).set(ValueLayout.JAVA_LONG, pool.payloadOffset(ref) + 8L * i, value);
        }
        long old = cell.getAndSet(ref);
        if (old != Reference.NULL && !pool.delete(old)) {
            throw new AssertionError("the unlinked slice was already deleted");
        }
    }

    @Operation
    public int get() {
        while (true) {
            long ref = cell.get();
            if (ref == Reference.NULL) {
                return 0;
            }
            long first = pool.segment(ref).get(ValueLayout.JAVA_LONG, pool.payloadOffset(ref));
            boolean torn = false;
            for (int i = 1; i < WORDS; i++) {
                torn |= pool.segment(ref).get(ValueLayout.JAVA_LONG, pool.payloadOffset(ref) + 8L * i) != first;
            }
            try {
                pool.validate(ref);
                if (torn) {
                    throw new AssertionError("a read validated although the slice was reused while it ran");
                }
                return (int) first;
            } catch (ConcurrentModificationException stale) {
                // replaced and deleted meanwhile: read the current slice
            }
        }
    }

    @Operation
    public void reclaim() {
        pool.reclaimNow();
    }
}
