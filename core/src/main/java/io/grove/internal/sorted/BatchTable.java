package io.grove.internal.sorted;

import io.grove.internal.sync.Backoff;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The batches of an ordered map that hold claims now, by id: a value header has room for a batch's id but not for
 * a reference to it ({@link ValueHeader}), so a reader that meets a claimed header finds the batch here.
 *
 * <h2>Implementation notes</h2>
 *
 * <p>A batch takes a free slot by a CAS from {@code null}; its id is the slot's generation (a per-slot counter,
 * incremented by every batch that takes the slot) times {@link #SLOTS} plus the slot, so ids never repeat and a
 * slot's counter is contended only by batches that pick the same slot (they start at a random one). A batch
 * frees its slot only after every header it claimed was written back or retired, so a reader that finds another
 * batch, or none, in the slot of a claimed header it read knows that the header has changed since.
 */
final class BatchTable {
    /** The number of batches that can hold claims at once; more wait for a slot. */
    static final int SLOTS = 256;

    private final AtomicReferenceArray<Batch> slots = new AtomicReferenceArray<>(SLOTS);
    private final AtomicLongArray generations = new AtomicLongArray(SLOTS);

    /** Takes a slot for a new batch of {@code size} keys, waiting while every slot is taken. */
    Batch begin(int size) {
        int start = ThreadLocalRandom.current().nextInt(SLOTS);
        for (int attempt = 0; ; attempt++) {
            for (int i = 0; i < SLOTS; i++) {
                int slot = (start + i) & (SLOTS - 1);
                if (slots.getPlain(slot) == null) {
                    long id = generations.incrementAndGet(slot) * SLOTS + slot; // 2^51 batches per slot fit
                    Batch batch = new Batch(id, size);
                    if (slots.compareAndSet(slot, null, batch)) {
                        return batch;
                    }
                }
            }
            Backoff.pause(attempt);
        }
    }

    /** Frees the slot of {@code batch}, which holds no claim any more. */
    void end(Batch batch) {
        slots.setRelease(slotOf(batch.id), null);
    }

    /** The batch that claims a value with header {@code claimed}, or {@code null} if it has ended since. */
    Batch claimant(long claimed) {
        long id = ValueHeader.batchOf(claimed);
        Batch batch = slots.getAcquire(slotOf(id));
        return batch != null && batch.id == id ? batch : null;
    }

    /** Waits until no batch holds a slot (for the close, once no new batch can start). */
    void awaitNone() {
        for (int slot = 0; slot < SLOTS; slot++) {
            for (int attempt = 0; slots.getAcquire(slot) != null; attempt++) {
                Backoff.pause(attempt);
            }
        }
    }

    private static int slotOf(long id) {
        return (int) (id & (SLOTS - 1));
    }
}
