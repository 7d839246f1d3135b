package io.grove;

/**
 * Counters of a map built with {@code recordStats()}; all zero otherwise. Each counter is exact at some moment,
 * read without stopping updates.
 *
 * @param hits reads ({@code get}, {@code zc().get}) that found the key
 * @param misses reads that did not
 * @param puts values stored (insertions and replacements)
 * @param evictions entries evicted to stay within a bound
 */
public record MapStats(long hits, long misses, long puts, long evictions) {

    /** {@code hits / (hits + misses)}, or 1 if there were no reads. */
    public double hitRatio() {
        long reads = hits + misses;
        return reads == 0 ? 1.0 : (double) hits / reads;
    }
}
