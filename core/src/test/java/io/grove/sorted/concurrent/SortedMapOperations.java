package io.grove.sorted.concurrent;

import io.grove.GroveSortedMap;
import io.grove.testing.SingleKeyOperations;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;

/**
 * The single-key operations of {@link GroveSortedMap} (those the hash map shares, {@link SingleKeyOperations},
 * and the zero-copy insert and remove), and {@code firstKey}/{@code lastKey} and the navigation methods, as
 * Lincheck sees them, shared by the Lincheck test classes of this package. The sequential specification is
 * {@link SortedMapSpec}.
 *
 * <p><b>Keys, fillers and chunks.</b> A scenario's keys are chosen by an index 1..3 that {@link #realKey} maps to
 * 100, 200 and 300. Every map starts with the six {@link #FILLERS} 150, 160, 170, 250, 260, 270, each mapped to itself
 * and never touched by a scenario, and is built with {@code chunkSize(4)}: nine possible entries in chunks of four,
 * so the map starts with several chunks, an insert of a scenario key usually lands in a full chunk and splits it,
 * and every insert after a removal needs a free cell that only a rebalance (compaction, merge) gives back. The
 * rebalances therefore run between and during the scenario's operations, which is what these tests are about:
 * the operations must stay linearizable while the chunk that holds their key is frozen, copied and replaced.
 *
 * <p><b>Why navigation is checked only next to fillers.</b> The map documents {@code firstKey}, {@code ceilingKey}
 * and the like as weakly consistent, as {@link java.util.concurrent.ConcurrentSkipListMap}'s are: a call that passes
 * over several keys changing meanwhile may return a result that was never right at a single moment, so these calls
 * are not linearizable in general. Each navigation operation here is aimed so that exactly one scenario key can
 * decide its result and a filler that never changes stands right behind it ({@code firstKey} is 100 or 150,
 * {@code lastKey} 300 or 270, {@code ceilingKey(199)} 200 or 250, {@code floorKey(301)} 300 or 270...). Weak
 * consistency then does make them linearizable, and a navigation that loses its place while the chunks around the
 * key are split, merged or replaced (skips the key, returns a stale or removed one, returns the filler although
 * the key was present throughout) fails the check.
 */
abstract class SortedMapOperations extends SingleKeyOperations {
    /** Keys present in every map before the scenario, mapped to themselves, and never touched by it. */
    static final List<Long> FILLERS = List.of(150L, 160L, 170L, 250L, 260L, 270L);
    /** The chunk size of every map of the Lincheck tests: the smallest the builder allows. */
    static final int CHUNK_SIZE = 4;

    protected final GroveSortedMap<Long, Long> map;
    /** The chunk index's array when the scenario starts: a different one at validation means a rebalance ran. */
    private final Object[] chunksAtStart;

    SortedMapOperations(GroveSortedMap<Long, Long> map) {
        super(map, map.zc());
        for (long filler : FILLERS) {
            map.put(filler, filler);
        }
        this.map = map;
        this.chunksAtStart = Internals.chunks(map);
    }

    /** Whether a rebalance (split, merge or compaction) completed since this invocation's scenario started. */
    boolean rebalanced() {
        return Internals.chunks(map) != chunksAtStart;
    }

    /** The real key behind index {@code k} (1..3): 100, 200 or 300. */
    static long realKey(int k) {
        return 100L * k;
    }

    @Override
    protected long key(int k) {
        return realKey(k);
    }

    @Override
    protected List<Long> fillers() {
        return FILLERS;
    }

    /** An entry as a result Lincheck can compare. */
    static String show(Map.Entry<Long, Long> e) {
        return e == null ? null : e.getKey() + "=" + e.getValue();
    }

    @Operation
    public boolean zcPutIfAbsent(@Param(name = "key") int k, @Param(name = "value") int v) {
        return map.zc().putIfAbsent(key(k), (long) v);
    }

    @Operation
    public boolean zcRemove(@Param(name = "key") int k) {
        return map.zc().remove(key(k));
    }

    /** 100 if present, else the filler 150. */
    @Operation
    public Long firstKey() {
        return map.firstKey();
    }

    /** 300 if present, else the filler 270. */
    @Operation
    public Long lastKey() {
        return map.lastKey();
    }

    /** {@code ceilingKey(key - 1)}: the key if present, else the filler after it (none after 300). */
    @Operation
    public Long ceilingKeyBelow(@Param(name = "key") int k) {
        return map.ceilingKey(key(k) - 1);
    }

    /** {@code floorKey(key + 1)}: the key if present, else the filler before it (none before 100). */
    @Operation
    public Long floorKeyAbove(@Param(name = "key") int k) {
        return map.floorKey(key(k) + 1);
    }

    /** {@code higherEntry(key - 1)}, with its value. */
    @Operation
    public String higherEntryBelow(@Param(name = "key") int k) {
        return show(map.higherEntry(key(k) - 1));
    }

    /** {@code lowerEntry(key + 1)}, with its value. */
    @Operation
    public String lowerEntryAbove(@Param(name = "key") int k) {
        return show(map.lowerEntry(key(k) + 1));
    }

    /**
     * After each invocation (each test class calls this from its own {@code @Validate} method: Lincheck 3.7 counts
     * an inherited one twice): ascending and descending iteration agree with {@code get} and {@code size}, are
     * strictly ordered, and the fillers are unchanged.
     */
    void iterationAgreesWithLookups() {
        int ascending = checkOrdered(map.entrySet().iterator(), 1, "ascending");
        int descending = checkOrdered(map.descendingMap().entrySet().iterator(), -1, "descending");
        if (ascending != map.size() || descending != ascending) {
            throw new AssertionError("size() is " + map.size() + " but ascending iteration returned " + ascending
                    + " and descending " + descending + " entries");
        }
        fillersUnchanged();
    }

    private int checkOrdered(Iterator<Map.Entry<Long, Long>> it, int direction, String what) {
        int n = 0;
        Long previous = null;
        while (it.hasNext()) {
            Map.Entry<Long, Long> e = it.next();
            long k = e.getKey();
            if (!FILLERS.contains(k) && k != key(1) && k != key(2) && k != key(3)) {
                throw new AssertionError(what + " iteration returned a key never inserted: " + k);
            }
            if (previous != null && (direction > 0 ? k <= previous : k >= previous)) {
                throw new AssertionError(what + " iteration returned " + k + " after " + previous);
            }
            if (!e.getValue().equals(map.get(k))) {
                throw new AssertionError(what + " iteration shows " + e + " but get returns " + map.get(k));
            }
            previous = k;
            n++;
        }
        return n;
    }
}
