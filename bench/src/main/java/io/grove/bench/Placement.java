package io.grove.bench;

/**
 * Where a contender keeps its data, which decides how the parent splits the memory budget for its worker JVM
 * (the method of Oak's performance evaluation: every contender gets the same total budget).
 */
public enum Placement {
    /** On the Java heap: {@code -Xmx} is the whole budget, no off-heap limit. */
    ON_HEAP,
    /** Off heap: a small heap ({@code --small-heap}) and the rest of the budget as the off-heap limit. */
    OFF_HEAP,
    /**
     * Off heap, never reusing memory (a grow-only allocator): a small heap, and an off-heap limit of
     * {@code --grow-only-limit}, which exceeds the budget by design (the Nova paper runs its grow-only baseline
     * with no memory restriction, §4.2).
     */
    OFF_HEAP_UNBOUNDED
}
