package io.grove.bench;

/**
 * One worker thread's state: its random number generator and its counters. Created by the thread itself (so it
 * sits in that thread's allocation buffer, away from other threads' contexts) and written only by it; the
 * coordinator reads it after joining the thread.
 *
 * <p>The generator is SplitMix64 (Steele, Lea, Flood 2014): one multiply-xorshift step per operation, no allocation.
 * One 64-bit draw picks both the operation (high half) and the key (low half), each by a multiply-shift, which is
 * uniform to within 2<sup>-32</sup>.
 */
public final class ThreadContext {
    private long seed;

    /** Operations per {@link Family#operations()} index, over the whole run (warm-up included). */
    public final long[] operations;
    /** Reads whose content did not match the key (must stay 0). */
    public long mismatches;
    /** Optimistic reads that failed validation (the entry was replaced under the reader) and were retried. */
    public long readRetries;
    /** Writes that found the entry gone ({@code beginWrite} = -1) and were retried. */
    public long writeRetries;
    /** Replacements that lost the race to publish (another thread replaced the entry first). */
    public long lostRaces;
    /** Anything else the family wants to count as an anomaly (e.g. a delete that found the slice deleted). */
    public long anomalies;
    /** Reads that found no entry for the key (normal in a map with removes or a half-filled key range). */
    public long misses;
    /** A family's own per-thread object (e.g. reusable key and value buffers), created by the family. */
    public Object state;
    /** Folds values read, so that the JIT cannot drop the reads. */
    public long sink;
    /** A counter the thread may use for values it writes. */
    public int sequence;

    /**
     * @param seed any value; it is scrambled, so that threads given seeds that differ by a constant (even by
     *     SplitMix64's own increment) still draw unrelated sequences
     */
    public ThreadContext(long seed, int operationCount) {
        this.seed = scramble(seed);
        this.operations = new long[operationCount];
    }

    /** The next 64 random bits. */
    public long nextLong() {
        long z = (seed += 0x9E3779B97F4A7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private static long scramble(long z) {
        z = (z ^ (z >>> 33)) * 0xFF51AFD7ED558CCDL;
        z = (z ^ (z >>> 33)) * 0xC4CEB9FE1A85EC53L;
        return z ^ (z >>> 33);
    }

    /** A value in {@code [0, bound)} from 32 random bits. */
    public static int below(long random32, int bound) {
        return (int) (((random32 & 0xFFFF_FFFFL) * bound) >>> 32);
    }
}
