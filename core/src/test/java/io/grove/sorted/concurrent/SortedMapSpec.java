package io.grove.sorted.concurrent;

import io.grove.testing.SingleKeyOperations;
import java.util.TreeMap;

/**
 * The sequential specification of {@link SortedMapOperations}: the same operations on a {@link TreeMap} that starts
 * with the same filler keys, each mapped to itself.
 */
public class SortedMapSpec {
    private final TreeMap<Long, Long> map = new TreeMap<>();

    public SortedMapSpec() {
        for (long filler : SortedMapOperations.FILLERS) {
            map.put(filler, filler);
        }
    }

    private static long key(int k) {
        return SortedMapOperations.realKey(k);
    }

    public Long get(int k) {
        return map.get(key(k));
    }

    public boolean containsKey(int k) {
        return map.containsKey(key(k));
    }

    public Long put(int k, int v) {
        return map.put(key(k), (long) v);
    }

    public Long putIfAbsent(int k, int v) {
        return map.putIfAbsent(key(k), (long) v);
    }

    public Long remove(int k) {
        return map.remove(key(k));
    }

    public Long computeIfPresent(int k) {
        return map.computeIfPresent(key(k), (key, old) -> SingleKeyOperations.presentFunction(old));
    }

    public boolean zcPutIfAbsent(int k, int v) {
        return map.putIfAbsent(key(k), (long) v) == null;
    }

    public boolean zcRemove(int k) {
        return map.remove(key(k)) != null;
    }

    public boolean zcIncrement(int k) {
        Long old = map.get(key(k));
        map.put(key(k), old == null ? 1L : old + 1);
        return old == null;
    }

    public boolean zcMoveAndAdd(int k) {
        Long old = map.get(key(k));
        if (old == null) {
            return false;
        }
        map.put(key(k), old + 3);
        return true;
    }

    public Long zcGet(int k) {
        return map.get(key(k));
    }

    public Long firstKey() {
        return map.firstKey();
    }

    public Long lastKey() {
        return map.lastKey();
    }

    public Long ceilingKeyBelow(int k) {
        return map.ceilingKey(key(k) - 1);
    }

    public Long floorKeyAbove(int k) {
        return map.floorKey(key(k) + 1);
    }

    public String higherEntryBelow(int k) {
        return SortedMapOperations.show(map.higherEntry(key(k) - 1));
    }

    public String lowerEntryAbove(int k) {
        return SortedMapOperations.show(map.lowerEntry(key(k) + 1));
    }
}
