package io.grove.internal.sync;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A count of operations under way, which a closer reads to wait until none is: {@link #begin} and {@link #end} by each
 * operation, {@link #none} by the closer.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>Striped so that threads do not contend on one word: each thread counts in one of {@value #STRIPES} stripes, each
 * on a cache line pair of its own, chosen by its id, so that its end always lands on the stripe of its begin. A
 * {@link java.util.concurrent.atomic.LongAdder} does not promise that (a thread whose add meets contention moves to
 * another cell), and its {@code sum()}, which reads the cells one after another, could then count an operation's end
 * and not its begin while a third operation was under way, and answer zero: a closer would go on while an operation
 * held a lock. Here each stripe only ever holds the number of its threads' operations under way, at least 0, so
 * reading the stripes one after another sees every operation that began before the closer began reading and had not
 * ended by then.
 *
 * <p>Every access is sequentially consistent ({@link AtomicLongArray}), for the closer's handshake: an operation
 * begins, then reads the closer's flag; the closer sets the flag, then reads the count; either the operation sees the
 * flag (and ends without doing anything) or the closer sees the operation.
 */
public final class OperationsUnderWay {
    private static final int STRIPES = 64;
    /** Longs from one stripe to the next: 128 bytes, so no two stripes share a line or the adjacent-line prefetch. */
    private static final int SPACING = 16;

    private final AtomicLongArray counts = new AtomicLongArray(STRIPES * SPACING);

    /** Counts an operation of the calling thread as under way. */
    public void begin() {
        counts.getAndIncrement(stripe());
    }

    /** Ends the operation the calling thread began last. */
    public void end() {
        counts.getAndDecrement(stripe());
    }

    /** Whether no operation is under way: none had begun and not ended when its stripe was read. */
    public boolean none() {
        for (int s = 0; s < STRIPES; s++) {
            if (counts.get(s * SPACING) != 0) {
                return false;
            }
        }
        return true;
    }

    private static int stripe() {
        long mixed = Thread.currentThread().threadId() * 0x9E37_79B9_7F4A_7C15L;
        return (int) (mixed >>> (Long.SIZE - Integer.numberOfTrailingZeros(STRIPES))) * SPACING;
    }
}
