package io.grove.testing;

import java.util.Arrays;

/**
 * Growable primitive collections for {@link LinearizabilityGraph}, whose graphs of hundreds of thousands of
 * operations and millions of edges would cost an object per element in the JDK's boxed collections.
 */
final class Primitives {
    private Primitives() {}

    /** A growable array of {@code int}s. */
    static final class IntList {
        private int[] items;
        private int size;

        IntList(int capacity) {
            items = new int[Math.max(4, capacity)];
        }

        void add(int value) {
            if (size == items.length) {
                items = Arrays.copyOf(items, 2 * size);
            }
            items[size++] = value;
        }

        int get(int i) {
            return items[i];
        }

        int size() {
            return size;
        }

        void clear() {
            size = 0;
        }

        int[] toArray() {
            return Arrays.copyOf(items, size);
        }
    }

    /** A growable array of {@code long}s. */
    static final class LongList {
        private long[] items;
        private int size;

        LongList(int capacity) {
            items = new long[Math.max(4, capacity)];
        }

        void add(long value) {
            if (size == items.length) {
                items = Arrays.copyOf(items, 2 * size);
            }
            items[size++] = value;
        }

        long get(int i) {
            return items[i];
        }

        int size() {
            return size;
        }
    }

    /**
     * A map from {@code long} to non-negative {@code int} by open addressing with linear probing; the key
     * {@link Long#MIN_VALUE} marks an empty slot and cannot be stored.
     */
    static final class LongIntMap {
        private static final long EMPTY = Long.MIN_VALUE;

        private long[] keys;
        private int[] values;
        private int size;
        private int shift;

        LongIntMap(int expected) {
            int capacity = Integer.highestOneBit(Math.max(16, expected) * 2 - 1) << 1;
            allocate(capacity);
        }

        private void allocate(int capacity) {
            keys = new long[capacity];
            Arrays.fill(keys, EMPTY);
            values = new int[capacity];
            shift = Long.numberOfLeadingZeros(capacity - 1L);
        }

        private int slot(long key) {
            return (int) ((key * 0x9E3779B97F4A7C15L) >>> shift);
        }

        /** The value of {@code key}, or -1. */
        int get(long key) {
            int mask = keys.length - 1;
            for (int i = slot(key); ; i = (i + 1) & mask) {
                if (keys[i] == key) {
                    return values[i];
                }
                if (keys[i] == EMPTY) {
                    return -1;
                }
            }
        }

        /** Maps {@code key} to {@code value} unless it is mapped already; returns the value it had, or -1. */
        int putIfAbsent(long key, int value) {
            if (key == EMPTY) {
                throw new IllegalArgumentException("the key " + EMPTY + " marks empty slots");
            }
            int mask = keys.length - 1;
            for (int i = slot(key); ; i = (i + 1) & mask) {
                if (keys[i] == key) {
                    return values[i];
                }
                if (keys[i] == EMPTY) {
                    keys[i] = key;
                    values[i] = value;
                    if (++size * 2 > keys.length) {
                        grow();
                    }
                    return -1;
                }
            }
        }

        private void grow() {
            long[] oldKeys = keys;
            int[] oldValues = values;
            allocate(2 * oldKeys.length);
            int mask = keys.length - 1;
            for (int j = 0; j < oldKeys.length; j++) {
                if (oldKeys[j] != EMPTY) {
                    int i = slot(oldKeys[j]);
                    while (keys[i] != EMPTY) {
                        i = (i + 1) & mask;
                    }
                    keys[i] = oldKeys[j];
                    values[i] = oldValues[j];
                }
            }
        }
    }
}
