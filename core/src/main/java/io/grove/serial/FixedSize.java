package io.grove.serial;

import io.grove.view.ReadView;

/** The size check shared by the fixed-size serializers. */
final class FixedSize {

    private FixedSize() {}

    /** Throws {@link IllegalArgumentException} unless {@code source} holds exactly {@code expected} bytes. */
    static void check(ReadView source, int expected, Serializer<?> serializer) {
        int size = source.size();
        if (size != expected) {
            throw new IllegalArgumentException(
                    serializer + " reads exactly " + expected + " bytes, but the view holds " + size);
        }
    }
}
