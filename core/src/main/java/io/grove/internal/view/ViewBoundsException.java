package io.grove.internal.view;

/**
 * An access outside a view's bounds. A plain {@link IndexOutOfBoundsException} to the user; its own type lets the
 * memory layer tell a serializer that wrote past its declared size from any other failure of the serializer.
 */
final class ViewBoundsException extends IndexOutOfBoundsException {
    private static final long serialVersionUID = 1L;

    ViewBoundsException(String message) {
        super(message);
    }
}
