package io.grove.bench.batches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.bench.ThreadContext;
import io.grove.bench.WorkerConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The batch family's contenders end with as many entries as each other after the same operations (batches of random,
 * consecutive and Zipfian ids, gets, puts, snapshot scans and gets, plain scans), every value whole and at its key,
 * and the family's checks catch a value written at the wrong key.
 */
class BatchFamilyTest {
    private static final int IDS = 20_000;
    private static final WorkerConfig CONFIG =
            new WorkerConfig("batch-100-zipf", "test", 1, 0, 0, IDS, BatchCodec.VALUE_SIZE, 64L << 20, 1);

    @Test
    void everyContenderEndsWithTheSameSizeAndSoundEntries() {
        try (GroveBatches grove = new GroveBatches(64L << 20, true); CslmBatches cslm = new CslmBatches(false);
                CslmBatches locked = new CslmBatches(true)) {
            for (BatchStore store : List.of(grove, cslm, locked)) {
                BatchFamily family = BatchFamily.INSTANCE;
                family.prepare(CONFIG);
                family.prefill(store, CONFIG);
                assertEquals(IDS / 2, store.size());
                ThreadContext c = new ThreadContext(7, family.operations().size());
                for (int i = 0; i < 5_000; i++) {
                    int op = i % family.operations().size();
                    family.perform(store, op, ThreadContext.below(c.nextLong(), IDS), c);
                }
                assertEquals(0, c.mismatches, "values read that are not their key's");
                assertTrue(c.misses > 0 && c.misses < 2_000, "gets of absent ids: " + c.misses);
                assertEquals(0, family.verify(store, CONFIG));
            }
            assertEquals(cslm.size(), grove.size());
            assertEquals(cslm.size(), locked.size());
            assertTrue(grove.size() != IDS / 2, "the batches changed the size");
        }
    }

    @Test
    void aValueOfAnotherKeyIsCaught() {
        try (GroveBatches grove = new GroveBatches(64L << 20, false); CslmBatches cslm = new CslmBatches(false)) {
            for (BatchStore store : List.of(grove, cslm)) {
                BatchThread t = new BatchThread(1);
                BatchCodec.setKey(t.key, 5);
                BatchCodec.setValue(t.value, 6, 0);
                store.put(t);
                assertEquals(1, store.verify());
                ThreadContext c = new ThreadContext(1, 1);
                assertTrue(store.get(5, t, c));
                assertEquals(1, c.mismatches);
            }
        }
    }
}
