package io.grove;

/**
 * Puts and removals that {@link #apply()} applies to a {@link GroveSortedMap} atomically: every read, scan and
 * update of the map sees all of them or none. Made by {@link GroveSortedMap#batch()}.
 *
 * <p>The batch only collects operations until {@link #apply()}: the map is not touched before, and a batch that is
 * never applied holds no memory of the map. Of several operations on one key (keys the map's order deems equal),
 * the last counts, and an entry the batch inserts keeps that operation's key. A batch may be applied again (its
 * operations are applied again, as a new atomic batch), changed and applied again, or {@link #clear() cleared}. It
 * is not thread-safe: one thread builds and applies it.
 *
 * <p>A put is a zero-copy put ({@link ZeroCopyMap#put}): {@link #apply()} serializes its value once, straight into
 * the map's memory, and the value it replaces is never read back to the heap.
 *
 * @param <K> the map's key type
 * @param <V> the map's value type
 */
public interface WriteBatch<K, V> {

    /**
     * Adds a put of {@code value} at {@code key}.
     *
     * @throws NullPointerException if {@code key} or {@code value} is null (the batch is unchanged)
     */
    WriteBatch<K, V> put(K key, V value);

    /**
     * Adds a removal of {@code key} (nothing if the key is absent when the batch applies).
     *
     * @throws NullPointerException if {@code key} is null (the batch is unchanged)
     */
    WriteBatch<K, V> remove(K key);

    /** The number of operations added since the batch was made or cleared. */
    int size();

    /** Removes every operation from the batch. */
    void clear();

    /**
     * Applies the batch's operations to its map atomically; returns once all of them are visible. Linearizable:
     * the batch takes effect at one instant between the call and its return, and no read sees some of its
     * operations without the others. It never makes a reader wait, except in a map built to take snapshots, where
     * a read of one of its keys waits while it stamps its values with its commit time (a loop over its keys, run
     * once it is sure to commit); a writer of one of its keys waits for it, at most until it either commits or gives
     * up its claim (it then starts over).
     *
     * <p>Everything that can fail is checked before the map changes: the keys and values are serialized first,
     * and if that fails (a key or value too large, a serializer that throws, {@link GroveOutOfMemoryException}),
     * the map is unchanged.
     *
     * @throws IllegalArgumentException if a key or value is larger than the map can store
     * @throws GroveOutOfMemoryException if the values do not fit in the map's memory limit (nothing applied)
     * @throws IllegalStateException if the map is closed, or if called from a function passed to an operation on
     *     the same map ("Recursive update": the batch could wait for that function)
     */
    void apply();
}
