package io.grove;

/** A serializer broke its contract, e.g. wrote more bytes than it declared. Nothing it wrote was kept. */
public class SerializerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SerializerException(String message, Throwable cause) {
        super(message, cause);
    }

    public SerializerException(String message) {
        super(message);
    }
}
