package io.grove;

/**
 * Told of every entry a bounded map evicts, exactly once, after the eviction, on the thread whose insertion caused
 * it and outside the map's locks. An exception it throws is logged and does not undo the insertion.
 */
@FunctionalInterface
public interface EvictionListener<K, V> {
    void onEviction(K key, V value);
}
