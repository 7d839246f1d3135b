package io.grove.sorted.concurrent;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.MemoryPool;
import io.grove.serial.Serializers;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of insertion races between raw keys that share their 8-byte prefix, in Lincheck's stress mode:
 * only {@code put}, {@code putIfAbsent}, {@code zc().putIfAbsent}, {@code remove}, {@code get} and
 * {@code firstKey}, on three keys, in a map of chunks of four entries. Narrower than {@link SortedMapLincheckTest}
 * so that the scenarios spend their operations on what changed recently: prefix comparisons that cannot decide
 * (every key here has the same first 8 bytes, so every comparison reads the keys off heap), an insertion that
 * links at the window its own search found and a put-if-absent that reuses the search of its presence check (the
 * window goes stale when another thread links a neighbour first, and the link CAS must then fail and retry).
 *
 * <p><b>Keys.</b> With {@code S} the 8 bytes {@code 80 00 7F FF 00 00 01 80}: key 1 is {@code S} itself, key 2 is
 * {@code S 20} and key 3 is {@code S 20 00} (key 2 followed by a zero byte: neighbours that differ only in length,
 * so racing inserts of keys 2 and 3 meet in one window). Six fillers, present from the start and never touched,
 * sit around them: {@code S 00}, {@code S 00 00}, {@code S 10} between keys 1 and 2, and {@code S 30},
 * {@code S 30 00}, {@code S FF} after key 3; nine possible entries in chunks of four, so inserts split chunks
 * and removals make rebalances compact and merge them during the scenarios (counted, as in
 * {@link SortedMapLincheckTest}). {@code firstKey} is key 1 or, when it is absent, the filler {@code S 00}: one
 * scenario key decides it, so weak consistency makes it linearizable.
 *
 * <p>Stress mode only: the model checker does not see the {@code MemorySegment} reads of keys off heap, and an
 * insertion race is decided there as much as in the chunk's arrays.
 */
@Param(name = "key", gen = IntGen.class, conf = "1:3")
@Param(name = "value", gen = IntGen.class, conf = "1:4")
public class SharedPrefixInsertLincheckTest {
    private static final byte[] STEM = {(byte) 0x80, 0, 0x7F, (byte) 0xFF, 0, 0, 1, (byte) 0x80};
    /** Keys 1, 2, 3 at indexes 1, 2, 3. */
    static final byte[][] KEYS = {null, STEM, stem(0x20), stem(0x20, 0)};
    static final List<byte[]> FILLERS = List.of(stem(0), stem(0, 0), stem(0x10), stem(0x30), stem(0x30, 0),
            stem(0xFF));

    private static final MemoryPool POOL = MemoryPool.builder().blockSize(1 << 20).memoryLimit(64L << 20).build();
    /** The previous invocation's map, closed when the next one is made (Lincheck never closes an instance). */
    private static final AtomicReference<GroveSortedMap<?, ?>> PREVIOUS = new AtomicReference<>();
    private static final AtomicLong VALIDATED = new AtomicLong();
    private static final AtomicLong REBALANCED = new AtomicLong();

    private final GroveSortedMap<byte[], Long> map;
    private final Object[] chunksAtStart;

    public SharedPrefixInsertLincheckTest() {
        GroveSortedMap<byte[], Long> fresh = GroveSortedMap.builder(Serializers.bytes(), Serializers.longs())
                .chunkSize(SortedMapOperations.CHUNK_SIZE).pool(POOL).build();
        for (int i = 0; i < FILLERS.size(); i++) {
            fresh.put(FILLERS.get(i), fillerValue(i));
        }
        GroveSortedMap<?, ?> previous = PREVIOUS.getAndSet(fresh);
        if (previous != null) {
            previous.close();
        }
        this.map = fresh;
        this.chunksAtStart = Internals.chunks(fresh);
    }

    static byte[] stem(int... suffix) {
        byte[] key = Arrays.copyOf(STEM, STEM.length + suffix.length);
        for (int i = 0; i < suffix.length; i++) {
            key[STEM.length + i] = (byte) suffix[i];
        }
        return key;
    }

    static long fillerValue(int i) {
        return 1000L + i;
    }

    /** A key as Lincheck shows it: "key 1".."key 3" or "filler" and its bytes. */
    static String name(byte[] key) {
        if (key == null) {
            return null;
        }
        for (int k = 1; k <= 3; k++) {
            if (Arrays.equals(KEYS[k], key)) {
                return "key " + k;
            }
        }
        return "filler " + HexFormat.of().formatHex(key);
    }

