package io.grove.sorted.concurrent;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.ChecksumStress;
import io.grove.testing.ChecksumStress.Order;
import io.grove.testing.ChecksumStress.Scan;
import io.grove.testing.StressRun;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Torn and misdirected reads ({@link ChecksumStress}) while chunks are rebalanced: the map has chunks of eight
 * entries, so chunks split, compact and merge all the time. Removed values go back to Nova and are reused by later
 * inserts at once, so a read that went through a stale entry or value reference (one a rebalance copied from a
 * chunk after the entry changed) and still returned would show another key's bytes or a broken checksum.
 *
 * <p>Readers: {@code get} (a copy, which is atomic with respect to every update including in-place ones) and
 * zero-copy handles, alternately; two iterators, each alternating ascending and descending iterations of the
 * entry set, which must return the permanent keys in order. The suite's own write: {@code zc().put}.
 */
class ChecksumStressTest {
    // at most 16 readers: with 78 virtual readers spinning on two carriers, the writers took 20 s
    private static final ChecksumStress.Sizes SIZES = new ChecksumStress.Sizes(60_000, 2_048, 2_048, 300_000, 2, 16, 2);

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void readersNeverSeeTornOrMisdirectedValues(StressRun.Threads threads) throws Exception {
        try (GroveSortedMap<Long, byte[]> map = GroveSortedMap.builder(Serializers.longs(), Serializers.bytes())
                .chunkSize(8).memoryLimit(64L << 20).build()) {
            new ChecksumStress(map, map.zc(), SIZES).run(threads, (index, n) -> ((index + n) & 1) == 1
                    ? new Scan("descending iterator", map.descendingMap().entrySet().iterator(), Order.DESCENDING)
                    : new Scan("iterator", map.entrySet().iterator(), Order.ASCENDING),
                    (k, fresh) -> map.zc().put(k, fresh));
        }
    }
}
