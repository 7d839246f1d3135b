package io.grove.internal.view;

/**
 * Overflow-safe range checks for views, with messages that carry the offending values.
 *
 * <p>Each check is a couple of comparisons on the hot path; the exception and its message are built in a separate
 * method so that a successful check allocates nothing and stays small enough to inline.
 */
final class Bounds {

    private Bounds() {}

    /**
     * Checks {@code 0 <= index} and {@code index + length <= size} for a view of {@code size} bytes; throws
     * {@link ViewBoundsException}, the one type that says "outside the view" (e.g. a serializer writing past its
     * declared size), as opposed to a bad range in the array, buffer or segment on the other side of a copy.
     */
    static void checkView(int index, int length, int size) {
        // size - length cannot overflow: size >= 0 and length >= 0 once the sign test passed.
        if ((index | length) < 0 || index > size - length) {
            throw outOfView(index, length, size);
        }
    }

    /** Checks {@code [arrayIndex, arrayIndex + length)} against an array of {@code arrayLength} elements. */
    static void checkArray(int arrayIndex, int length, int arrayLength) {
        if ((arrayIndex | length) < 0 || arrayIndex > arrayLength - length) {
            throw new IndexOutOfBoundsException("array index " + arrayIndex + ", length " + length
                    + " out of bounds for array of length " + arrayLength);
        }
    }

    /** Checks {@code [offset, offset + length)} against a segment of {@code segmentSize} bytes. */
    static void checkSegment(long offset, int length, long segmentSize) {
        if ((offset | length) < 0 || offset > segmentSize - length) {
            throw new IndexOutOfBoundsException("segment offset " + offset + ", length " + length
                    + " out of bounds for segment of size " + segmentSize);
        }
    }

    static ViewBoundsException outOfView(int index, int length, int size) {
        return new ViewBoundsException(
                "index " + index + ", length " + length + " out of bounds for view of size " + size);
    }
}
