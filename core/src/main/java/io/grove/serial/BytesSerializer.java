package io.grove.serial;

import io.grove.view.ReadView;
import io.grove.view.WriteView;
import java.util.Objects;

/** See {@link Serializers#bytes()}. The identity encoding; every size is valid. */
final class BytesSerializer implements Serializer<byte[]> {
    static final BytesSerializer INSTANCE = new BytesSerializer();

    private BytesSerializer() {}

    @Override
    public int size(byte[] value) {
        return Objects.requireNonNull(value, "value").length;
    }

    @Override
    public void write(byte[] value, WriteView target) {
        Objects.requireNonNull(value, "value");
        target.copyFrom(value, 0, 0, value.length);
    }

    @Override
    public byte[] read(ReadView source) {
        return source.toByteArray();
    }

    @Override
    public String toString() {
        return "Serializers.bytes()";
    }
}
