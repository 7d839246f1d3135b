package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.internal.tool.FileTool;
import io.grove.serial.Serializers;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code expectedSize} sizes the table without committing memory for entries that have not arrived, and is checked
 * against the memory limit. Before: {@code expectedSize(100_000_000)} reserved 1.1 GB before any put,
 * {@code expectedSize(1_000_000_000)} got the JVM killed by the kernel, and {@code Long.MAX_VALUE} overflowed into
 * the smallest table.
 */
class ExpectedSizeTest {
    private static final long MIB = 1L << 20;

    @Test
    void aLargeExpectedSizeCommitsLittleBeforeEntriesArrive() {
        try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .expectedSize(100_000_000).memoryLimit(4096 * MIB).build()) {
            long reserved = map.footprint().reservedBytes();
            assertTrue(reserved <= 48 * MIB, "reserved before any put: " + reserved);
            for (long k = 0; k < 100_000; k++) {
                map.put(k, k);
            }
            assertEquals(100_000, map.size());
            assertEquals(99_999L, map.get(99_999L));
        }
    }

    /**
     * A map in a file gets its whole table at once: filling it to its expected size grows next to no segment
     * ({@code HashTable.initialSlotBits}), where the table in memory would double as a whole, as the file's did until
     * 2026-11-25. (Keys fall in segments
     * at random, so a few segments may still get more than the share they were sized for; these keys are fixed, so
     * the figure is too.)
     */
    @Test
    void aMapInAFileIsSizedWholeForItsExpectedSize(@TempDir Path dir) {
        Path file = dir.resolve("sized.grove");
        long slotsAtFirst;
        try (GroveHashMap<Long, Long> map = GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                .file(file).maxFileSize(512 * MIB).expectedSize(3_000_000).build()) {
            slotsAtFirst = slots(file);
            assertTrue(slotsAtFirst >= 3_000_000 * 4 / 3, "slots: " + slotsAtFirst);
            for (long k = 0; k < 3_000_000; k++) {
                map.put(k, k);
            }
        }
        long slotsAfter = slots(file);
        assertTrue(slotsAfter <= slotsAtFirst * 101 / 100, "slots " + slotsAtFirst + " at first, "
                + slotsAfter + " after 3,000,000 puts");
    }

    /** The slots {@code ./grove inspect} reports. */
    private static long slots(Path file) {
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(report, true, StandardCharsets.UTF_8)) {
            assertEquals(0, FileTool.run(new String[] {"inspect", file.toString()}, out, out));
        }
        Matcher slots = Pattern.compile("(\\d+) slots").matcher(report.toString(StandardCharsets.UTF_8));
        assertTrue(slots.find(), report.toString(StandardCharsets.UTF_8));
        return Long.parseLong(slots.group(1));
    }

    @Test
    void anExpectedSizeWhoseTableExceedsTheMemoryLimitIsRejected() {
        IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class,
                () -> GroveHashMap.builder(Serializers.longs(), Serializers.longs())
                        .expectedSize(100_000_000).memoryLimit(512 * MIB).build());
        assertTrue(tooMany.getMessage().contains("expectedSize 100000000"), tooMany::getMessage);
        assertTrue(tooMany.getMessage().contains(String.valueOf(512 * MIB)), tooMany::getMessage);
        IllegalArgumentException overflow = assertThrows(IllegalArgumentException.class,
                () -> GroveHashMap.builder(Serializers.longs(), Serializers.longs()).expectedSize(Long.MAX_VALUE)
                        .build());
        assertTrue(overflow.getMessage().contains("expectedSize " + Long.MAX_VALUE), overflow::getMessage);
    }
}
