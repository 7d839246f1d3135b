package io.grove.internal.sorted;

import io.grove.internal.view.SegmentView;
import io.grove.serial.Serializer;
import java.lang.foreign.MemorySegment;
import java.util.Comparator;

/**
 * The order of serialized keys. {@link #BYTES} compares them as unsigned byte strings (a shorter key that is a
 * prefix of a longer one comes first), which needs no deserialization; {@link #of(Comparator, Serializer)} applies
 * a user's comparator to deserialized keys.
 */
abstract sealed class KeyOrder {

    static final KeyOrder BYTES = new Bytes();

    static <K> KeyOrder of(Comparator<? super K> comparator, Serializer<K> serializer) {
        return comparator == null ? BYTES : new Deserializing<>(comparator, serializer);
    }

    /**
     * Compares {@code [aOffset, aOffset + aLength)} of {@code a} with {@code [bOffset, bOffset + bLength)} of
     * {@code b}.
     */
    abstract int compare(MemorySegment a, long aOffset, int aLength, MemorySegment b, long bOffset, int bLength);

    /** Compares two whole heap keys. */
    final int compare(Key a, Key b) {
        return compare(a.segment(), 0, a.length(), b.segment(), 0, b.length());
    }

    private static final class Bytes extends KeyOrder {
        @Override
        int compare(MemorySegment a, long aOffset, int aLength, MemorySegment b, long bOffset, int bLength) {
            long i = MemorySegment.mismatch(a, aOffset, aOffset + aLength, b, bOffset, bOffset + bLength);
            if (i < 0) {
                return 0;
            }
            if (i == aLength) {
                return -1;
            }
            if (i == bLength) {
                return 1;
            }
            return Integer.compare(a.get(java.lang.foreign.ValueLayout.JAVA_BYTE, aOffset + i) & 0xFF,
                    b.get(java.lang.foreign.ValueLayout.JAVA_BYTE, bOffset + i) & 0xFF);
        }
    }

    /** The slow path: every comparison deserializes both keys (through fresh views: it may run re-entrantly). */
    private static final class Deserializing<K> extends KeyOrder {
        private final Comparator<? super K> comparator;
        private final Serializer<K> serializer;

        Deserializing(Comparator<? super K> comparator, Serializer<K> serializer) {
            this.comparator = comparator;
            this.serializer = serializer;
        }

        @Override
        int compare(MemorySegment a, long aOffset, int aLength, MemorySegment b, long bOffset, int bLength) {
            return comparator.compare(read(a, aOffset, aLength), read(b, bOffset, bLength));
        }

        private K read(MemorySegment s, long offset, int length) {
            SegmentView view = new SegmentView().open(s, offset, length, false);
            try {
                return serializer.read(view);
            } finally {
                view.close();
            }
        }
    }
}
