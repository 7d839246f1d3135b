package io.grove.hash.concurrent;

import io.grove.GroveHashMap;
import io.grove.view.Handle;
import java.util.ConcurrentModificationException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;

/**
 * The single-key operations of {@link GroveHashMap} as Lincheck sees them, shared by the Lincheck test classes of
 * this package (each decides how its map is made: which keys, which pool, how growth is provoked). Keys are
 * chosen by an index 1..3 that {@link #key} maps to the real {@code Long} key; values are small {@code Long}s.
 * The sequential specification is {@link SequentialMapSpec}, a {@link java.util.HashMap} with the same
 * operations and the same pure functions.
 *
 * <p>Every function handed to the map is pure, so running it once under the segment's lock (as the map
 * promises) and running it once in the specification give the same result.
 */
@Param(name = "key", gen = IntGen.class, conf = "1:3")
@Param(name = "value", gen = IntGen.class, conf = "1:4")
abstract class HashMapOperations {
    protected final GroveHashMap<Long, Long> map;

    HashMapOperations(GroveHashMap<Long, Long> map) {
        this.map = map;
    }

    /** The real key behind index {@code k} (1..3). */
    abstract long key(int k);

    /** Keys put into the map before the scenario, each mapped to itself, and never touched by it (none by default). */
    Set<Long> fillers() {
        return Set.of();
    }

    /**
     * Lincheck makes one instance per invocation and never closes it; it makes the next only after the previous
     * invocation finished (results collected, validation run; were it otherwise, the closed map's operations would
     * throw and the test would fail). So each new instance closes its predecessor's map, which keeps the off-heap
     * memory of a run bounded.
     */
    static GroveHashMap<Long, Long> retirePrevious(AtomicReference<AutoCloseable> previous,
            GroveHashMap<Long, Long> fresh, AutoCloseable owner) {
        AutoCloseable old = previous.getAndSet(owner);
        if (old != null) {
            try {
                old.close();
            } catch (Exception e) {
                throw new AssertionError("closing the previous invocation's map failed", e);
            }
        }
        return fresh;
    }

    @Operation
    public Long get(@Param(name = "key") int k) {
        return map.get(key(k));
    }

    @Operation
    public boolean containsKey(@Param(name = "key") int k) {
        return map.containsKey(key(k));
    }

    @Operation
    public Long put(@Param(name = "key") int k, @Param(name = "value") int v) {
        return map.put(key(k), (long) v);
    }

    @Operation
    public Long putIfAbsent(@Param(name = "key") int k, @Param(name = "value") int v) {
        return map.putIfAbsent(key(k), (long) v);
    }

    @Operation
    public Long remove(@Param(name = "key") int k) {
        return map.remove(key(k));
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
    public Long computeIfPresent(@Param(name = "key") int k) {
        return map.computeIfPresent(key(k), (key, old) -> SequentialMapSpec.presentFunction(old));
    }

    @Operation
    public Long compute(@Param(name = "key") int k) {
        return map.compute(key(k), (key, old) -> SequentialMapSpec.computeFunction(old));
    }

    @Operation
    public Long merge(@Param(name = "key") int k, @Param(name = "value") int v) {
        return map.merge(key(k), (long) v, SequentialMapSpec::mergeFunction);
    }

    /** {@code zc().putIfAbsentComputeIfPresent}: inserts 1 or adds 1 in place. */
    @Operation
    public boolean zcIncrement(@Param(name = "key") int k) {
        return map.zc().putIfAbsentComputeIfPresent(key(k), 1L, view -> view.putLong(0, view.getLong(0) + 1));
    }

    /**
     * {@code zc().computeIfPresent} that grows the value to 16 bytes and shrinks it back, so the value moves to a
     * new slice (the old one is deleted), and adds 3.
     */
    @Operation
    public boolean zcMoveAndAdd(@Param(name = "key") int k) {
        return map.zc().computeIfPresent(key(k), view -> {
            long encoded = view.getLong(0);
            view.resize(16).putLong(8, -1L);
            view.resize(8).putLong(0, encoded + 3);
        });
    }

    /**
     * {@code zc().get} and a validated read through the handle; a handle whose value was replaced or removed
     * before the read ends throws {@link ConcurrentModificationException}, and the lookup is repeated.
     */
    @Operation
    public Long zcGet(@Param(name = "key") int k) {
        while (true) {
            Handle handle = map.zc().get(key(k));
            if (handle == null) {
                return null;
            }
            try {
                return handle.read(view -> view.getLong(0) ^ Long.MIN_VALUE);
            } catch (ConcurrentModificationException replaced) {
                // look the key up again
            }
        }
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

    /**
     * A cheaper check for the model checker, which replays every instruction of the validation too: {@code size}
     * agrees with the keys {@code containsKey} finds, and the fillers are unchanged.
     */
    void sizeAgreesWithLookups() {
        int present = 0;
        for (int k = 1; k <= 3; k++) {
            present += map.containsKey(key(k)) ? 1 : 0;
        }
        if (present + fillers().size() != map.size()) {
            throw new AssertionError("size() is " + map.size() + " but " + present + " of the 3 keys and "
                    + fillers().size() + " fillers are present");
        }
        fillersUnchanged();
    }

    private void fillersUnchanged() {
        for (Long filler : fillers()) {
            if (!filler.equals(map.get(filler))) {
                throw new AssertionError("filler key " + filler + " changed: " + map.get(filler));
            }
        }
    }
}
