package io.grove.internal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.Reclamation;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link PoolCheck} finds nothing in a pool at rest after any mix of operations, and each kind of damage. */
class PoolCheckTest {
    /** Small blocks, so that slices of up to 4 KiB skip block tails often. */
    private static Pool pool() {
        return new Pool(1 << 16, 1 << 26, Reclamation.NOVA);
    }

    /** Allocations of random sizes, half deleted (shared and private), drained: every release reclaimed. */
    private static List<Long> churn(Pool pool, Random random) {
        List<Long> live = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            long ref = pool.allocate(random.nextInt(4_000));
            if (random.nextInt(4) == 0) {
                pool.deletePrivate(ref);
            } else {
                live.add(ref);
            }
            if (live.size() > 100 && random.nextBoolean()) {
                pool.delete(live.remove(random.nextInt(live.size())));
            }
        }
        pool.reclaimNow();
        return live;
    }

    @Test
    void aPoolAtRestHasNoProblem() {
        try (Pool pool = pool()) {
            churn(pool, new Random(1));
            assertEquals(List.of(), PoolCheck.check(pool));
        }
    }

    @Test
    void aDeletedSliceOnNoFreeListIsLost() {
        try (Pool pool = pool()) {
            List<Long> live = churn(pool, new Random(2));
            long ref = live.getFirst();
            long g = Reference.granule(ref);
            SliceHeader.setStatePlain(pool.blocks().block(g), pool.blocks().offsetInBlock(g),
                    SliceHeader.asDeleted(SliceHeader.statePlain(pool.blocks().block(g),
                            pool.blocks().offsetInBlock(g))));
            List<String> problems = PoolCheck.check(pool);
            assertTrue(problems.stream().anyMatch(p -> p.contains("granule " + g) && p.contains("on no free list")),
                    problems.toString());
            assertTrue(problems.stream().anyMatch(p -> p.contains("live slices, the pool records")),
                    problems.toString());
        }
    }

    @Test
    void aLiveSliceOnAFreeListAndABrokenHeaderAreFound() {
        try (Pool pool = pool()) {
            churn(pool, new Random(3));
            long free = pool.allocate(100);
            pool.deletePrivate(free); // on the free list of its class now
            long g = Reference.granule(free);
            long header = pool.blocks().offsetInBlock(g);
            SliceHeader.setStatePlain(pool.blocks().block(g), header, SliceHeader.state(1, 100));
            List<String> problems = PoolCheck.check(pool);
            assertTrue(problems.stream().anyMatch(p -> p.contains("granule " + g) && p.contains("is live")),
                    problems.toString());

            SliceHeader.clearMagic(pool.blocks().block(g), header);
            problems = PoolCheck.check(pool);
            assertTrue(problems.stream().anyMatch(p -> p.contains("granule " + g) && p.contains("no sound header")),
                    problems.toString());
        }
    }
}
