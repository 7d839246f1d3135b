/**
 * Grove's maps and the off-heap memory they live in.
 *
 * <p>Two maps, both {@link java.lang.AutoCloseable}, whose keys and values are serialized into memory off the Java
 * heap:
 * <ul>
 *   <li>{@link io.grove.GroveHashMap}: a complete {@link java.util.concurrent.ConcurrentMap} whose slots, entries
 *       and locks live off heap too; optionally bounded in entries or bytes, evicting by a CLOCK sweep (told to an
 *       {@link io.grove.EvictionListener}; counted in {@link io.grove.MapStats} if the builder asked for it).
 *   <li>{@link io.grove.GroveSortedMap}: a complete {@link java.util.concurrent.ConcurrentNavigableMap} after the
 *       Oak algorithm, with chunks of entries on the heap and keys and values off heap.
 * </ul>
 * Each is made by its builder ({@link io.grove.GroveHashMap#builder}, {@link io.grove.GroveSortedMap#builder}) from
 * two {@link io.grove.serial.Serializer}s, and returns all its off-heap memory to the operating system on
 * {@code close()}.
 *
 * <p>The zero-copy API, {@code zc()} on each map ({@link io.grove.ZeroCopyMap}, {@link io.grove.ZeroCopySortedMap}),
 * reads and updates values where they live, through the views of {@link io.grove.view}, without deserializing
 * them; its in-place updates are atomic.
 *
 * <p>Memory: each map draws on a {@link io.grove.MemoryPool}, its own unless the builder is given one to share with
 * other maps under one memory limit. {@link io.grove.Reclamation} chooses whether the memory of removed keys and
 * values is reused while other threads may still hold handles on them (the default) or never reused;
 * {@link io.grove.MemoryFootprint} reports what the pool holds. Exhausting the memory limit throws
 * {@link io.grove.GroveOutOfMemoryException}; a serializer that breaks its contract causes a
 * {@link io.grove.SerializerException}. In both cases the map is unchanged and stays usable.
 */
package io.grove;
