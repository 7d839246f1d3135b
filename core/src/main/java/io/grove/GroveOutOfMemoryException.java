package io.grove;

/**
 * Off-heap memory ran out: an allocation would exceed the memory limit set in the builder, or the operating
 * system refused more memory, or (for a map in a file) the file's storage device has no room for the file to grow.
 * The operation that threw changed nothing, and the map or pool stays consistent and usable: removing entries frees
 * room.
 */
public class GroveOutOfMemoryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public GroveOutOfMemoryException(String message) {
        super(message);
    }
}
