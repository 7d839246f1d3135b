package io.grove.internal.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveFileException;
import io.grove.GroveHashMap;
import io.grove.hash.ChildJvm;
import io.grove.hash.CrashWriter;
import io.grove.hash.LockHolder;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A segment that a process which ended without closing the file left locked, and that is damaged beyond what a kill
 * leaves (its slot array is not a live slice), is repaired neither while the file is in use nor by the recovery of
 * the whole file: operations on it fail naming the ended process, its lock goes back to that process's record, the
 * other segments keep working, and the next open refuses the file naming the damage. (Nothing repairs such a file
 * today: the segment's entries cannot be found.)
 */
class DamagedSegmentTest {
    private static final long KEY = 1; // the key LockHolder holds the segment of

    /** The settings of {@code LockHolder}'s map, so that this process opens the same file. */
    private static GroveHashMap.Builder<Long, String> builder(Path file) {
        return CrashWriter.builder(file, false).otherProcessWait(Duration.ofSeconds(5));
    }

    @Test
    void aDamagedSegmentThatAnEndedProcessLeftLockedFailsItsOperationsAndTheNextOpen(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("damaged.grove");
        Path output = dir.resolve("holder.out");
        OffHeapHashMap<Long, String> map = (OffHeapHashMap<Long, String>) builder(file).build();
        try {
            Process holder = ChildJvm.start(LockHolder.class, output, file.toString());
            try {
                ChildJvm.awaitLine(holder, output, "holding");
            } finally {
                holder.destroyForcibly();
                assertTrue(holder.waitFor(30, TimeUnit.SECONDS), "the killed holder did not end");
            }
            HashTable table = map.table;
            int s = -1;
            for (int i = 0; i < table.segmentCount(); i++) {
                if (SegmentLayout.lockValue(table.block(i), table.offset(i)) > 0) {
                    s = i;
                }
            }
            assertTrue(s >= 0, "no segment was left locked");
            MemorySegment block = table.block(s);
            long offset = table.offset(s);
            int endedLock = SegmentLayout.lockValue(block, offset);
            SegmentLayout.setSlots(block, offset, 0); // damage no kill leaves: the slot array is gone

            for (int attempt = 0; attempt < 2; attempt++) {
                IllegalStateException refused = assertThrows(IllegalStateException.class, () -> map.put(KEY, "x"));
                assertTrue(refused.getMessage().contains("process " + holder.pid())
                        && refused.getMessage().contains("cannot be repaired while the file is open")
                        && refused.getMessage().contains("the slot array is not a live slice"), refused.getMessage());
                assertEquals(endedLock, SegmentLayout.lockValue(block, offset), "the lock went back to the record");
            }
            int written = 0;
            for (long k = 2; k < 66; k++) { // keys of the other segments (of 16) take puts as ever
                try {
                    map.put(k, "v" + k);
                    written++;
                } catch (IllegalStateException inTheDamagedSegment) {
                    assertTrue(inTheDamagedSegment.getMessage().contains("cannot be repaired"));
                }
            }
            assertTrue(written > 0 && written < 64, written + " of 64 keys written");
        } finally {
            map.close();
        }
        GroveFileException refused = assertThrows(GroveFileException.class, () -> builder(file).build());
        assertTrue(refused.getMessage().contains("cannot be recovered")
                && refused.getMessage().contains("the slot array is not a live slice"), refused.getMessage());
    }
}
