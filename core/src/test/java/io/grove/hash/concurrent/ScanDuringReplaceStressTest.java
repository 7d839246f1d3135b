package io.grove.hash.concurrent;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import io.grove.view.Handle;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Weakly consistent scans return every entry present for their whole duration, also when its value is replaced
 * meanwhile. A put on a present key, and an in-place update that resizes the value, link a new entry (key and
 * value share one slice) and delete the old one; zero-copy scans that collected the old entry's reference used to
 * take its deletion for a removal and skip the key (about 1 scan in 90 for {@code zc().keySet()}, 1 in 30 for
 * {@code zc().entrySet()}).
 *
 * <p>Writers replace the values of a few hot keys without pause (put, zc put, resizing and same-size in-place
 * updates); scanners run every scan of the map and its zero-copy view and check that each returns every key, each
 * once, with a value the key held. A zero-copy handle on a hot key may fail when read (its entry was replaced
 * after the scan returned it, which ends handles on key and value alike): such an element still counts as one
 * returned, for one of the hot keys.
 */
class ScanDuringReplaceStressTest {
    private static final int KEYS = 64;
    private static final int HOT_KEYS = 4;
    private static final int HOT_KEYS_IN_CELLS = 5;
    private static final int SCANS_PER_SCANNER = 400;

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void scansSeeEveryKeyWhoseValueIsReplaced(StressRun.Threads threads) throws Exception {
        run(threads, GroveHashMap.builder(Serializers.longs(), Serializers.bytes()), HOT_KEYS);
    }

    /**
     * The same on a map with cells for values of up to 16 bytes ({@code inlineEntries(8, 16)}): values of 8 and 16
     * bytes fit, those of 24 do not, so replacements move the hot keys' entries out of their cells and back in, and
     * the zero-copy scans move the entries they return out of their cells. {@value #HOT_KEYS_IN_CELLS} keys are hot,
     * so that the scans meet more entries that have just moved (a number prime to the 4 kinds of replacement, so
     * that each writer gives each hot key every kind).
     */
    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void scansSeeEveryKeyInCellsWhoseValueIsReplaced(StressRun.Threads threads) throws Exception {
        run(threads, GroveHashMap.builder(Serializers.longs(), Serializers.bytes()).inlineEntries(Long.BYTES, 16),
                HOT_KEYS_IN_CELLS);
    }

    private static void run(StressRun.Threads threads, GroveHashMap.Builder<Long, byte[]> builder, int hotKeys)
            throws Exception {
        try (GroveHashMap<Long, byte[]> map = builder.build()) {
            for (long k = 0; k < KEYS; k++) {
                map.put(k, value(k, 8));
            }
            int writers = Math.max(1, threads.count / 4);
            int scanners = threads.count - writers;
            AtomicLong scansLeft = new AtomicLong((long) scanners * SCANS_PER_SCANNER);
            AtomicLong replacements = new AtomicLong();
            List<Function<GroveHashMap<Long, byte[]>, Collection<Long>>> scans = List.of(
                    m -> m.keySet().stream().toList(),
                    m -> m.entrySet().stream().map(e -> check(e.getKey(), e.getValue())).toList(),
                    m -> m.values().stream().map(v -> keyOf(v)).toList(),
                    m -> m.zc().keySet().stream().map(h -> keyOfKeyHandle(h)).toList(),
                    m -> m.zc().entrySet().stream().map(e -> check(e.getKey(), e.getValue())).toList(),
                    m -> m.zc().values().stream().map(v -> keyOfValueHandle(v)).toList(),
                    m -> m.zc().keyStream().map(h -> keyOfKeyHandle(h)).toList(),
                    m -> m.zc().valueStream().map(h -> keyOfValueHandle(h)).toList(),
                    m -> m.zc().entryStream().map(e -> check(e.getKey(), e.getValue())).toList());
            StressRun run = new StressRun();
            run.workers(threads.factory("replacer"), writers, index -> {
                for (long i = 0; scansLeft.get() > 0 && run.proceed(i); i++) {
                    long k = (index + i) % hotKeys;
                    switch ((int) (i % 4)) {
                        case 0 -> map.put(k, value(k, 8 + (int) (i % 3) * 8));
                        case 1 -> map.zc().put(k, value(k, 16));
                        case 2 -> map.zc().computeIfPresent(k, v -> v.resize(v.size() == 8 ? 24 : 8));
                        default -> map.zc().computeIfPresent(k, v -> v.putLong(0, v.getLong(0)));
                    }
                    replacements.incrementAndGet();
                }
            });
            run.workers(threads.factory("scanner"), scanners, index -> {
                for (long i = 0; scansLeft.getAndDecrement() > 0 && run.proceed(i); i++) {
                    int which = (int) ((index + i) % scans.size());
                    Collection<Long> seen = scans.get(which).apply(map);
                    Set<Long> distinct = new HashSet<>(seen);
                    long unreadable = seen.stream().filter(k -> k == REPLACED_SINCE).count();
                    distinct.remove(REPLACED_SINCE);
                    Set<Long> missing = new HashSet<>();
                    for (long k = 0; k < KEYS; k++) {
                        if (!distinct.contains(k)) {
                            missing.add(k);
                        }
                    }
                    boolean missingOnlyHot = missing.stream().allMatch(k -> k < hotKeys);
                    if (seen.size() != KEYS || distinct.size() + unreadable != KEYS || !missingOnlyHot) {
                        throw new AssertionError("scan " + which + " returned " + seen.size() + " elements, "
                                + distinct.size() + " distinct keys and " + unreadable
                                + " handles whose entry was replaced since; missing " + missing);
                    }
                }
            });
            run.runAndCheck("scans during replacements with " + threads,
                    () -> "scans left " + scansLeft.get() + ", replacements " + replacements.get());
        }
    }

    /** A value that names its key: the key's 8 bytes, then zeros up to {@code size}. */
    private static byte[] value(long key, int size) {
        byte[] v = new byte[size];
        java.nio.ByteBuffer.wrap(v).putLong(key);
        return v;
    }

    private static long keyOf(byte[] value) {
        return java.nio.ByteBuffer.wrap(value).getLong();
    }

    private static long check(long key, byte[] value) {
        if (keyOf(value) != key) {
            throw new AssertionError("key " + key + " returned with the value of key " + keyOf(value));
        }
        return key;
    }

    /** Stands for an element whose handle failed: its entry was replaced after the scan returned it. */
    private static final long REPLACED_SINCE = -1;

    private static long keyOfKeyHandle(Handle key) {
        try {
            return Serializers.longs().read(key);
        } catch (ConcurrentModificationException replacedSince) {
            return REPLACED_SINCE;
        }
    }

    private static long keyOfValueHandle(Handle value) {
        try {
            return keyOf(value.toByteArray());
        } catch (ConcurrentModificationException replacedSince) {
            return REPLACED_SINCE;
        }
    }

    private static long check(Handle key, Handle value) {
        long k = keyOfKeyHandle(key);
        long v = keyOfValueHandle(value);
        if (k == REPLACED_SINCE || v == REPLACED_SINCE) {
            return REPLACED_SINCE;
        }
        if (k != v) {
            throw new AssertionError("key " + k + " returned with the value of key " + v);
        }
        return k;
    }
}
