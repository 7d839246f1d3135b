package io.grove.hash.concurrent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * {@link HashMapOperations} in Lincheck's stress mode while a segment grows: the three keys and twelve filler keys
 * all land in the same segment of a map built with {@code expectedSize(1)} (16 slots per segment, doubled
 * when the count passes 12). Every invocation starts from a fresh map holding the twelve fillers, so the first
 * insert of a scenario's parallel part makes the segment grow (rehashes its entries into a slot array twice as
 * large and publishes it in one mutation) while the other threads read and update keys of that very segment.
 * Validation checks that the segment grew exactly when a key was inserted and counts the invocations in which it
 * grew, so that the test cannot pass without growth.
 *
 * <p>The keys are found with {@link Internals} (the map's own key hash and segment choice), not hard-coded, so the
 * test keeps aiming at one segment if the hash function changes.
 */
public class HashMapGrowthLincheckTest extends HashMapOperations {
    private static final int FILLERS = 12;
    private static final MemoryPool POOL = MemoryPool.builder().blockSize(1 << 20).memoryLimit(64L << 20).build();
    private static final AtomicReference<AutoCloseable> PREVIOUS = new AtomicReference<>();
    private static final long[] KEYS = new long[3];
    private static final Set<Long> FILLER_KEYS;
    private static final int SEGMENT;
    private static final AtomicLong GROWN = new AtomicLong();
    private static final AtomicLong VALIDATED = new AtomicLong();

    static {
        try (GroveHashMap<Long, Long> probe = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .expectedSize(1).pool(POOL).build()) {
            SEGMENT = Internals.segmentOfLongKey(probe, 1);
            List<Long> sameSegment = new ArrayList<>();
            for (long k = 1; sameSegment.size() < 3 + FILLERS; k++) {
                if (Internals.segmentOfLongKey(probe, k) == SEGMENT) {
                    sameSegment.add(k);
                }
            }
            for (int i = 0; i < 3; i++) {
                KEYS[i] = sameSegment.get(i);
            }
            FILLER_KEYS = Set.copyOf(new LinkedHashSet<>(sameSegment.subList(3, 3 + FILLERS)));
        }
    }

    public HashMapGrowthLincheckTest() {
        super(newMap());
    }

    private static GroveHashMap<Long, Long> newMap() {
        GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .expectedSize(1).pool(POOL).build();
        for (long filler : FILLER_KEYS) {
            map.put(filler, filler); // a filler maps to itself
        }
        if (Internals.slotBits(map, SEGMENT) != 4) {
            throw new AssertionError("the fillers alone grew the segment: the threshold is not what this test assumes");
        }
        return retirePrevious(PREVIOUS, map, map);
    }

    @Override
    protected long key(int k) {
        return KEYS[k - 1];
    }

    @Override
    protected Set<Long> fillers() {
        return FILLER_KEYS;
    }

    @Validate
    public void validate() {
        iterationAgreesWithLookups();
        boolean anyKey = false;
        for (int k = 1; k <= 3; k++) {
            anyKey |= map.containsKey(key(k));
        }
        int bits = Internals.slotBits(map, SEGMENT);
        if ((bits != 4 && bits != 5) || (anyKey && bits != 5)) {
            throw new AssertionError("segment " + SEGMENT + " has 2^" + bits + " slots with "
                    + Internals.count(map, SEGMENT) + " entries");
        }
        VALIDATED.incrementAndGet();
        if (bits == 5) {
            GROWN.incrementAndGet();
        }
    }

    @Test
    void stressWhileTheSegmentGrows() {
        new StressOptions().iterations(30).invocationsPerIteration(1_000).threads(3).actorsPerThread(4)
                .actorsBefore(0).actorsAfter(2).sequentialSpecification(SequentialMapSpec.class)
                .check(HashMapGrowthLincheckTest.class);
        assertTrue(GROWN.get() * 2 > VALIDATED.get(), "the segment grew in only " + GROWN + " of " + VALIDATED
                + " invocations");
    }
}
