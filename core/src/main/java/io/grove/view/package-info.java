/**
 * Views of off-heap keys and values: how the zero-copy API and the serializers read and write bytes in place,
 * without copying them onto the Java heap.
 *
 * <ul>
 *   <li>{@link io.grove.view.ReadView}: read access to the bytes of one key or value, bounds-checked, multi-byte
 *       values big-endian.
 *   <li>{@link io.grove.view.WriteView}: read and write access to a value in place, for in-place updates and for
 *       {@link io.grove.serial.Serializer#write serializers}; {@link io.grove.view.ResizableView} may also grow or
 *       shrink the value.
 *   <li>{@link io.grove.view.Handle}: an unscoped read view that may be kept and read later, from any thread; every
 *       read is validated, and once its entry is removed every read throws
 *       {@link java.util.ConcurrentModificationException} instead of returning bytes that now belong to another
 *       entry.
 * </ul>
 *
 * <p>A view passed to a callback is scoped: it is valid only while the callback runs, and any use after it returns
 * throws {@link java.lang.IllegalStateException}.
 */
package io.grove.view;
