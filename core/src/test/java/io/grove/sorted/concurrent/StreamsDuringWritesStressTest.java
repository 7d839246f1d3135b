package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.ZeroCopySortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import io.grove.view.Handle;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Streams over every view of a sorted map while writers put and remove keys: {@code toArray}, {@code count},
 * {@code collect}, sequential and parallel, over the key sets (ascending, navigable, descending, of range views
 * and of their sub-sets), the values, the entry sets, and the zero-copy collections and streams. A view's stream
 * must not claim a fixed size (the default {@code Collection.spliterator()} does, and {@code toArray} then throws
 * "Accept exceeded fixed size" when the view grew meanwhile); its keys come out in the view's order, without
 * duplicates, each within the view's range; values are never null.
 */
class StreamsDuringWritesStressTest {
    private static final int KEYS = 2_000;
    private static final long WRITES = 40_000;
    private static final int MIN_STREAMS_PER_SCANNER = 64;

    enum Kind { KEYS, NAVIGABLE_KEYS, DESCENDING_KEYS, SUB_MAP_KEYS, DESCENDING_SUB_MAP_KEYS, KEY_SUB_SET, VALUES,
        SUB_MAP_VALUES, ENTRIES, DESCENDING_HEAD_MAP_ENTRIES, ZC_KEYS, ZC_VALUES, ZC_ENTRIES, ZC_KEY_STREAM,
        ZC_VALUE_STREAM, ZC_ENTRY_STREAM }

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void streamsOverEveryViewWorkDuringWrites(StressRun.Threads threads) throws Exception {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(64).build()) {
            for (long k = 0; k < KEYS; k += 2) {
                map.put(k, k);
            }
            StressRun run = new StressRun();
            ScansDuringWrites<Kind> scans = new ScansDuringWrites<>(run, threads, "streams", 77, map, Kind.class);
            scans.writers(WRITES, (writer, random, i) -> {
                long k = random.nextLong(KEYS);
                if (random.nextBoolean()) {
                    map.put(k, k);
                } else {
                    map.remove(k);
                }
                return 1;
            });
            scans.scanners(MIN_STREAMS_PER_SCANNER, (scanner, n, random) -> {
                Kind kind = scans.cycledKind(scanner, n);
                if (Thread.currentThread().isVirtual()) {
                    // a whole stream is a long CPU-bound step: let the virtual writers have the carriers now and
                    // then (StressRun.letOthersRun parks only every 256 steps)
                    LockSupport.parkNanos(1_000);
                }
                return new ScansDuringWrites.Scan<>(kind, () -> stream(map, kind, random));
            });
            run.runAndCheck("streams during writes with " + threads, () -> "writes " + scans.writes.get()
                    + ", streams " + scans.scansPerKind + ", elements " + scans.keysReturned.get());
            scans.checkEveryKindScanned("streams during writes with " + threads);
            assertTrue(scans.keysReturned.get() > 0, "the streams returned nothing");
        }
    }

    /** One stream over the view of {@code kind}, by a terminal operation chosen at random; checked. */
    private static long stream(GroveSortedMap<Long, Long> map, Kind kind, SplittableRandom random) {
        long lo = random.nextLong(KEYS);
        long hi = lo + random.nextLong(KEYS / 4);
        return switch (kind) {
            case KEYS -> keys(map.keySet(), map.comparator(), Long.MIN_VALUE, Long.MAX_VALUE, random);
            case NAVIGABLE_KEYS -> keys(map.navigableKeySet(), map.comparator(), Long.MIN_VALUE, Long.MAX_VALUE,
                    random);
            case DESCENDING_KEYS -> keys(map.descendingKeySet(), map.descendingMap().comparator(), Long.MIN_VALUE,
                    Long.MAX_VALUE, random);
            case SUB_MAP_KEYS -> {
                ConcurrentNavigableMap<Long, Long> sub = map.subMap(lo, true, hi, false);
                yield keys(sub.keySet(), sub.comparator(), lo, hi - 1, random);
            }
            case DESCENDING_SUB_MAP_KEYS -> {
                ConcurrentNavigableMap<Long, Long> sub = map.descendingMap().subMap(hi, true, lo, false);
                yield keys(sub.navigableKeySet(), sub.comparator(), lo + 1, hi, random);
            }
            case KEY_SUB_SET -> keys(map.keySet().tailSet(lo, true).headSet(hi, true), map.comparator(), lo, hi,
                    random);
            case VALUES -> values(map.values(), random);
            case SUB_MAP_VALUES -> values(map.subMap(lo, hi).values(), random);
            case ENTRIES -> entries(map.entrySet(), map.comparator(), random);
            case DESCENDING_HEAD_MAP_ENTRIES -> {
                ConcurrentNavigableMap<Long, Long> down = map.headMap(hi, true).descendingMap();
                yield entries(down.entrySet(), down.comparator(), random);
            }
            case ZC_KEYS -> handles(map.zc().keySet().stream(), random);
            case ZC_VALUES -> handles(zcRange(map, lo, hi).values().stream(), random);
            case ZC_ENTRIES -> handles(map.zc().descendingMap().entrySet().stream().map(Map.Entry::getKey), random);
            case ZC_KEY_STREAM -> reusedHandles(zcRange(map, lo, hi).keyStream(), random);
            case ZC_VALUE_STREAM -> reusedHandles(map.zc().valueStream(), random);
            case ZC_ENTRY_STREAM -> reusedHandles(map.zc().descendingMap().entryStream().map(Map.Entry::getValue),
                    random);
        };
    }

    private static ZeroCopySortedMap<Long, Long> zcRange(GroveSortedMap<Long, Long> map, long lo, long hi) {
        return map.zc().subMap(lo, true, hi, true);
    }

    /** Streams the keys: in the view's order, distinct, within {@code [min, max]}. */
    private static long keys(Collection<Long> view, Comparator<? super Long> order, long min, long max,
            SplittableRandom random) {
        return terminal(view.stream(), random, keys -> {
            for (int i = 0; i < keys.size(); i++) {
                long k = keys.get(i);
                int at = i;
                assertTrue(k >= min && k <= max, () -> k + " outside the view [" + min + ", " + max + "]");
                assertTrue(i == 0 || order.compare(keys.get(i - 1), k) < 0, () -> "out of order or repeated: "
                        + keys.get(at - 1) + " then " + k);
            }
        });
    }

    private static long values(Collection<Long> view, SplittableRandom random) {
        return terminal(view.stream(), random, values -> {
            for (Long v : values) {
                assertTrue(v != null && v >= 0 && v < KEYS, "value " + v);
            }
        });
    }

    private static long entries(Collection<Map.Entry<Long, Long>> view, Comparator<? super Long> order,
            SplittableRandom random) {
        return terminal(view.stream(), random, entries -> {
            for (int i = 0; i < entries.size(); i++) {
                Map.Entry<Long, Long> e = entries.get(i);
                int at = i;
                assertTrue(e.getKey().equals(e.getValue()), () -> "entry " + e);
                assertTrue(i == 0 || order.compare(entries.get(i - 1).getKey(), e.getKey()) < 0,
                        () -> "out of order or repeated: " + entries.get(at - 1) + " then " + e);
            }
        });
    }

    /** Handles each its own: each reads an 8-byte key or value (or has ended with its entry meanwhile). */
    private static long handles(Stream<Handle> stream, SplittableRandom random) {
        return terminal(stream, random, handles -> handles.forEach(StreamsDuringWritesStressTest::checkHandle));
    }

    /** A stream that points one handle at element after element: each is read while it is current. */
    private static long reusedHandles(Stream<Handle> stream, SplittableRandom random) {
        return (random.nextBoolean() ? stream.parallel() : stream).peek(StreamsDuringWritesStressTest::checkHandle)
                .count();
    }

    private static void checkHandle(Handle h) {
        try {
            assertTrue(h.size() == 8, "a handle on " + h.size() + " bytes");
        } catch (ConcurrentModificationException endedWithItsEntry) {
            // the entry was removed, or its value replaced, after the scan reached it
        }
    }

    /**
     * A terminal operation chosen at random, sequential or parallel: {@code toArray} or {@code collect}, whose
     * elements {@code check} checks in order, or {@code count}. Returns the number of elements.
     */
    private static <T> long terminal(Stream<T> stream, SplittableRandom random, Consumer<List<T>> check) {
        Stream<T> s = random.nextBoolean() ? stream.parallel() : stream;
        List<T> elements;
        switch (random.nextInt(3)) {
            case 0 -> {
                @SuppressWarnings("unchecked")
                List<T> array = (List<T>) Arrays.asList(s.toArray());
                elements = array;
            }
            case 1 -> elements = s.collect(Collectors.toList());
            default -> {
                return s.count();
            }
        }
        check.accept(elements);
        return elements.size();
    }
}
