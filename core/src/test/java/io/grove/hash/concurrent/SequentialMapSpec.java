package io.grove.hash.concurrent;

import io.grove.testing.SingleKeyOperations;
import java.util.HashMap;
import java.util.Map;

/**
 * The sequential specification of {@link HashMapOperations}: the same operations on a {@link HashMap}, keyed by
 * the key index (the index-to-key mapping is one-to-one, so it does not matter here).
 */
public class SequentialMapSpec {
    private final Map<Integer, Long> map = new HashMap<>();

    static Long absentFunction(int k) {
        return 5L * k;
    }

    /** 10 for an absent key, then one more per call, up to 13, which the next call removes (null). */
    static Long computeFunction(Long old) {
        if (old == null) {
            return 10L;
        }
        return old >= 13 ? null : old + 1;
    }

    static Long mergeFunction(Long old, Long given) {
        return old + given >= 9 ? null : old + given;
    }

    public Long get(int k) {
        return map.get(k);
    }

    public boolean containsKey(int k) {
        return map.containsKey(k);
    }

    public Long put(int k, int v) {
        return map.put(k, (long) v);
    }

    public Long putIfAbsent(int k, int v) {
        return map.putIfAbsent(k, (long) v);
    }

    public Long remove(int k) {
        return map.remove(k);
    }

    public boolean removeIfEquals(int k, int v) {
        return map.remove(k, (long) v);
    }

    public Long replace(int k, int v) {
        return map.replace(k, (long) v);
    }

    public boolean replaceIfEquals(int k, int expected, int v) {
        return map.replace(k, (long) expected, (long) v);
    }

    public Long computeIfAbsent(int k) {
        return map.computeIfAbsent(k, key -> absentFunction(k));
    }

    public Long computeIfPresent(int k) {
        return map.computeIfPresent(k, (key, old) -> SingleKeyOperations.presentFunction(old));
    }

    public Long compute(int k) {
        return map.compute(k, (key, old) -> computeFunction(old));
    }

    public Long merge(int k, int v) {
        return map.merge(k, (long) v, SequentialMapSpec::mergeFunction);
    }

    public boolean zcIncrement(int k) {
        Long old = map.get(k);
        map.put(k, old == null ? 1L : old + 1);
        return old == null;
    }

    public boolean zcMoveAndAdd(int k) {
        Long old = map.get(k);
        if (old == null) {
            return false;
        }
        map.put(k, old + 3);
        return true;
    }

    public Long zcGet(int k) {
        return map.get(k);
    }
}
