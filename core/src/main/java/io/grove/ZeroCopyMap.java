package io.grove;

import io.grove.view.Handle;
import io.grove.view.ResizableView;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The zero-copy API of a Grove map (Oak's Table 1): values are read and updated where they live, without
 * deserializing them, and writes return no old value so that none is deserialized.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface ZeroCopyMap<K, V> {

    /**
     * An unscoped handle on the value of {@code key}, or {@code null} if absent. Each read through the handle is
     * validated: once the entry is removed or its value replaced, reads throw
     * {@link java.util.ConcurrentModificationException}. Each read through the handle sees one state of the value
     * between in-place updates ({@link #computeIfPresent}), waiting while one runs; a read of several fields sees
     * one state only through {@link Handle#read}. A read from inside the computer of an in-place update of that
     * very value would wait for itself and throws {@link IllegalStateException} ("Recursive update") instead.
     */
    Handle get(K key);

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

    /**
     * The keys, each element its own unscoped handle (valid until its entry is removed; in a
     * {@link GroveHashMap} also until its value is replaced, since key and value share one slice there). Weakly
     * consistent like the map's own views; the iterator's {@code remove} removes the entry. Scans of a hash map
     * are unordered.
     */
    Set<Handle> keySet();

    /** The values, each element its own handle on the value the entry had when the scan reached it. */
    Collection<Handle> values();

    /** Key and value handles of each entry; {@code setValue} is not supported. */
    Set<Map.Entry<Handle, Handle>> entrySet();

    /**
     * As {@link #keySet()}, but one handle is pointed at key after key: an element is valid only until the stream
     * advances, and nothing is allocated per element.
     */
    Stream<Handle> keyStream();

    /** As {@link #values()}, reusing one handle; see {@link #keyStream()}. */
    Stream<Handle> valueStream();

    /** As {@link #entrySet()}, reusing one entry and its two handles; see {@link #keyStream()}. */
    Stream<Map.Entry<Handle, Handle>> entryStream();
}
