package io.grove.sorted.concurrent;

import io.grove.testing.StressRun;
import java.util.function.LongPredicate;

/**
 * The checks every scan of a map with {@code long} keys makes, key by key, in the stress tests that scan views
 * ({@link ViewWriteStressTest}, {@link MemoryLimitStressTest}): each key lies inside the scan's range and follows
 * the previous one strictly in the scan's direction, so no key comes twice. Lets other threads run now and then
 * ({@link StressRun#letOthersRun}).
 */
final class OrderedLongScan {
    private final String what;
    private final int direction;
    private final LongPredicate inRange;
    private long previous;
    private long count;

    /** A scan described by {@code what}, descending or not, of the keys {@code inRange} accepts. */
    OrderedLongScan(String what, boolean descending, LongPredicate inRange) {
        this.what = what;
        this.direction = descending ? -1 : 1;
        this.inRange = inRange;
    }

    /** Checks the scan's next key. */
    void next(long key) {
        if (count > 0 && Long.compare(key, previous) != direction) {
            throw new AssertionError(what + " returned " + key + " after " + previous + " (" + count
                    + " keys into the scan)" + (key == previous ? ": a duplicate" : ": out of order"));
        }
        if (!inRange.test(key)) {
            throw new AssertionError(what + " returned " + key + ", outside its range (" + count
                    + " keys into the scan)");
        }
        previous = key;
        StressRun.letOthersRun(++count);
    }

    /** The number of keys checked so far. */
    long count() {
        return count;
    }
}
