package io.grove.hash.concurrent;

import static io.grove.testing.Checksummed.check;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.testing.ChecksumStress;
import io.grove.testing.StressRun;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Torn and misdirected reads ({@link ChecksumStress}) while a growing key range makes the segments of an
 * {@code expectedSize(1)} map grow all the time. Removed values and entries go back to Nova and are reused by
 * later inserts at once, so a read that went through a stale reference or a half-moved chain and still returned
 * would show another key's bytes or a broken checksum. Every iteration must return all permanent keys, also while
 * their segments grow.
 *
 * <p>Readers: {@code get} on three reads of four, zero-copy handles on the fourth; one iterator over the entry set
 * (no key twice). The suite's own write: {@code replace(k, seen, fresh)} with a value just read, which fails and
 * changes nothing, because {@code byte[]} equality is identity.
 */
class ChecksumStressTest {
    private static final ChecksumStress.Sizes SIZES =
            new ChecksumStress.Sizes(100_000, 4_096, 4_096, 800_000, 1, Integer.MAX_VALUE, 4);

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void readersNeverSeeTornOrMisdirectedValues(StressRun.Threads threads) throws Exception {
        try (GroveHashMap<Long, byte[]> map = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
                .expectedSize(1).memoryLimit(64L << 20).build()) {
            ChecksumStress stress = new ChecksumStress(map, map.zc(), SIZES);
            int bitsBefore = Internals.totalSlotBits(map);
            stress.run(threads,
                    (index, n) -> new ChecksumStress.Scan("iterator", map.entrySet().iterator(),
                            ChecksumStress.Order.ANY),
                    (k, fresh) -> {
                        byte[] seen = map.get(k);
                        if (seen != null) {
                            check(k, seen, "get");
                            map.replace(k, seen, fresh); // byte[] equality is identity: this must fail
                        }
                    });
            int grown = Internals.totalSlotBits(map) - bitsBefore;
            if (grown < 2 * Internals.segmentCount(map)) {
                throw new AssertionError("vacuous run: slot bits grew by " + grown);
            }
        }
    }
}
