package io.grove;

/** How a {@link MemoryPool} treats the memory of removed keys and values. */
public enum Reclamation {
    /**
     * Nova: removed slices are reused once no thread can still be writing them, while other threads may keep
     * handles; a stale handle fails with {@link java.util.ConcurrentModificationException}. The default.
     */
    NOVA,
    /**
     * Grow-only: removed slices are marked deleted (stale handles still fail) but never reused; memory returns
     * only on {@link MemoryPool#close()}. The baseline the Nova paper compares against; useful for data that is
     * only ever added.
     */
    GROW_ONLY
}
