package io.grove.internal.sorted;

import java.lang.foreign.MemorySegment;

/**
 * The key range of a view in the map's own (ascending) order: bounds as the user gave them and serialized.
 * A {@code null} bound is open.
 */
record Range<K>(K lo, boolean loInclusive, K hi, boolean hiInclusive, Key loKey, Key hiKey) {

    @SuppressWarnings("rawtypes")
    private static final Range ALL = new Range<>(null, false, null, false, null, null);

    @SuppressWarnings("unchecked")
    static <K> Range<K> all() {
        return ALL;
    }

    boolean isAll() {
        return loKey == null && hiKey == null;
    }

    boolean tooLow(Keys keys, MemorySegment probe, int length) {
        if (loKey == null) {
            return false;
        }
        int c = keys.compare(probe, length, loKey);
        return loInclusive ? c < 0 : c <= 0;
    }

    boolean tooHigh(Keys keys, MemorySegment probe, int length) {
        if (hiKey == null) {
            return false;
        }
        int c = keys.compare(probe, length, hiKey);
        return hiInclusive ? c > 0 : c >= 0;
    }

    boolean contains(Keys keys, Key key) {
        return !tooLow(keys, key.segment(), key.length()) && !tooHigh(keys, key.segment(), key.length());
    }

    /** Whether a sub-view may start at {@code key}: not below this range's lower bound. */
    boolean admitsLo(Keys keys, Key key, boolean inclusive) {
        if (loKey == null) {
            return true;
        }
        int c = keys.compareBounds(key, loKey);
        return c > 0 || (c == 0 && (loInclusive || !inclusive));
    }

    /** Whether a sub-view may end at {@code key}: not above this range's upper bound. */
    boolean admitsHi(Keys keys, Key key, boolean inclusive) {
        if (hiKey == null) {
            return true;
        }
        int c = keys.compareBounds(key, hiKey);
        return c < 0 || (c == 0 && (hiInclusive || !inclusive));
    }

    /** This range with a new lower bound (already checked to lie inside it). */
    Range<K> withLo(K key, boolean inclusive, Key serialized) {
        return new Range<>(key, inclusive, hi, hiInclusive, serialized, hiKey);
    }

    Range<K> withHi(K key, boolean inclusive, Key serialized) {
        return new Range<>(lo, loInclusive, key, inclusive, loKey, serialized);
    }
}
