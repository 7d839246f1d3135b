package io.grove.testing;

import io.grove.ZeroCopyMap;
import io.grove.view.Handle;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;

/**
 * The Lincheck operations that the hash map and the sorted map share, on {@code Long} keys and values: the
 * single-key {@code ConcurrentMap} operations and the zero-copy increment, move and handle read. Keys are chosen by
 * an index 1..3 that {@link #key} maps to the real key; values are small {@code Long}s. Each map's operations
 * class extends this with its own operations and its sequential specification has a method of the same name and
 * parameters for each.
 *
 * <p>Every function handed to the map is pure, so running it once under the map's synchronization (as the map
 * promises) and once in the specification give the same result.
 */
@Param(name = "key", gen = IntGen.class, conf = "1:3")
@Param(name = "value", gen = IntGen.class, conf = "1:4")
public abstract class SingleKeyOperations {
    private final ConcurrentMap<Long, Long> target;
    private final ZeroCopyMap<Long, Long> zc;

    /** Operations on {@code map}, whose zero-copy API is {@code zc}. */
    protected SingleKeyOperations(ConcurrentMap<Long, Long> map, ZeroCopyMap<Long, Long> zc) {
        this.target = map;
        this.zc = zc;
    }

    /** The real key behind index {@code k} (1..3). */
    protected abstract long key(int k);

    /** Keys put into the map before the scenario, each mapped to itself, and never touched by it (none by default). */
    protected Collection<Long> fillers() {
        return List.of();
    }

    /** The function of {@link #computeIfPresent}: doubles odd values, removes even ones. */
    public static Long presentFunction(Long old) {
        return old % 2 == 0 ? null : old * 2;
    }

    /**
     * Lincheck makes one instance per invocation and never closes it; it makes the next only after the previous
     * invocation finished (results collected, validation run; were it otherwise, the closed map's operations would
     * throw and the test would fail). So each new instance closes its predecessor's map (and pool, if {@code owner}
     * closes one), which keeps the off-heap memory of a run bounded. Returns {@code fresh}.
     */
    public static <M> M retirePrevious(AtomicReference<AutoCloseable> previous, M fresh, AutoCloseable owner) {
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
        return target.get(key(k));
    }

    @Operation
    public boolean containsKey(@Param(name = "key") int k) {
        return target.containsKey(key(k));
    }

    @Operation
    public Long put(@Param(name = "key") int k, @Param(name = "value") int v) {
        return target.put(key(k), (long) v);
    }

    @Operation
    public Long putIfAbsent(@Param(name = "key") int k, @Param(name = "value") int v) {
        return target.putIfAbsent(key(k), (long) v);
    }

    @Operation
    public Long remove(@Param(name = "key") int k) {
        return target.remove(key(k));
    }

    @Operation
    public Long computeIfPresent(@Param(name = "key") int k) {
        return target.computeIfPresent(key(k), (key, old) -> presentFunction(old));
    }

    /** {@code zc().putIfAbsentComputeIfPresent}: inserts 1 or adds 1 in place. */
    @Operation
    public boolean zcIncrement(@Param(name = "key") int k) {
        return zc.putIfAbsentComputeIfPresent(key(k), 1L, view -> view.putLong(0, view.getLong(0) + 1));
    }

    /**
     * {@code zc().computeIfPresent} that grows the value to 16 bytes and shrinks it back, so that the value may move
     * to a new slice (the old one is deleted) while the entry stays, and adds 3.
     */
    @Operation
    public boolean zcMoveAndAdd(@Param(name = "key") int k) {
        return zc.computeIfPresent(key(k), view -> {
            long encoded = view.getLong(0);
            view.resize(16).putLong(8, -1L);
            view.resize(8).putLong(0, encoded + 3);
        });
    }

    /**
     * {@code zc().get} and a validated read through the handle ({@code Serializers.longs()} flips the sign bit); a
     * handle whose value was replaced or removed before the read ends throws
     * {@link ConcurrentModificationException}, and the lookup is repeated.
     */
    @Operation
    public Long zcGet(@Param(name = "key") int k) {
        while (true) {
            Handle handle = zc.get(key(k));
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
     * A cheap validation for the model checker, which replays every instruction of the validation too:
     * {@code size} agrees with the keys {@code containsKey} finds, and the fillers are unchanged.
     */
    protected void sizeAgreesWithLookups() {
        int present = 0;
        for (int k = 1; k <= 3; k++) {
            present += target.containsKey(key(k)) ? 1 : 0;
        }
        if (present + fillers().size() != target.size()) {
            throw new AssertionError("size() is " + target.size() + " but " + present + " of the 3 keys and "
                    + fillers().size() + " fillers are present");
        }
        fillersUnchanged();
    }

    /** Throws unless every filler still maps to itself. */
    protected void fillersUnchanged() {
        for (Long filler : fillers()) {
            if (!filler.equals(target.get(filler))) {
                throw new AssertionError("filler key " + filler + " changed: " + target.get(filler));
            }
        }
    }
}
