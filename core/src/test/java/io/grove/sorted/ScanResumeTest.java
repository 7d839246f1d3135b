package io.grove.sorted;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A scan that finds its chunk replaced between two elements resumes where it was, in the situations that make the
 * resumption hard, driven step by step on one thread so that each happens for certain: the key returned last was
 * removed and the rebalance dropped its slice (a scan that keeps no copy of its keys cannot resume from it), and the
 * next key's value was replaced after the rebalance (the replaced chunk the scan reads holds a value that is gone,
 * yet the key is present and must be returned). Keys 0, 10, .., 150 are inserted in chunks of at most 16; after
 * three elements the test removes the third, inserts nine keys behind the scan, which rebalances the chunk, and
 * replaces the fourth's value by one of another size (a new slice). Every scan kind (the
 * zero-copy streams, which keep no key copies, and the iterators, which do) must then return exactly the keys
 * present throughout, in order.
 */
class ScanResumeTest {
    private static final long STEP = 10;
    private static final int KEYS = 16;

    enum Kind {
        KEY_STREAM(m -> keys(m.zc().keyStream().iterator(), h -> h)),
        ENTRY_STREAM(m -> keys(m.zc().entryStream().iterator(), Map.Entry::getKey)),
        ZC_KEY_SET(m -> keys(m.zc().keySet().iterator(), h -> h)),
        KEY_SET(m -> m.keySet().iterator()),
        DESCENDING_KEY_STREAM(m -> keys(m.zc().descendingMap().keyStream().iterator(), h -> h)),
        DESCENDING_ENTRY_STREAM(m -> keys(m.zc().descendingMap().entryStream().iterator(), Map.Entry::getKey)),
        DESCENDING_ZC_KEY_SET(m -> keys(m.zc().descendingMap().keySet().iterator(), h -> h)),
        DESCENDING_KEY_SET(m -> m.descendingKeySet().iterator());

        final Function<GroveSortedMap<Long, byte[]>, Iterator<Long>> scan;

        Kind(Function<GroveSortedMap<Long, byte[]>, Iterator<Long>> scan) {
            this.scan = scan;
        }

        boolean descending() {
            return name().startsWith("DESCENDING");
        }
    }

    /**
     * The keys of a zero-copy scan, each read as its element is taken (a stream's own iterator, with no operation
     * in between that could read ahead).
     */
    private static <T> Iterator<Long> keys(Iterator<T> elements, Function<T, Handle> key) {
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return elements.hasNext();
            }

            @Override
            public Long next() {
                return Serializers.longs().read(key.apply(elements.next()));
            }
        };
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void resumesAfterItsLastKeyWasDroppedAndTheNextValueReplaced(Kind kind) {
        check(kind, true);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void resumesAfterItsLastKeyWhenTheChunkSplit(Kind kind) {
        check(kind, false);
    }

    private static void check(Kind kind, boolean removeLast) {
        try (GroveSortedMap<Long, byte[]> map = GroveSortedMap.builder(Serializers.longs(), Serializers.bytes())
                .chunkSize(KEYS).memoryLimit(16L << 20).build()) {
            for (long k = 0; k < KEYS; k++) {
                map.put(k * STEP, new byte[1]);
            }
            boolean descending = kind.descending();
            Iterator<Long> scan = kind.scan.apply(map);
            List<Long> seen = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                seen.add(scan.next());
            }
            long last = seen.get(2);
            long next = descending ? last - STEP : last + STEP;
            if (removeLast) {
                map.remove(last);
            }
            long behind = descending ? last + 1 : last - STEP + 1; // nine keys the scan has passed: a split
            for (long k = behind; k < behind + STEP - 1; k++) {
                map.put(k, new byte[1]);
            }
            map.put(next, new byte[2]); // a value of another size: the value the replaced chunk holds is deleted
            scan.forEachRemaining(seen::add);

            List<Long> expected = new ArrayList<>();
            LongStream.range(0, KEYS).map(k -> descending ? (KEYS - 1 - k) * STEP : k * STEP)
                    .forEach(expected::add);
            if (removeLast) {
                expected.remove(last);
                seen.remove(last);
            }
            assertEquals(expected, seen, kind + ": the keys present throughout, in order");
        }
    }
}
