package io.grove.internal.hash;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.Reclamation;
import io.grove.internal.memory.Pool;
import io.grove.serial.Serializers;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link HashTable#quiesce} of the last process to close a file. */
class QuiesceTest {
    /**
     * A segment that is already marked closed (only a last close marks segments so, and another process's close that
     * took itself for the last did) does not hold the last close for ever: the close ends and reports the table
     * unsound, for the recovery of the next open. Without the check, the close waited on the mark without end.
     */
    @Test
    void aSegmentAlreadyClosedEndsTheLastCloseAsUnsound() {
        try (Pool pool = new Pool(1 << 16, 1 << 28, Reclamation.NOVA)) {
            OffHeapHashMap<Long, String> map = new OffHeapHashMap<>(pool, false, Serializers.longs(),
                    Serializers.strings(), 16, new OffHeapHashMap.Bounds<>(Long.MAX_VALUE, Long.MAX_VALUE, null,
                            false));
            map.put(1L, "one");
            MemorySegment sb = map.table.block(0);
            long so = map.table.offset(0);
            assertTrue(SegmentLayout.tryLock(sb, so, 6));
            SegmentLayout.markClosed(sb, so);
            boolean sound = assertTimeoutPreemptively(Duration.ofSeconds(10), () -> map.table.quiesce(() -> true));
            assertFalse(sound);
        }
    }
}
