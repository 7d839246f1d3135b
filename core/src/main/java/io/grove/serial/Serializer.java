package io.grove.serial;

import io.grove.view.ReadView;
import io.grove.view.WriteView;

/**
 * Converts objects of type {@code T} to and from off-heap bytes.
 *
 * <p>{@link #write} receives a view of exactly {@link #size} bytes. A serializer that writes past that size is
 * reported with a {@link io.grove.SerializerException} naming it, and nothing it wrote is kept. Serializers must
 * be stateless or thread-safe: a map calls them from many threads at once.
 *
 * <p>When used for keys of an ordered map with the default comparator, serialized keys are compared as unsigned
 * bytes (shorter prefix first); the ready-made serializers in {@link Serializers} produce encodings whose byte
 * order equals the natural order of the type.
 */
public interface Serializer<T> {

    /** The number of bytes {@code value} serializes to; called once before each {@link #write}. */
    int size(T value);

    /** Writes {@code value} into {@code target}, whose {@link WriteView#size()} is {@code size(value)}. */
    void write(T value, WriteView target);

    /** Reads a value from all bytes of {@code source}, as written by {@link #write}. */
    T read(ReadView source);
}
