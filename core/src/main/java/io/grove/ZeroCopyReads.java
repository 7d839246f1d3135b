package io.grove;

import io.grove.view.Handle;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The reads of the zero-copy API (Oak's Table 1): handles on keys and values where they live, read without
 * deserializing them. A map's ({@link ZeroCopyMap}) handles read its entries as they are now and end when their
 * entry is removed or replaced; a snapshot's ({@link GroveSnapshot#zc()}) read the versions the snapshot sees and
 * end when it is closed.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface ZeroCopyReads<K, V> {

    /**
     * An unscoped handle on the value of {@code key}, or {@code null} if absent. Each read through the handle is
     * validated: a map's handle throws {@link java.util.ConcurrentModificationException} once the entry is removed
     * or its value replaced; a snapshot's throws {@link IllegalStateException} once the snapshot is closed. Each
     * read through a map's handle sees one state of the value between in-place updates
     * ({@link ZeroCopyMap#computeIfPresent}), waiting while one runs; a read of several fields sees one state only
     * through {@link Handle#read}. A read from inside the computer of an in-place update of that very value would
     * wait for itself and throws {@link IllegalStateException} ("Recursive update") instead. A snapshot's handle
     * reads bytes that do not change while the snapshot is open.
     */
    Handle get(K key);

    /**
     * The keys, each element its own unscoped handle (a map's is valid until its entry is removed; in a
     * {@link GroveHashMap} also until its value is replaced, since key and value share one slice there; a
     * snapshot's until the snapshot is closed). Weakly consistent like the map's own views (a snapshot's show the
     * snapshot exactly); the iterator's {@code remove} removes the entry from a map and throws
     * {@link UnsupportedOperationException} on a snapshot. Scans of a hash map are unordered.
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
