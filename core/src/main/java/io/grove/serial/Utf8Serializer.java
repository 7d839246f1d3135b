package io.grove.serial;

import io.grove.view.ReadView;
import io.grove.view.WriteView;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * See {@link Serializers#strings()}. Encodes UTF-16 {@code char}s straight into the view; decodes by validating
 * the bytes strictly (the Unicode Standard, table 3-7 "Well-Formed UTF-8 Byte Sequences") and then letting the JDK's
 * optimized decoder build the string, which for well-formed input gives exactly the encoded characters.
 */
final class Utf8Serializer implements Serializer<String> {
    static final Utf8Serializer INSTANCE = new Utf8Serializer();

    private Utf8Serializer() {}

    @Override
    public int size(String value) {
        Objects.requireNonNull(value, "value");
        int length = value.length();
        long bytes = length; // one byte per char, plus the extra bytes of non-ASCII chars
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (c >= 0x80) {
                if (c < 0x800) {
                    bytes += 1;
                } else if (Character.isSurrogate(c)) {
                    checkPair(value, i);
                    bytes += 2; // 4 bytes for 2 chars
                    i++;
                } else {
                    bytes += 2;
                }
            }
        }
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("string encodes to " + bytes + " bytes of UTF-8, more than "
                    + Integer.MAX_VALUE);
        }
        return (int) bytes;
    }

    @Override
    public void write(String value, WriteView target) {
        Objects.requireNonNull(value, "value");
        int length = value.length();
        int at = 0;
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                target.putByte(at, (byte) c);
                at += 1;
            } else if (c < 0x800) {
                target.putShort(at, (short) (0xC080 | (c & 0x7C0) << 2 | (c & 0x3F)));
                at += 2;
            } else if (Character.isSurrogate(c)) {
                checkPair(value, i);
                int cp = Character.toCodePoint(c, value.charAt(++i));
                target.putInt(at, 0xF0808080
                        | (cp & 0x1C0000) << 6 | (cp & 0x3F000) << 4 | (cp & 0xFC0) << 2 | (cp & 0x3F));
                at += 4;
            } else {
                target.putShort(at, (short) (0xE080 | (c & 0xF000) >>> 4 | (c & 0xFC0) >>> 6));
                target.putByte(at + 2, (byte) (0x80 | (c & 0x3F)));
                at += 3;
            }
        }
    }

    /** Throws unless the surrogate at {@code i} is a high surrogate followed by a low one. */
    private static void checkPair(String value, int i) {
        char c = value.charAt(i);
        if (Character.isHighSurrogate(c) && i + 1 < value.length()
                && Character.isLowSurrogate(value.charAt(i + 1))) {
            return;
        }
        throw new IllegalArgumentException(String.format(
                "unpaired surrogate U+%04X at index %d of a string of length %d cannot be encoded as UTF-8",
                (int) c, i, value.length()));
    }

    @Override
    public String read(ReadView source) {
        byte[] bytes = source.toByteArray();
        validate(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Throws {@link IllegalArgumentException} at the first byte that makes {@code b} not well-formed UTF-8. */
    static void validate(byte[] b) {
        int n = b.length;
        int i = 0;
        while (i < n) {
            int lead = b[i] & 0xFF;
            if (lead < 0x80) {
                i++;
                continue;
            }
            int more; // continuation bytes after the lead byte
            int min = 0x80; // range of the first continuation byte; narrower after E0, ED, F0, F4
            int max = 0xBF;
            if (lead < 0xC0) {
                throw malformed(i, lead, "is a continuation byte without a lead byte");
            } else if (lead < 0xC2) {
                throw malformed(i, lead, "is not a valid lead byte (overlong encoding)");
            } else if (lead < 0xE0) {
                more = 1;
            } else if (lead < 0xF0) {
                more = 2;
                if (lead == 0xE0) {
                    min = 0xA0;
                } else if (lead == 0xED) {
                    max = 0x9F;
                }
            } else if (lead < 0xF5) {
                more = 3;
                if (lead == 0xF0) {
                    min = 0x90;
                } else if (lead == 0xF4) {
                    max = 0x8F;
                }
            } else {
                throw malformed(i, lead, "never occurs in UTF-8");
            }
            for (int k = 1; k <= more; k++) {
                int j = i + k;
                if (j >= n) {
                    throw new IllegalArgumentException("malformed UTF-8: the " + (more + 1)
                            + "-byte sequence at offset " + i + " is truncated by the end of the " + n + " bytes");
                }
                int c = b[j] & 0xFF;
                if (c < 0x80 || c > 0xBF) {
                    throw malformed(j, c, "is not a continuation byte");
                }
                if (k == 1 && (c < min || c > max)) {
                    throw malformed(j, c, switch (lead) {
                        case 0xE0, 0xF0 -> "after lead byte " + hex(lead) + " makes an overlong encoding";
                        case 0xED -> "after lead byte 0xED encodes a surrogate (U+D800..U+DFFF)";
                        default -> "after lead byte 0xF4 encodes a code point above U+10FFFF";
                    });
                }
            }
            i += more + 1;
        }
    }

    private static IllegalArgumentException malformed(int offset, int value, String what) {
        return new IllegalArgumentException("malformed UTF-8 at offset " + offset + ": byte " + hex(value) + " "
                + what);
    }

    private static String hex(int value) {
        return String.format("0x%02X", value);
    }

    @Override
    public String toString() {
        return "Serializers.strings()";
    }
}
