package io.grove.serial;

import java.util.Arrays;
import java.util.UUID;

/**
 * Ready-made serializers whose encodings preserve order: comparing two encodings as unsigned bytes, a shorter
 * prefix first (as {@link Arrays#compareUnsigned(byte[], byte[])} and {@code MemorySegment.mismatch} do), gives the
 * same result as comparing the values themselves. They are the serializers behind an ordered map's default
 * comparator.
 *
 * <p>Each method returns a stateless singleton that may be shared by any number of maps and threads. Every
 * serializer throws {@link NullPointerException} for a {@code null} value, and {@link IllegalArgumentException}
 * from {@code read} when the bytes are not a valid encoding (wrong size, malformed UTF-8), saying what is wrong.
 *
 * <table class="striped">
 *   <caption>Encodings and the order they preserve</caption>
 *   <thead><tr><th>method</th><th>encoding</th><th>order</th></tr></thead>
 *   <tbody>
 *   <tr><td>{@link #longs()}</td><td>8 bytes, big-endian, sign bit flipped</td>
 *       <td>{@link Long#compare}</td></tr>
 *   <tr><td>{@link #ints()}</td><td>4 bytes, big-endian, sign bit flipped</td><td>{@link Integer#compare}</td></tr>
 *   <tr><td>{@link #uuids()}</td><td>16 bytes: most then least significant bits, each as in {@code longs()}</td>
 *       <td>{@link UUID#compareTo} (which compares both halves as <em>signed</em> longs)</td></tr>
 *   <tr><td>{@link #bytes()}</td><td>the bytes themselves</td>
 *       <td>{@link Arrays#compareUnsigned(byte[], byte[])}</td></tr>
 *   <tr><td>{@link #strings()}</td><td>standard UTF-8</td><td>code point order (see {@link #strings()})</td></tr>
 *   </tbody>
 * </table>
 */
public final class Serializers {

    private Serializers() {}

    /** {@code long} values as 8 big-endian bytes with the sign bit flipped, ordered as {@link Long#compare}. */
    public static Serializer<Long> longs() {
        return LongSerializer.INSTANCE;
    }

    /** {@code int} values as 4 big-endian bytes with the sign bit flipped, ordered as {@link Integer#compare}. */
    public static Serializer<Integer> ints() {
        return IntSerializer.INSTANCE;
    }

    /**
     * UUIDs as 16 bytes: {@link UUID#getMostSignificantBits()} then {@link UUID#getLeastSignificantBits()}, each
     * big-endian with the sign bit flipped. The byte order equals {@link UUID#compareTo}, which compares the two
     * halves as signed longs (so it is not the order of the UUIDs' unsigned 128-bit values or of their strings).
     */
    public static Serializer<UUID> uuids() {
        return UuidSerializer.INSTANCE;
    }

    /**
     * Byte arrays as themselves, ordered as {@link Arrays#compareUnsigned(byte[], byte[])}. {@code write} copies
     * the array and {@code read} returns a new one.
     */
    public static Serializer<byte[]> bytes() {
        return BytesSerializer.INSTANCE;
    }

    /**
     * Strings as standard UTF-8, written straight into the view with no intermediate array.
     *
     * <p><b>Order.</b> UTF-8 byte order is the order of Unicode code points, compared one by one (a prefix first).
     * {@link String#compareTo} compares UTF-16 {@code char}s instead, and the two orders differ in exactly one
     * case: at the first position where two strings differ, one has a supplementary character (U+10000 and up,
     * a surrogate pair in UTF-16) and the other a character in U+E000..U+FFFF. Code point order puts the
     * supplementary character last; {@code String.compareTo} puts it first, because its high surrogate
     * (0xD800..0xDBFF) is less than 0xE000. For example, the one-character string U+FFFD sorts before the
     * one-character string U+1F600 here, and after it with {@code String.compareTo}. Strings without characters in
     * U+E000..U+FFFF (e.g. all of ASCII, Latin, Greek, Cyrillic, CJK) or without supplementary characters sort
     * identically.
     *
     * <p><b>Unpaired surrogates.</b> A {@code char} in 0xD800..0xDFFF that is not part of a high-low surrogate
     * pair has no UTF-8 encoding; rather than replace it and lose data, {@code size} and {@code write} throw
     * {@link IllegalArgumentException} naming its index. {@code read} accepts only well-formed UTF-8 (no overlong
     * forms, no encoded surrogates, nothing above U+10FFFF) and names the offset of the first bad byte otherwise.
     */
    public static Serializer<String> strings() {
        return Utf8Serializer.INSTANCE;
    }
}
