package io.grove.serial;

import io.grove.view.ReadView;
import io.grove.view.WriteView;

/**
 * Converts objects of type {@code T} to and from off-heap bytes.
 *
 * <p><b>Writing.</b> {@link #write} receives a view of exactly {@link #size} bytes and must write up to its end.
 * A serializer that writes past that size, or whose writes stop short of it, is reported with a
 * {@link io.grove.SerializerException} naming it and both sizes, and nothing it wrote is kept; bytes it skips
 * between writes read as zero. Serializers must be stateless or thread-safe: a map calls them from many threads at
 * once.
 *
 * <p><b>Reading without a lock.</b> Maps read optimistically: {@link #read} may be handed bytes that are not
 * something {@link #write} wrote — a value an in-place update is rewriting, or, when a removal races with the read,
 * memory already reused by another entry (always of the size the view says, never outside it). The map checks
 * afterwards whether the bytes stayed the same and belong to the entry; if not, it discards what {@code read}
 * returned <em>or threw</em> (any {@link RuntimeException} or {@link Error}) and reads again. If the bytes were
 * stable, what {@code read} threw reaches the caller. So {@code read} must:
 * <ul>
 *   <li>have no side effects: it may run several times for one map operation;
 *   <li>end on any bytes: bound every loop by {@code source.size()}, never only by a count read from the bytes;
 *   <li>fail by throwing on bytes it cannot decode. Checking a length read from the bytes against
 *       {@code source.size()} before allocating is better than letting a garbage length allocate a huge array
 *       (which may throw {@link OutOfMemoryError}, or succeed and waste memory).
 * </ul>
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

    /**
     * Reads a value from all bytes of {@code source}, as written by {@link #write}; during a lock-free read the bytes
     * may be garbage (see the class comment): end, without side effects, and throw if they cannot be decoded.
     */
    T read(ReadView source);
}
