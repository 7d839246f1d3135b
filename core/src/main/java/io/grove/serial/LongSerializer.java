package io.grove.serial;

import io.grove.view.ReadView;
import io.grove.view.WriteView;
import java.util.Objects;

/** See {@link Serializers#longs()}. Flipping the sign bit maps signed order onto unsigned order. */
final class LongSerializer implements Serializer<Long> {
    static final LongSerializer INSTANCE = new LongSerializer();

    private LongSerializer() {}

    @Override
    public int size(Long value) {
        Objects.requireNonNull(value, "value");
        return Long.BYTES;
    }

    @Override
    public void write(Long value, WriteView target) {
        Objects.requireNonNull(value, "value");
        target.putLong(0, value ^ Long.MIN_VALUE);
    }

    @Override
    public Long read(ReadView source) {
        FixedSize.check(source, Long.BYTES, this);
        return source.getLong(0) ^ Long.MIN_VALUE;
    }

    @Override
    public String toString() {
        return "Serializers.longs()";
    }
}
