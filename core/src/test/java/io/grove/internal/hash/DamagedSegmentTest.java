package io.grove.internal.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveFileException;
import io.grove.GroveHashMap;
import io.grove.hash.ChildJvm;
import io.grove.hash.CrashWriter;
import io.grove.hash.LockHolder;
import io.grove.hash.RacingCreator;
import io.grove.hash.TableFiller;
import io.grove.internal.tool.FileTool;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A segment that a process which ended without closing the file left locked, and that is damaged beyond what a kill
 * leaves (its slot array is not a live slice), is repaired neither while the file is in use nor by the recovery of
 * the whole file: operations on it fail naming the ended process, its lock goes back to that process's record, the
 * other segments keep working, and the next open refuses the file naming the damage. {@code ./grove salvage} copies
 * the entries of the other segments into a new file (the damaged segment's entries cannot be found).
 */
class DamagedSegmentTest {
    private static final long KEY = 1; // the key LockHolder holds the segment of

    /** The settings of {@code LockHolder}'s map, so that this process opens the same file. */
    private static GroveHashMap.Builder<Long, String> builder(Path file) {
        return CrashWriter.builder(file, false).otherProcessWait(Duration.ofSeconds(5));
    }

    @Test
    void aDamagedSegmentThatAnEndedProcessLeftLockedFailsItsOperationsAndTheNextOpenAndIsLeftOutOfASalvage(
            @TempDir Path dir) throws Exception {
        Path file = dir.resolve("damaged.grove");
        Path output = dir.resolve("holder.out");
        OffHeapHashMap<Long, String> map = (OffHeapHashMap<Long, String>) builder(file).build();
        Map<Long, String> written;
        int s;
        try {
            Process holder = ChildJvm.start(LockHolder.class, output, file.toString());
            try {
                ChildJvm.awaitLine(holder, output, "holding");
            } finally {
                holder.destroyForcibly();
                assertTrue(holder.waitFor(30, TimeUnit.SECONDS), "the killed holder did not end");
            }
            HashTable table = map.table;
            s = lockedSegment(table);
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
            written = otherSegmentsTakePuts(map);
            assertTrue(written.size() > 0 && written.size() < 64, written.size() + " of 64 keys written");
        } finally {
            map.close();
        }
        assertRefusedAsDamaged(file);

        Path salvaged = dir.resolve("salvaged.grove");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        int status = FileTool.run(new String[] {"salvage", file.toString(), salvaged.toString()}, print, print);
        String said = out.toString(StandardCharsets.UTF_8);
        assertEquals(1, status, said);
        assertTrue(said.contains("segment " + s + ": slot array: reference 0 is not a live slice")
                && said.contains(written.size() + " entries copied"), said);
        try (GroveHashMap<Long, String> copy = builder(salvaged).build()) {
            assertEquals(written, new HashMap<>(copy));
        }
        assertEquals(0, FileTool.run(new String[] {"verify", salvaged.toString()}, print, print),
                out.toString(StandardCharsets.UTF_8));
    }

    /**
     * The same damage met by a process that opens the file in the ended holder's record, every other record being
     * taken ({@code TableFiller} stands for 254 live processes): its open fails naming the segment and the damage,
     * and gives the record back as it found it; this process's operations on the segment then fail as above, naming
     * the holder, the other segments keep working, and the next open after the last close refuses the file. It fails
     * when the failed open frees the record: the segment is then locked by a free record, which the others take for a
     * live process's and wait for until their wait limit, naming the opener.
     */
    @Test
    void anOpenInTheRecordOfAnEndedHolderOfADamagedSegmentFailsAndTheOtherProcessesGoOn(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("inherited-damaged.grove");
        OffHeapHashMap<Long, String> map = (OffHeapHashMap<Long, String>) builder(file).build();
        Process filler = null;
        try {
            Path holderOutput = dir.resolve("holder.out");
            Process holder = ChildJvm.start(LockHolder.class, holderOutput, file.toString());
            try {
                ChildJvm.awaitLine(holder, holderOutput, "holding"); // record 1: this process has record 0
                Path fillerOutput = dir.resolve("filler.out");
                filler = ChildJvm.start(TableFiller.class, fillerOutput, file.toString(), "254", "2");
                ChildJvm.awaitLine(filler, fillerOutput, "holding");
            } finally {
                holder.destroyForcibly();
                assertTrue(holder.waitFor(30, TimeUnit.SECONDS), "the killed holder did not end");
            }
            HashTable table = map.table;
            int s = lockedSegment(table);
            SegmentLayout.setSlots(table.block(s), table.offset(s), 0);

            String said = RacingCreator.runOnce(dir, file, 7, 1);
            assertTrue(said.contains("GroveFileException") && said.contains(file.toString())
                    && said.contains("segment " + s + " is locked by process " + holder.pid())
                    && said.contains("the slot array is not a live slice"), said);

            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> map.put(KEY, "x"));
            assertTrue(refused.getMessage().contains("is locked by process " + holder.pid())
                    && refused.getMessage().contains("cannot be repaired while the file is open")
                    && refused.getMessage().contains("the slot array is not a live slice"), refused.getMessage());
            assertFalse(otherSegmentsTakePuts(map).isEmpty(), "no key of the other segments was written");
        } finally {
            map.close();
            if (filler != null) {
                filler.destroyForcibly();
                assertTrue(filler.waitFor(30, TimeUnit.SECONDS), "the table's filler did not end");
            }
        }
        assertRefusedAsDamaged(file);
    }

    /**
     * Puts keys 2 to 65 (of all 16 segments), each read back: those of the damaged segment fail saying it cannot be
     * repaired, the others are written as ever. Returns those written.
     */
    private static Map<Long, String> otherSegmentsTakePuts(OffHeapHashMap<Long, String> map) {
        Map<Long, String> written = new HashMap<>();
        for (long k = 2; k < 66; k++) {
            try {
                map.put(k, "v" + k);
                assertEquals("v" + k, map.get(k));
                written.put(k, "v" + k);
            } catch (IllegalStateException inTheDamagedSegment) {
                assertTrue(inTheDamagedSegment.getMessage().contains("cannot be repaired"));
            }
        }
        return written;
    }

    /** The segment that a killed process left locked. */
    private static int lockedSegment(HashTable table) {
        for (int i = 0; i < table.segmentCount(); i++) {
            if (SegmentLayout.lockValue(table.block(i), table.offset(i)) > 0) {
                return i;
            }
        }
        throw new AssertionError("no segment was left locked");
    }

    private static void assertRefusedAsDamaged(Path file) {
        GroveFileException refused = assertThrows(GroveFileException.class, () -> builder(file).build());
        assertTrue(refused.getMessage().contains("cannot be recovered")
                && refused.getMessage().contains("the slot array is not a live slice"), refused.getMessage());
    }
}
