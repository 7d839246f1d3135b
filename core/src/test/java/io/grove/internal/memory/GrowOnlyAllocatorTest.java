package io.grove.internal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveOutOfMemoryException;
import io.grove.Reclamation;
import java.util.ConcurrentModificationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class GrowOnlyAllocatorTest {
    private final Pool pool = new Pool(1 << 16, 2 << 16, Reclamation.GROW_ONLY);

    @AfterEach
    void close() {
        pool.close();
    }

    @Test
    void deletedMemoryIsNeverReusedButStaleAccessStillFails() {
        long a = pool.allocate(100);
        assertTrue(pool.beginWrite(a) >= 0);
        assertTrue(pool.delete(a));
        assertFalse(pool.delete(a));
        pool.reclaimNow();
        long b = pool.allocate(100);
        assertNotEquals(Reference.granule(a), Reference.granule(b));
        assertFalse(pool.isLive(a));
        assertEquals(-1, pool.beginWrite(a));
        assertThrows(ConcurrentModificationException.class, () -> pool.length(a));
        assertEquals(128, pool.footprint().releasedBytes());
        assertEquals(0, pool.footprint().freeBytes());
    }

    @Test
    void limitIsFinalEvenAfterDeletes() {
        long first = pool.allocate(1000);
        GroveOutOfMemoryException oom = assertThrows(GroveOutOfMemoryException.class, () -> {
            while (true) {
                pool.delete(pool.allocate(1000));
            }
        });
        assertTrue(oom.getMessage().contains("grow-only"), oom.getMessage());
        assertTrue(pool.isLive(first), "the pool stays consistent");
        assertEquals(1, pool.footprint().liveSlices());
    }
}
