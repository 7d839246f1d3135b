package io.grove.serial;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.internal.view.SegmentView;
import io.grove.view.ReadView;
import io.grove.view.WriteView;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/** Round trips, order preservation and bad input of the ready-made {@link Serializers}. */
class SerializersTest {
    static final long SEED = Long.getLong("grove.seed", System.nanoTime());
    static final int PAIRS = 20_000;

    // ---- encoding helpers ----------------------------------------------------------------------------------

    /**
     * Encodes {@code value} into a view of exactly {@code size(value)} bytes, twice: once over zeros, once over
     * 0xFF. Equal results prove the serializer wrote every byte it declared (and the view that it wrote no more).
     */
    static <T> byte[] encode(Serializer<T> serializer, T value) {
        int size = serializer.size(value);
        byte[] zeros = encodeOver(serializer, value, size, (byte) 0);
        byte[] ones = encodeOver(serializer, value, size, (byte) 0xFF);
        assertArrayEquals(zeros, ones, serializer + " did not write all " + size + " bytes of " + value);
        return zeros;
    }

    private static <T> byte[] encodeOver(Serializer<T> serializer, T value, int size, byte background) {
        byte[] bytes = new byte[size];
        Arrays.fill(bytes, background);
        SegmentView view = new SegmentView().open(MemorySegment.ofArray(bytes), 0, size, true);
        serializer.write(value, view);
        view.close();
        return bytes;
    }

    static <T> T decode(Serializer<T> serializer, byte[] bytes) {
        SegmentView view = new SegmentView().open(MemorySegment.ofArray(bytes), 0, bytes.length, false);
        try {
            return serializer.read(view);
        } finally {
            view.close();
        }
    }

    static <T> void assertOrderPreserved(Serializer<T> serializer, Comparator<? super T> natural, T a, T b) {
        int expected = Integer.signum(natural.compare(a, b));
        int actual = Integer.signum(Arrays.compareUnsigned(encode(serializer, a), encode(serializer, b)));
        assertEquals(expected, actual, () -> serializer + " orders " + describe(a) + " and " + describe(b)
                + " differently from their natural order, seed " + SEED);
    }

    static String describe(Object value) {
        if (value instanceof byte[] bytes) {
            return Arrays.toString(bytes);
        }
        if (value instanceof String s) {
            return s.codePoints().mapToObj(cp -> String.format("U+%04X", cp)).toList().toString();
        }
        return String.valueOf(value);
    }

    /** Every pair from {@code edges}, then {@link #PAIRS} random pairs drawn from {@code random}. */
    static <T> void checkOrder(Serializer<T> serializer, Comparator<? super T> natural, List<T> edges,
            Function<Random, T> random) {
        for (T a : edges) {
            for (T b : edges) {
                assertOrderPreserved(serializer, natural, a, b);
            }
        }
        Random r = new Random(SEED);
        for (int i = 0; i < PAIRS; i++) {
            T a = random.apply(r);
            T b = r.nextInt(8) == 0 ? a : random.apply(r);
            assertOrderPreserved(serializer, natural, a, b);
            if (i % 4 == 0) {
                assertOrderPreserved(serializer, natural, a, edges.get(r.nextInt(edges.size())));
            }
        }
    }

    // ---- longs, ints, uuids --------------------------------------------------------------------------------

