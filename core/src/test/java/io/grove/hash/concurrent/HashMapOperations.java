package io.grove.hash.concurrent;

import io.grove.GroveHashMap;
import io.grove.testing.SingleKeyOperations;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;

/**
 * The single-key operations of {@link GroveHashMap} as Lincheck sees them, shared by the Lincheck test classes of
 * this package (each decides how its map is made: which keys, which pool, how growth is provoked): those the
 * sorted map shares ({@link SingleKeyOperations}) and the hash map's own conditional updates, compute and merge.
 * The sequential specification is {@link SequentialMapSpec}, a {@link java.util.HashMap} with the same operations
 * and the same pure functions.
 */
abstract class HashMapOperations extends SingleKeyOperations {
    protected final GroveHashMap<Long, Long> map;

    HashMapOperations(GroveHashMap<Long, Long> map) {
        super(map, map.zc());
        this.map = map;
    }

    @Operation
    public boolean removeIfEquals(@Param(name = "key") int k, @Param(name = "value") int v) {
        return map.remove(key(k), (long) v);
    }

    @Operation
    public Long replace(@Param(name = "key") int k, @Param(name = "value") int v) {
        return map.replace(key(k), (long) v);
    }

    @Operation
    public boolean replaceIfEquals(@Param(name = "key") int k, @Param(name = "value") int expected,
            @Param(name = "value") int v) {
        return map.replace(key(k), (long) expected, (long) v);
    }

    @Operation
    public Long computeIfAbsent(@Param(name = "key") int k) {
        return map.computeIfAbsent(key(k), key -> SequentialMapSpec.absentFunction(k));
    }

    @Operation
    public Long compute(@Param(name = "key") int k) {
        return map.compute(key(k), (key, old) -> SequentialMapSpec.computeFunction(old));
    }

    @Operation
    public Long merge(@Param(name = "key") int k, @Param(name = "value") int v) {
        return map.merge(key(k), (long) v, SequentialMapSpec::mergeFunction);
    }

    /**
     * After each invocation (each test class calls this from its own {@code @Validate} method: Lincheck 3.7
     * counts an inherited one twice): iteration, {@code get} and {@code size} agree, no key is returned twice,
     * and the filler keys are still there with their values.
     */
    void iterationAgreesWithLookups() {
        Set<Long> seen = new HashSet<>();
        Set<Long> allowed = new HashSet<>(fillers());
        for (int k = 1; k <= 3; k++) {
            allowed.add(key(k));
        }
        for (Map.Entry<Long, Long> entry : map.entrySet()) {
            if (!seen.add(entry.getKey())) {
                throw new AssertionError("the iterator returned " + entry.getKey() + " twice");
            }
            if (!allowed.contains(entry.getKey())) {
                throw new AssertionError("the iterator returned a key never inserted: " + entry.getKey());
            }
            if (!entry.getValue().equals(map.get(entry.getKey()))) {
                throw new AssertionError("iteration shows " + entry + " but get returns " + map.get(entry.getKey()));
            }
        }
        if (seen.size() != map.size()) {
            throw new AssertionError("size() is " + map.size() + " but iteration returned " + seen.size() + " keys");
        }
        fillersUnchanged();
    }
}
