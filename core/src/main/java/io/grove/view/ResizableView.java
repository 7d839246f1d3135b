package io.grove.view;

/**
 * A {@link WriteView} on a value that an in-place update may also grow or shrink. Scoped like every write view.
 */
public interface ResizableView extends WriteView {

    /**
     * Gives the value {@code newSize} bytes, keeping its first {@code min(size(), newSize)} bytes; bytes beyond the
     * old size are zero. The view then covers the new bytes. The value may move in memory: handles obtained
     * before the update see the old value removed once the update completes.
     *
     * @throws IllegalArgumentException if {@code newSize} is negative or larger than the pool's largest slice
     * @throws io.grove.GroveOutOfMemoryException if the memory limit leaves no room; the value keeps its old size
     */
    ResizableView resize(int newSize);
}
