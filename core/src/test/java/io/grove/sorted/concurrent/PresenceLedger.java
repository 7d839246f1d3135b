package io.grove.sorted.concurrent;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

/**
 * What the return values of a stress run's updates say about each key, for keys numbered {@code 0 .. keys-1}: how
 * many updates reported that they inserted the key (a {@code put} or {@code putIfAbsent} that returned
 * {@code null}, a zero-copy {@code putIfAbsent} or {@code putIfAbsentComputeIfPresent} that returned {@code true})
 * and how many reported that they removed it (a {@code remove} that returned a value, a zero-copy {@code remove}
 * that returned {@code true}).
 *
 * <p>The updates of one key are atomic, so they form one sequence in which insertions and removals alternate,
 * starting from absent: for every key, insertions minus removals is 0 or 1, and is exactly whether the key is in
 * the map once the run is over. An insertion lost (an entry linked into a chunk that a rebalance had already
 * copied, a link CAS that overwrote a neighbour's link), an entry duplicated (two inserts of the same key both
 * reporting success) or a removal that removed nothing breaks that equation for its key.
 */
final class PresenceLedger {
    private final AtomicIntegerArray inserted;
    private final AtomicIntegerArray removed;

    PresenceLedger(int keys) {
        this.inserted = new AtomicIntegerArray(keys);
        this.removed = new AtomicIntegerArray(keys);
    }

    int keys() {
        return inserted.length();
    }

    void inserted(int key) {
        inserted.incrementAndGet(key);
    }

    void removed(int key) {
        removed.incrementAndGet(key);
    }

    int insertions(int key) {
        return inserted.get(key);
    }

    int removals(int key) {
        return removed.get(key);
    }

    /**
     * After the run: checks each key's balance and that {@code present} agrees with it ({@code name} names a key in
     * messages); returns how many keys should be present.
     */
    int check(IntPredicate present, IntFunction<String> name, String what) {
        int expectedPresent = 0;
        StringBuilder errors = new StringBuilder();
        int errorCount = 0;
        for (int k = 0; k < keys(); k++) {
            int balance = inserted.get(k) - removed.get(k);
            boolean isPresent = present.test(k);
            if ((balance != 0 && balance != 1) || isPresent != (balance == 1)) {
                if (errorCount++ < 10) {
                    errors.append("\n  key ").append(name.apply(k)).append(": ").append(inserted.get(k))
                            .append(" insertions and ").append(removed.get(k)).append(" removals reported, ")
                            .append(isPresent ? "present" : "absent").append(" at the end");
                }
            }
            expectedPresent += balance == 1 ? 1 : 0;
        }
        if (errorCount > 0) {
            throw new AssertionError(what + ": " + errorCount + " keys disagree with what the updates reported"
                    + " (insertions minus removals must be 0 or 1 and equal the key's presence)" + errors
                    + (errorCount > 10 ? "\n  ..." : ""));
        }
        return expectedPresent;
    }
}
