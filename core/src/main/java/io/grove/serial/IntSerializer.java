package io.grove.serial;

import io.grove.view.ReadView;
import io.grove.view.WriteView;
import java.util.Objects;

/** See {@link Serializers#ints()}. Flipping the sign bit maps signed order onto unsigned order. */
final class IntSerializer implements Serializer<Integer> {
    static final IntSerializer INSTANCE = new IntSerializer();

    private IntSerializer() {}

    @Override
    public int size(Integer value) {
        Objects.requireNonNull(value, "value");
        return Integer.BYTES;
    }

    @Override
    public void write(Integer value, WriteView target) {
        Objects.requireNonNull(value, "value");
        target.putInt(0, value ^ Integer.MIN_VALUE);
    }

    @Override
    public Integer read(ReadView source) {
        FixedSize.check(source, Integer.BYTES, this);
        return source.getInt(0) ^ Integer.MIN_VALUE;
    }

    @Override
    public String toString() {
        return "Serializers.ints()";
    }
}