    @Operation
    public Long get(@Param(name = "key") int k) {
        return map.get(KEYS[k]);
    }

    @Operation
    public Long put(@Param(name = "key") int k, @Param(name = "value") int v) {
        return map.put(KEYS[k], (long) v);
    }

    @Operation
    public Long putIfAbsent(@Param(name = "key") int k, @Param(name = "value") int v) {
        return map.putIfAbsent(KEYS[k], (long) v);
    }

    @Operation
    public boolean zcPutIfAbsent(@Param(name = "key") int k, @Param(name = "value") int v) {
        return map.zc().putIfAbsent(KEYS[k], (long) v);
    }

    @Operation
    public Long remove(@Param(name = "key") int k) {
        return map.remove(KEYS[k]);
    }

    /** Key 1 if present, else the first filler. */
    @Operation
    public String firstKey() {
        return name(map.firstKey());
    }

    /**
     * After each invocation: ascending and descending iteration are strictly ordered by
     * {@link Arrays#compareUnsigned}, return only keys of the test with the values {@code get} returns, agree
     * with {@code size()}; the fillers are unchanged.
     */
    @Validate
    public void validate() {
        int ascending = checkOrdered(map.entrySet().iterator(), 1, "ascending");
        int descending = checkOrdered(map.descendingMap().entrySet().iterator(), -1, "descending");
        if (ascending != map.size() || descending != ascending) {
            throw new AssertionError("size() is " + map.size() + " but ascending iteration returned " + ascending
                    + " and descending " + descending + " entries");
        }
        for (int i = 0; i < FILLERS.size(); i++) {
            Long v = map.get(FILLERS.get(i));
            if (v == null || v != fillerValue(i)) {
                throw new AssertionError(name(FILLERS.get(i)) + " changed: " + v);
            }
        }
        VALIDATED.incrementAndGet();
        if (Internals.chunks(map) != chunksAtStart) {
            REBALANCED.incrementAndGet();
        }
    }

    private int checkOrdered(Iterator<Map.Entry<byte[], Long>> it, int direction, String what) {
        int n = 0;
        byte[] previous = null;
        while (it.hasNext()) {
            Map.Entry<byte[], Long> e = it.next();
            byte[] k = e.getKey();
            if (!name(k).startsWith("key") && FILLERS.stream().noneMatch(f -> Arrays.equals(f, k))) {
                throw new AssertionError(what + " iteration returned a key never inserted: " + name(k));
            }
            if (previous != null && Integer.signum(Arrays.compareUnsigned(k, previous)) != direction) {
                throw new AssertionError(what + " iteration returned " + name(k) + " after " + name(previous));
            }
            if (!e.getValue().equals(map.get(k))) {
                throw new AssertionError(what + " iteration shows " + name(k) + "=" + e.getValue()
                        + " but get returns " + map.get(k));
            }
            previous = k;
            n++;
        }
        return n;
    }

    /**
     * Budget: 100 scenarios of 200 invocations, three threads of four operations; not minimized (see
     * {@link SortedMapLincheckTest#stress}).
     */
    @Test
    void stress() {
        new StressOptions().iterations(100).invocationsPerIteration(200).threads(3).actorsPerThread(4)
                .actorsBefore(2).actorsAfter(2).minimizeFailedScenario(false)
                .sequentialSpecification(Spec.class).check(SharedPrefixInsertLincheckTest.class);
        assertTrue(REBALANCED.get() * 2 > VALIDATED.get(), "a rebalance ran in only " + REBALANCED + " of "
                + VALIDATED + " invocations");
    }

    /** The sequential specification: the same operations on a {@link TreeMap} in unsigned byte order. */
    public static class Spec {
        private final TreeMap<byte[], Long> map = new TreeMap<>(Arrays::compareUnsigned);

        public Spec() {
            for (int i = 0; i < FILLERS.size(); i++) {
                map.put(FILLERS.get(i), fillerValue(i));
            }
        }

        public Long get(int k) {
            return map.get(KEYS[k]);
        }

        public Long put(int k, int v) {
            return map.put(KEYS[k], (long) v);
        }

        public Long putIfAbsent(int k, int v) {
            return map.putIfAbsent(KEYS[k], (long) v);
        }

        public boolean zcPutIfAbsent(int k, int v) {
            return map.putIfAbsent(KEYS[k], (long) v) == null;
        }

        public Long remove(int k) {
            return map.remove(KEYS[k]);
        }

        public String firstKey() {
            return name(map.firstKey());
        }
    }
}
