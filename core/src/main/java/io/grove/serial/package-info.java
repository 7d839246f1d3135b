/**
 * Serializers: how a Grove map turns keys and values into off-heap bytes and back.
 *
 * <p>A {@link io.grove.serial.Serializer} declares the size of a value's encoding, writes it into a
 * {@link io.grove.view.WriteView} of exactly that size, and reads it back from a {@link io.grove.view.ReadView}.
 * {@link io.grove.serial.Serializers} has ready-made ones for {@code long}, {@code int}, {@code String} (UTF-8),
 * {@code byte[]} and {@link java.util.UUID}, whose encodings preserve order: compared as unsigned bytes they order
 * as the values do, so an ordered map with these serializers needs no comparator and compares keys without
 * deserializing them.
 */
package io.grove.serial;
