package io.grove.sorted;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.ZeroCopySortedMap;
import io.grove.serial.Serializer;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentNavigableMap;

/**
 * What {@link GroveSortedMapDifferentialTest} runs on: the key and value domains (how keys and values of one type
 * are made and changed), and the steps from a map to a view of it, applied alike to the map, to the model and to
 * the zero-copy map.
 */
final class SortedDifferentialFixtures {
    private SortedDifferentialFixtures() {}

    // ---- domains: how keys and values of one type are made and changed ---------------------------------------------

    /** Deterministic makers of keys and values of one type. */
    interface Domain<T> {
        String name();

        Serializer<T> serializer();

        /**
         * The key with this index, for {@code 0 <= index < GroveSortedMapDifferentialTest.KEY_SPACE}: a fixed key
         * space, so that keys repeat.
         */
        T key(int index);

        /** A range bound: a key of the key space, or (for indexes outside it) one below or above all of them. */
        T bound(int index);

        T value(SplittableRandom random);

        /** A changed value, usually of another serialized size. */
        T derive(T value, int salt);

        /** A changed value of the same serialized size. */
        T sameSize(T value, int salt);

        T combine(T a, T b);

        /** Reads a handle the way a zero-copy user would: through its accessors. */
        T readDirectly(Handle handle);
    }

    static final Domain<Integer> INTS = new Domain<>() {
        @Override
        public String name() {
            return "Integer";
        }

        @Override
        public Serializer<Integer> serializer() {
            return Serializers.ints();
        }

        @Override
        public Integer key(int index) {
            return index - 60; // negative keys too: the encoding flips the sign bit
        }

        @Override
        public Integer bound(int index) {
            return index - 60;
        }

        @Override
        public Integer value(SplittableRandom random) {
            return random.nextInt(10) == 0 ? random.nextInt() : random.nextInt(-8, 9);
        }

        @Override
        public Integer derive(Integer value, int salt) {
            return value * 31 + salt;
        }

        @Override
        public Integer sameSize(Integer value, int salt) {
            return value ^ (salt | 1);
        }

        @Override
        public Integer combine(Integer a, Integer b) {
            return a * 7 + b;
        }

        @Override
        public Integer readDirectly(Handle handle) {
            assertEquals(4, handle.size(), "an int is 4 bytes");
            return handle.getInt(0) ^ Integer.MIN_VALUE; // big-endian, sign bit flipped
        }
    };

    /**
     * Strings without characters in U+E000..U+FFFF, so that UTF-8 byte order (the map's) equals
     * {@code String.compareTo} (the model's); see {@link Serializers#strings()}.
     */
    static final Domain<String> STRINGS = new Domain<>() {
        private static final String[] PALETTE = {"a", "b", "z", "é", "ж", "中", "😀", " ", ",", "=", "{", "}"};

        @Override
        public String name() {
            return "String";
        }

        @Override
        public Serializer<String> serializer() {
            return Serializers.strings();
        }

        @Override
        public String key(int index) {
            return switch (index % 5) {
                case 0 -> index == 0 ? "" : "k" + index;
                case 1 -> "ключ" + index;
                case 2 -> "😀" + index;
                case 3 -> "a".repeat(index % 13) + index;
                default -> "k" + index + "~";
            };
        }

        @Override
        public String bound(int index) {
            if (index < 0) {
                return "";
            }
            return index < GroveSortedMapDifferentialTest.KEY_SPACE ? key(index) : "😀😀" + index;
        }

        @Override
        public String value(SplittableRandom random) {
            int kind = random.nextInt(20);
            if (kind < 12) {
                return "v" + random.nextInt(12);
            }
            if (kind == 12) {
                return "";
            }
            int length = kind == 13 ? random.nextInt(300, 3000) : random.nextInt(1, 60);
            StringBuilder s = new StringBuilder(length);
            for (int i = 0; i < length; i++) {
                s.append(PALETTE[random.nextInt(PALETTE.length)]);
            }
            return s.toString();
        }

        @Override
        public String derive(String value, int salt) {
            return (value.length() > 400 ? prefix(value, 7) : value) + salt;
        }

        @Override
        public String sameSize(String value, int salt) {
            StringBuilder s = new StringBuilder(value.length());
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                s.append(c >= 'a' && c <= 'z' ? (char) ('a' + (c - 'a' + salt) % 26) : c);
            }
            return s.toString();
        }

        /** At most {@code n} chars of {@code s}, never splitting a surrogate pair. */
        private static String prefix(String s, int n) {
            if (s.length() <= n) {
                return s;
            }
            return s.substring(0, Character.isHighSurrogate(s.charAt(n - 1)) ? n - 1 : n);
        }

        @Override
        public String combine(String a, String b) {
            return (a.length() > 400 ? prefix(a, 5) : a) + prefix(b, 9);
        }

        @Override
        public String readDirectly(Handle handle) {
            return new String(handle.toByteArray(), java.nio.charset.StandardCharsets.UTF_8);
        }
    };

    // ---- views: one description applied to the map, the model and the zero-copy map ------------------------------

    /** One step from a map to a view of it. Kinds: the seven ways {@code ConcurrentNavigableMap} derives a view. */
    record ViewStep<K>(int kind, K from, boolean fromInclusive, K to, boolean toInclusive) {
        static final int HEAD = 0, HEAD_INCL = 1, TAIL = 2, TAIL_INCL = 3, SUB = 4, SUB_INCL = 5, DESCENDING = 6;

        <V> ConcurrentNavigableMap<K, V> apply(ConcurrentNavigableMap<K, V> m) {
            return switch (kind) {
                case HEAD -> m.headMap(to);
                case HEAD_INCL -> m.headMap(to, toInclusive);
                case TAIL -> m.tailMap(from);
                case TAIL_INCL -> m.tailMap(from, fromInclusive);
                case SUB -> m.subMap(from, to);
                case SUB_INCL -> m.subMap(from, fromInclusive, to, toInclusive);
                default -> m.descendingMap();
            };
        }

        /** The same view of the zero-copy map (the one-argument forms with their {@code NavigableMap} defaults). */
        <V> ZeroCopySortedMap<K, V> apply(ZeroCopySortedMap<K, V> z) {
            return switch (kind) {
                case HEAD -> z.headMap(to, false);
                case HEAD_INCL -> z.headMap(to, toInclusive);
                case TAIL -> z.tailMap(from, true);
                case TAIL_INCL -> z.tailMap(from, fromInclusive);
                case SUB -> z.subMap(from, true, to, false);
                case SUB_INCL -> z.subMap(from, fromInclusive, to, toInclusive);
                default -> z.descendingMap();
            };
        }

        @Override
        public String toString() {
            return switch (kind) {
                case HEAD -> ".headMap(" + q(to) + ")";
                case HEAD_INCL -> ".headMap(" + q(to) + ", " + toInclusive + ")";
                case TAIL -> ".tailMap(" + q(from) + ")";
                case TAIL_INCL -> ".tailMap(" + q(from) + ", " + fromInclusive + ")";
                case SUB -> ".subMap(" + q(from) + ", " + q(to) + ")";
                case SUB_INCL -> ".subMap(" + q(from) + ", " + fromInclusive + ", " + q(to) + ", " + toInclusive + ")";
                default -> ".descendingMap()";
            };
        }

        private static String q(Object key) {
            return key instanceof String s ? '"' + s + '"' : String.valueOf(key);
        }
    }

}
