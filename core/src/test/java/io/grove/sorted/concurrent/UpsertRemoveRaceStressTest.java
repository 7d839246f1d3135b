package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upserts racing with removals of the same keys: an upsert ({@code zc().putIfAbsentComputeIfPresent}, or
 * {@code merge}) that finds its key's value gone when it tries to lock it (a removal retired it) must read the
 * entry again and insert, never count itself done. Nothing may be lost or counted twice: every upsert adds 1
 * (inserting 1 or incrementing), every removal takes the value away and adds it to its tally, so at the end the
 * removals' tally plus what is left in the map equals the number of upserts, key by key. (It fails when an upsert
 * that finds the value gone returns without effect.)
 *
 * <p>A few keys, many threads: half upsert, half remove (on platform threads, more than the cores, and on virtual
 * threads), in a map of chunks of four entries so that removals compact chunks under the upserts.
 */
class UpsertRemoveRaceStressTest {
    private static final int KEYS = 8;
    private static final long TOTAL_OPERATIONS = 400_000;

    enum Upsert { IN_PLACE, MERGE }

    static Stream<Arguments> cases() {
        return Stream.of(StressRun.Threads.values())
                .flatMap(t -> Stream.of(Upsert.values()).map(u -> Arguments.of(t, u)));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void everyUpsertIsCountedOnceAcrossRemovals(StressRun.Threads threads, Upsert upsert) throws Exception {
        try (GroveSortedMap<Long, Long> map = GroveSortedMap.builder(Serializers.longs(), Serializers.longs())
                .chunkSize(4).memoryLimit(64L << 20).build()) {
            int half = Math.max(1, threads.count / 2);
            long perThread = Math.max(KEYS, TOTAL_OPERATIONS / (2L * half));
            LongAdder[] upserts = adders();
            LongAdder[] removed = adders();
            AtomicLong upsertersLeft = new AtomicLong(half);
            StressRun run = new StressRun();
            run.workers(threads.factory("upserter"), half, index -> {
                SplittableRandom random = new SplittableRandom(index);
                try {
                    for (long i = 0; i < perThread && run.proceed(i); i++) {
                        int k = random.nextInt(KEYS);
                        upsert(map, upsert, k);
                        upserts[k].increment();
                    }
                } finally {
                    upsertersLeft.decrementAndGet();
                }
            });
            run.workers(threads.factory("remover"), half, index -> {
                SplittableRandom random = new SplittableRandom(-1 - index);
                for (long i = 0; upsertersLeft.get() > 0 && run.proceed(i); i++) {
                    int k = random.nextInt(KEYS);
                    Long value = map.remove((long) k);
                    if (value != null) {
                        removed[k].add(value);
                    }
                }
            });
            run.runAndCheck(upsert + " upserts against removals with " + threads, () -> "upserts "
                    + Stream.of(upserts).mapToLong(LongAdder::sum).sum() + " of " + perThread * half);
            for (int k = 0; k < KEYS; k++) {
                Long left = map.get((long) k);
                assertEquals(upserts[k].sum(), removed[k].sum() + (left == null ? 0 : left),
                        "key " + k + ": upserts against what removals took and what is left");
            }
        }
    }

    private static void upsert(GroveSortedMap<Long, Long> map, Upsert upsert, long k) {
        if (upsert == Upsert.MERGE) {
            map.merge(k, 1L, Long::sum);
            return;
        }
        // the longs serializer stores a value with its sign bit flipped, which order keeps for + 1
        map.zc().putIfAbsentComputeIfPresent(k, 1L, view -> view.putLong(0, view.getLong(0) + 1));
    }

    private static LongAdder[] adders() {
        LongAdder[] adders = new LongAdder[KEYS];
        for (int k = 0; k < KEYS; k++) {
            adders[k] = new LongAdder();
        }
        return adders;
    }
}