    static final List<Long> LONG_EDGES = List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, -256L, -255L, -1L, 0L, 1L,
            255L, 256L, (long) Integer.MAX_VALUE, Long.MAX_VALUE - 1, Long.MAX_VALUE);

    static long randomLong(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> r.nextLong();
            case 1 -> r.nextInt(1024) - 512;
            case 2 -> LONG_EDGES.get(r.nextInt(LONG_EDGES.size())) + r.nextInt(3) - 1;
            default -> r.nextLong() >> r.nextInt(64);
        };
    }

    @Test
    void longsRoundTripAndPreserveOrder() {
        Serializer<Long> longs = Serializers.longs();
        for (long value : LONG_EDGES) {
            byte[] bytes = encode(longs, value);
            assertEquals(8, bytes.length);
            assertEquals(value, decode(longs, bytes));
        }
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 0}, encode(longs, Long.MIN_VALUE));
        assertArrayEquals(new byte[] {(byte) 0x80, 0, 0, 0, 0, 0, 0, 1}, encode(longs, 1L));
        checkOrder(longs, Comparator.naturalOrder(), LONG_EDGES, SerializersTest::randomLong);
    }

    @Test
    void intsRoundTripAndPreserveOrder() {
        Serializer<Integer> ints = Serializers.ints();
        List<Integer> edges = List.of(Integer.MIN_VALUE, Integer.MIN_VALUE + 1, -65536, -1, 0, 1, 127, 128, 65535,
                Integer.MAX_VALUE - 1, Integer.MAX_VALUE);
        for (int value : edges) {
            byte[] bytes = encode(ints, value);
            assertEquals(4, bytes.length);
            assertEquals(value, decode(ints, bytes));
        }
        assertArrayEquals(new byte[] {(byte) 0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF}, encode(ints, -1));
        checkOrder(ints, Comparator.naturalOrder(), edges, r -> (int) randomLong(r));
    }

    @Test
    void uuidCompareToIsSignedOnThisJdk() {
        // The encoding relies on this: UUID.compareTo compares each half as a signed long (still so on JDK 25).
        UUID negative = new UUID(-1L, 0L); // most significant bit set: ffffffff-ffff-ffff-...
        UUID positive = new UUID(1L, 0L);
        assertTrue(negative.compareTo(positive) < 0);
        assertTrue(new UUID(0L, -1L).compareTo(new UUID(0L, 1L)) < 0);
    }

    @Test
    void uuidsRoundTripAndPreserveOrder() {
        Serializer<UUID> uuids = Serializers.uuids();
        List<UUID> edges = new ArrayList<>();
        for (long most : List.of(Long.MIN_VALUE, -1L, 0L, 1L, Long.MAX_VALUE)) {
            for (long least : List.of(Long.MIN_VALUE, -1L, 0L, 1L, Long.MAX_VALUE)) {
                edges.add(new UUID(most, least));
            }
        }
        Random r = new Random(SEED);
        for (int i = 0; i < 20; i++) {
            edges.add(UUID.nameUUIDFromBytes(new byte[] {(byte) i}));
            edges.add(new UUID(r.nextLong(), r.nextLong()));
        }
        for (UUID value : edges) {
            byte[] bytes = encode(uuids, value);
            assertEquals(16, bytes.length);
            assertEquals(value, decode(uuids, bytes));
        }
        checkOrder(uuids, Comparator.naturalOrder(), edges,
                rr -> new UUID(rr.nextInt(3) == 0 ? rr.nextInt(3) - 1 : randomLong(rr), randomLong(rr)));
    }

    // ---- byte arrays ---------------------------------------------------------------------------------------

    static byte[] randomBytes(Random r) {
        byte[] bytes = new byte[r.nextInt(7)];
        byte[] alphabet = {0, 1, 0x7F, (byte) 0x80, (byte) 0xFF};
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = r.nextBoolean() ? alphabet[r.nextInt(alphabet.length)] : (byte) r.nextInt();
        }
        return bytes;
    }

    @Test
    void byteArraysRoundTripAndPreserveOrder() {
        Serializer<byte[]> bytes = Serializers.bytes();
        List<byte[]> edges = List.of(new byte[0], new byte[] {0}, new byte[] {0, 0}, new byte[] {1},
                new byte[] {(byte) 0x7F}, new byte[] {(byte) 0x80}, new byte[] {(byte) 0xFF},
                new byte[] {(byte) 0xFF, 0}, new byte[300]);
        for (byte[] value : edges) {
            byte[] encoded = encode(bytes, value);
            assertArrayEquals(value, encoded);
            byte[] decoded = decode(bytes, encoded);
            assertArrayEquals(value, decoded);
            assertTrue(decoded != encoded, "read returns a new array");
        }
        checkOrder(bytes, Arrays::compareUnsigned, edges, SerializersTest::randomBytes);
    }

    // ---- strings -------------------------------------------------------------------------------------------

    /** Code points around every UTF-8 length boundary and the surrogate and U+E000..U+FFFF ranges. */
    static final int[] CODE_POINTS = {0, 'A', 'z', 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x4E2D, 0xD7FF, 0xE000, 0xFFFD,
        0xFFFF, 0x10000, 0x1F600, 0x10FFFF};

    static String randomString(Random r) {
        StringBuilder s = new StringBuilder();
        for (int n = r.nextInt(6); n > 0; n--) {
            s.appendCodePoint(r.nextBoolean() ? CODE_POINTS[r.nextInt(CODE_POINTS.length)] : randomCodePoint(r));
        }
        return s.toString();
    }

    static int randomCodePoint(Random r) {
        int cp = switch (r.nextInt(4)) {
            case 0 -> r.nextInt(0x80);
            case 1 -> r.nextInt(0x800);
            case 2 -> r.nextInt(0x10000);
            default -> r.nextInt(Character.MAX_CODE_POINT + 1);
        };
        return Character.isSurrogate((char) cp) && cp < 0x10000 ? 'x' : cp;
    }

    static int compareCodePoints(String a, String b) {
        return Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray());
    }

    static final List<String> STRING_EDGES = List.of("", "\0", "a", "ab", "a\0", "\u00E9", "\u07FF", "\u0800",
            "\u4E2D\u6587", "\uD7FF", "\uE000", "\uFFFD", "\uFFFF", "\uD800\uDC00", "\uD83D\uDE00", "\uDBFF\uDFFF",
            "x\uD83D\uDE00y", "\uFFFF\uD800\uDC00");

    @Test
    void stringsAreStandardUtf8AndRoundTrip() {
        Serializer<String> strings = Serializers.strings();
        List<String> values = new ArrayList<>(STRING_EDGES);
        Random r = new Random(SEED);
        for (int i = 0; i < 2_000; i++) {
            values.add(randomString(r));
        }
        StringBuilder longString = new StringBuilder();
        while (longString.length() < 20_000) {
            longString.appendCodePoint(randomCodePoint(r));
        }
        values.add(longString.toString());
        for (String value : values) {
            byte[] bytes = encode(strings, value);
            assertArrayEquals(value.getBytes(StandardCharsets.UTF_8), bytes, () -> describe(value) + ", seed " + SEED);
            assertEquals(value, decode(strings, bytes), () -> describe(value) + ", seed " + SEED);
        }
    }

    @Test
    void stringsPreserveCodePointOrder() {
        checkOrder(Serializers.strings(), SerializersTest::compareCodePoints, STRING_EDGES,
                SerializersTest::randomString);
    }

    @Test
    void stringOrderDiffersFromCompareToExactlyAsDocumented() {
        Serializer<String> strings = Serializers.strings();
        // The documented example: U+FFFD before U+1F600 in bytes, after it with String.compareTo.
        String replacement = "\uFFFD";
        String emoji = "\uD83D\uDE00";
        assertTrue(Arrays.compareUnsigned(encode(strings, replacement), encode(strings, emoji)) < 0);
        assertTrue(replacement.compareTo(emoji) > 0);

        Random r = new Random(SEED);
        int differing = 0;
        for (int i = 0; i < PAIRS; i++) {
            String a = randomString(r);
            String b = randomString(r);
            int bytes = Integer.signum(Arrays.compareUnsigned(encode(strings, a), encode(strings, b)));
            boolean documentedCase = supplementaryMeetsUpperBmp(a, b);
            assertEquals(!documentedCase, bytes == Integer.signum(a.compareTo(b)),
                    () -> describe(a) + " vs " + describe(b) + ", seed " + SEED);
            differing += documentedCase ? 1 : 0;
        }
        assertTrue(differing > 0, "the random strings never hit the documented case, seed " + SEED);
    }

    /** At the first differing code point, one is supplementary and the other in U+E000..U+FFFF. */
    static boolean supplementaryMeetsUpperBmp(String a, String b) {
        int[] x = a.codePoints().toArray();
        int[] y = b.codePoints().toArray();
        int i = Arrays.mismatch(x, y);
        if (i < 0 || i >= x.length || i >= y.length) {
            return false;
        }
        return (x[i] >= 0x10000 && y[i] >= 0xE000 && y[i] <= 0xFFFF)
                || (y[i] >= 0x10000 && x[i] >= 0xE000 && x[i] <= 0xFFFF);
    }

    @Test
    void unpairedSurrogatesAreRejectedWithTheirIndex() {
        Serializer<String> strings = Serializers.strings();
        String[] values = {"\uD800", "a\uD800", "\uDC00", "ab\uDFFFc", "\uD800a", "\uDC00\uD800", "\uD83D\uDE00\uDE00"};
        int[] indexes = {0, 1, 0, 2, 0, 0, 2};
        for (int i = 0; i < values.length; i++) {
            String value = values[i];
            String expected = String.format("unpaired surrogate U+%04X at index %d", (int) value.charAt(indexes[i]),
                    indexes[i]);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> strings.size(value));
            assertTrue(e.getMessage().startsWith(expected), e.getMessage());
            byte[] target = new byte[4 * value.length()];
            SegmentView view = new SegmentView().open(MemorySegment.ofArray(target), 0, target.length, true);
            e = assertThrows(IllegalArgumentException.class, () -> strings.write(value, view));
            assertTrue(e.getMessage().startsWith(expected), e.getMessage());
        }
    }

    @Test
    void malformedUtf8IsRejectedWithTheOffendingOffset() {
        Object[][] cases = {
            {new byte[] {(byte) 0x80}, "at offset 0: byte 0x80 is a continuation byte without a lead byte"},
            {new byte[] {'a', (byte) 0xBF}, "at offset 1: byte 0xBF is a continuation byte"},
            {new byte[] {(byte) 0xC0, (byte) 0x80}, "at offset 0: byte 0xC0 is not a valid lead byte (overlong"},
            {new byte[] {(byte) 0xC1, (byte) 0xBF}, "at offset 0: byte 0xC1 is not a valid lead byte (overlong"},
            {new byte[] {(byte) 0xE0, (byte) 0x9F, (byte) 0xBF}, "at offset 1: byte 0x9F after lead byte 0xE0"},
            {new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, "at offset 1: byte 0xA0 after lead byte 0xED encodes"},
            {new byte[] {(byte) 0xF0, (byte) 0x8F, (byte) 0xBF, (byte) 0xBF}, "at offset 1: byte 0x8F after lead"},
            {new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, "above U+10FFFF"},
            {new byte[] {(byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80}, "byte 0xF5 never occurs in UTF-8"},
            {new byte[] {(byte) 0xFF}, "at offset 0: byte 0xFF never occurs"},
            {new byte[] {(byte) 0xC3}, "the 2-byte sequence at offset 0 is truncated by the end of the 1 bytes"},
            {new byte[] {'a', (byte) 0xE2, (byte) 0x82}, "the 3-byte sequence at offset 1 is truncated"},
            {new byte[] {(byte) 0xC3, 'A'}, "at offset 1: byte 0x41 is not a continuation byte"},
            {new byte[] {(byte) 0xE2, (byte) 0x82, (byte) 0xC3}, "at offset 2: byte 0xC3 is not a continuation"},
        };
        for (Object[] c : cases) {
            byte[] bytes = (byte[]) c[0];
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> decode(Serializers.strings(), bytes));
            assertTrue(e.getMessage().startsWith("malformed UTF-8"), e.getMessage());
            assertTrue(e.getMessage().contains((String) c[1]), e.getMessage() + " should contain " + c[1]);
        }
    }

    @Test
    void utf8ValidationAgreesWithTheJdkDecoder() {
        Random r = new Random(SEED);
        for (int i = 0; i < PAIRS; i++) {
            byte[] bytes = new byte[r.nextInt(8)];
            for (int j = 0; j < bytes.length; j++) {
                bytes[j] = (byte) (r.nextBoolean() ? 0x80 + r.nextInt(0x80) : r.nextInt(256));
            }
            String strict;
            try {
                strict = StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(bytes)).toString();
            } catch (CharacterCodingException e) {
                strict = null;
            }
            String where = Arrays.toString(bytes) + ", seed " + SEED;
            if (strict == null) {
                assertThrows(IllegalArgumentException.class, () -> decode(Serializers.strings(), bytes), where);
            } else {
                assertEquals(strict, decode(Serializers.strings(), bytes), where);
            }
        }
    }

    // ---- common contract -----------------------------------------------------------------------------------

    record Named<T>(Serializer<T> serializer, String name, T sample) {}

    static List<Named<?>> all() {
        return List.of(
                new Named<>(Serializers.longs(), "Serializers.longs()", 42L),
                new Named<>(Serializers.ints(), "Serializers.ints()", 42),
                new Named<>(Serializers.uuids(), "Serializers.uuids()", new UUID(1, 2)),
                new Named<>(Serializers.bytes(), "Serializers.bytes()", new byte[] {1, 2}),
                new Named<>(Serializers.strings(), "Serializers.strings()", "grove"));
    }

    @Test
    void serializersAreNamedSingletons() {
        assertSame(Serializers.longs(), Serializers.longs());
        assertSame(Serializers.ints(), Serializers.ints());
        assertSame(Serializers.uuids(), Serializers.uuids());
        assertSame(Serializers.bytes(), Serializers.bytes());
        assertSame(Serializers.strings(), Serializers.strings());
        for (Named<?> n : all()) {
            assertEquals(n.name(), n.serializer().toString());
        }
    }

    @Test
    void nullValuesThrowNullPointerException() {
        byte[] target = new byte[16];
        SegmentView view = new SegmentView().open(MemorySegment.ofArray(target), 0, target.length, true);
        for (Named<?> n : all()) {
            @SuppressWarnings("unchecked")
            Serializer<Object> s = (Serializer<Object>) n.serializer();
            assertThrows(NullPointerException.class, () -> s.size(null), n.name());
            assertThrows(NullPointerException.class, () -> s.write(null, view), n.name());
            assertThrows(NullPointerException.class, () -> s.read(null), n.name());
        }
        assertArrayEquals(new byte[16], target);
    }

    @Test
    void fixedSizeReadsRejectTheWrongSize() {
        Object[][] cases = {{Serializers.longs(), 8}, {Serializers.ints(), 4}, {Serializers.uuids(), 16}};
        for (Object[] c : cases) {
            Serializer<?> s = (Serializer<?>) c[0];
            int size = (Integer) c[1];
            for (int wrong : new int[] {0, 1, size - 1, size + 1, 2 * size}) {
                IllegalArgumentException e =
                        assertThrows(IllegalArgumentException.class, () -> decode(s, new byte[wrong]));
                assertEquals(s + " reads exactly " + size + " bytes, but the view holds " + wrong, e.getMessage());
            }
        }
    }

    @Test
    void serializersWorkOverOffHeapViews() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(64);
            SegmentView view = new SegmentView();
            for (Named<?> n : all()) {
                @SuppressWarnings("unchecked")
                Serializer<Object> s = (Serializer<Object>) n.serializer();
                int size = s.size(n.sample());
                s.write(n.sample(), view.open(segment, 7, size, true));
                view.close();
                ReadView readOnly = view.open(segment, 7, size, false);
                Object back = s.read(readOnly);
                view.close();
                if (back instanceof byte[] bytes) {
                    assertArrayEquals((byte[]) n.sample(), bytes);
                } else {
                    assertEquals(n.sample(), back);
                }
            }
        }
    }

    @Test
    void aSerializerWritingPastItsSizeHitsTheViewBound() {
        Serializer<Long> liar = new Serializer<>() {
            @Override
            public int size(Long value) {
                return Long.BYTES;
            }

            @Override
            public void write(Long value, WriteView target) {
                target.putLong(0, value).putByte(Long.BYTES, (byte) 1); // one byte more than declared
            }

            @Override
            public Long read(ReadView source) {
                return source.getLong(0);
            }
        };
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(32);
            SegmentView view = new SegmentView().open(segment, 8, liar.size(7L), true);
            IndexOutOfBoundsException e =
                    assertThrows(IndexOutOfBoundsException.class, () -> liar.write(7L, view));
            assertEquals("index 8, length 1 out of bounds for view of size 8", e.getMessage());
            assertEquals(0, segment.get(ValueLayout.JAVA_BYTE, 16), "the byte after the view is untouched");
        }
    }

    @Test
    void sizeMatchesBytesWrittenForEverySerializer() {
        // encode() writes into a view of exactly size(value) bytes over two backgrounds: it fails if a serializer
        // writes more (IndexOutOfBoundsException) or fewer (the backgrounds show through) bytes than declared.
        for (Named<?> n : all()) {
            @SuppressWarnings("unchecked")
            Serializer<Object> s = (Serializer<Object>) n.serializer();
            assertEquals(s.size(n.sample()), encode(s, n.sample()).length);
        }
        ToIntFunction<String> size = Serializers.strings()::size;
        assertEquals(0, size.applyAsInt(""));
        assertEquals(1 + 2 + 3 + 4, size.applyAsInt("a\u00E9\u4E2D\uD83D\uDE00"));
    }
}
