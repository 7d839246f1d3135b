package io.grove.internal.memory;

import java.util.Arrays;

/** A growable list of primitive longs, for the allocator's slow paths (no boxing). Not thread-safe. */
final class LongList {
    private long[] items = new long[64];
    private int size;

    void add(long value) {
        if (size == items.length) {
            items = Arrays.copyOf(items, size * 2);
        }
        items[size++] = value;
    }

    long get(int index) {
        return items[index];
    }

    int size() {
        return size;
    }

    void sort() {
        Arrays.sort(items, 0, size);
    }

    void clear() {
        size = 0;
    }
}
