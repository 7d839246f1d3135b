package io.grove;

import io.grove.view.ResizableView;
import java.util.function.Consumer;

/**
 * The zero-copy API of a Grove map (Oak's Table 1): values are read ({@link ZeroCopyReads}) and updated where they
 * live, without deserializing them, and writes return no old value so that none is deserialized.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface ZeroCopyMap<K, V> extends ZeroCopyReads<K, V> {

    /** Maps {@code key} to {@code value}, replacing any value. */
    void put(K key, V value);

    /** Maps {@code key} to {@code value} if absent; {@code true} if it was inserted. */
    boolean putIfAbsent(K key, V value);

    /** Removes {@code key}'s mapping; {@code true} if there was one. */
    boolean remove(K key);

    /**
     * If {@code key} is present, runs {@code computer} once on its value in place, atomically with respect to
     * every other operation on the map, and returns {@code true}; otherwise returns {@code false} without calling
     * it. The computer may {@link ResizableView#resize resize} the value. It should be short (readers of this key
     * wait for it) and must not update the map: a call of the map from the computer that would wait for the
     * computer itself (an update or a read of the same key, among others) throws {@link IllegalStateException}
     * ("Recursive update"). If the computer throws, the exception propagates and the value is left exactly as it
     * was (its size included).
     */
    boolean computeIfPresent(K key, Consumer<? super ResizableView> computer);

    /**
     * Inserts {@code value} if {@code key} is absent and returns {@code true}; otherwise runs {@code computer} once
     * on the present value in place, as {@link #computeIfPresent}, and returns {@code false}. The whole is one
     * atomic step.
     */
    boolean putIfAbsentComputeIfPresent(K key, V value, Consumer<? super ResizableView> computer);
}
