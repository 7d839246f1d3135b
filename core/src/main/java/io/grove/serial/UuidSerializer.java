package io.grove.serial;

import io.grove.view.ReadView;
import io.grove.view.WriteView;
import java.util.Objects;
import java.util.UUID;

/**
 * See {@link Serializers#uuids()}. {@link UUID#compareTo} compares the most, then the least significant bits as
 * signed longs; each half is encoded as {@link LongSerializer} does, so the byte order matches.
 */
final class UuidSerializer implements Serializer<UUID> {
    static final UuidSerializer INSTANCE = new UuidSerializer();
    private static final int SIZE = 2 * Long.BYTES;

    private UuidSerializer() {}

    @Override
    public int size(UUID value) {
        Objects.requireNonNull(value, "value");
        return SIZE;
    }

    @Override
    public void write(UUID value, WriteView target) {
        Objects.requireNonNull(value, "value");
        target.putLong(0, value.getMostSignificantBits() ^ Long.MIN_VALUE);
        target.putLong(Long.BYTES, value.getLeastSignificantBits() ^ Long.MIN_VALUE);
    }

    @Override
    public UUID read(ReadView source) {
        FixedSize.check(source, SIZE, this);
        return new UUID(source.getLong(0) ^ Long.MIN_VALUE, source.getLong(Long.BYTES) ^ Long.MIN_VALUE);
    }

    @Override
    public String toString() {
        return "Serializers.uuids()";
    }
}
