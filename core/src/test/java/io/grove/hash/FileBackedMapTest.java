package io.grove.hash;

import static io.grove.testing.Bytes.indexOf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveFileException;
import io.grove.GroveHashMap;
import io.grove.internal.file.FileHeader;
import io.grove.internal.hash.OffHeapHashMap;
import io.grove.internal.tool.FileTool;
import io.grove.serial.Serializers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * A hash map in a file: what was in it when it was closed is there when it is reopened, the memory of removed
 * entries is reused after a reopen, and every kind of bad file is refused with {@link GroveFileException} (or
 * {@link IllegalArgumentException} for contradicting settings) naming the file, changing nothing in it.
 */
class FileBackedMapTest {
    private static final long SIZE = 64L << 20;

    @TempDir
    Path dir;

    /** The builder of every map of the tests; {@link WithCells} runs them all on a table with cells. */
    GroveHashMap.Builder<Long, String> builder(Path file) {
        return GroveHashMap.builder(Serializers.longs(), Serializers.strings()).file(file).maxFileSize(SIZE);
    }

    /** The cell size {@link #builder} gives a file's table. */
    long cellBytes() {
        return OffHeapHashMap.SLOT_CELLS;
    }

    /**
     * Every test on a table whose entries lie in its cells where they fit ({@code inlineEntries}: keys of 8 bytes,
     * values of up to 40, which holds nearly all of these tests' values; a put of a value of another length moves an
     * entry of a file's table between its cell and a slice of its own, which the random operations exercise).
     */
    static final class WithCells extends FileBackedMapTest {
        @Override
        GroveHashMap.Builder<Long, String> builder(Path file) {
            return super.builder(file).inlineEntries(Long.BYTES, 40);
        }

        @Override
        long cellBytes() {
            return OffHeapHashMap.cellBytesFor(Long.BYTES, 40);
        }

        @Test
        void aFileWithCellsIsNotOpenedWithoutThem() throws IOException {
            Path file = soundFile("cells.grove");
            assertRefused(IllegalArgumentException.class, file, "cell size (inlineEntries) is " + cellBytes()
                    + " in the file, 8 wanted", () -> super.builder(file).build());
            try (GroveHashMap<Long, String> map = builder(file).build()) {
                assertEquals("one", map.get(1L));
            }
        }
    }

    /**
     * Random operations against a {@link HashMap}, the file closed and reopened at random points (a small
     * expected size makes segments grow all along, so some closes fall in the middle of a growth); contents
     * compared after every reopen.
     */
    @Test
    void reopeningGivesBackExactlyTheEntriesAtTheClose() {
        Path file = dir.resolve("map.grove");
        Random random = new Random(3);
        Map<Long, String> reference = new HashMap<>();
        GroveHashMap<Long, String> map = builder(file).expectedSize(16).build();
        int reopens = 0;
        try {
            for (int step = 0; step < 40_000; step++) {
                long key = random.nextInt(10_000);
                switch (random.nextInt(4)) {
                    case 0, 1 -> assertEquals(reference.put(key, "v" + step), map.put(key, "v" + step));
                    case 2 -> assertEquals(reference.remove(key), map.remove(key));
                    default -> assertEquals(reference.get(key), map.get(key));
                }
                if (random.nextInt(2_000) == 0) {
                    map.close();
                    map = builder(file).build();
                    reopens++;
                    assertEquals(reference, new HashMap<>(map), "after reopen " + reopens + ", step " + step);
                    assertEquals(reference.size(), map.size());
                }
            }
        } finally {
            map.close();
        }
        assertTrue(reopens >= 10, "reopened only " + reopens + " times");
        try (GroveHashMap<Long, String> last = builder(file).build()) {
            assertEquals(reference, new HashMap<>(last));
        }
    }

    /** Removed entries' memory is reused after a reopen: a churn across many reopens does not grow the file's use. */
    @Test
    void memoryOfRemovedEntriesIsReusedAfterAReopen() {
        Path file = dir.resolve("churn.grove");
        long usedAfterFirstRound = 0;
        for (int round = 0; round < 20; round++) {
            try (GroveHashMap<Long, String> map = builder(file).build()) {
                for (long k = 0; k < 2_000; k++) {
                    map.put(k, "round " + round + " ".repeat(100));
                }
                for (long k = 0; k < 2_000; k++) {
                    map.remove(k);
                }
                long used = map.footprint().allocatedBytes();
                if (round == 0) {
                    usedAfterFirstRound = used;
                } else {
                    assertTrue(used <= usedAfterFirstRound + (1 << 20), "round " + round + ": " + used
                            + " bytes allocated, " + usedAfterFirstRound + " after the first round");
                }
                assertEquals(0, map.size());
            }
        }
    }

    @Test
    void zeroCopyReadsWorkOnAReopenedFile() {
        Path file = dir.resolve("zc.grove");
        try (GroveHashMap<Long, String> map = builder(file).build()) {
            map.put(7L, "seven");
        }
        try (GroveHashMap<Long, String> map = builder(file).build()) {
            assertEquals("seven".length(), map.zc().get(7L).size()); // a handle on the value's bytes in the file
            assertEquals("seven", map.get(7L));
        }
    }

    @Test
    void aNewFileIsSparse() throws IOException, InterruptedException {
        Path file = dir.resolve("sparse.grove");
        try (GroveHashMap<Long, String> map = builder(file).maxFileSize(8L << 30).build()) {
            map.put(1L, "one");
        }
        assertEquals(8L << 30, Files.size(file));
        Process du = new ProcessBuilder("du", "--block-size=1", file.toString()).redirectErrorStream(true).start();
        String out = new String(du.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, du.waitFor(), out);
        long disk = Long.parseLong(out.trim().split("\\s+")[0]);
        assertTrue(disk < 64L << 20, "an 8 GiB file with one entry takes " + disk + " bytes of disk");
    }

    // ---- bad files ---------------------------------------------------------------------------------------------

    Path soundFile(String name) {
        Path file = dir.resolve(name);
        try (GroveHashMap<Long, String> map = builder(file).build()) {
            map.put(1L, "one");
        }
        return file;
    }

    private static byte[] header(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer page = ByteBuffer.allocate(4096);
            channel.read(page, 0);
            return page.array();
        }
    }

    private static void overwrite(Path file, long offset, byte[] bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(bytes), offset);
        }
    }

    /** {@code open} throws {@code type} with a message naming the file and containing {@code what}; no byte moved. */
    private static <T extends Throwable> void assertRefused(Class<T> type, Path file, String what, Executable open)
            throws IOException {
        byte[] before = Files.exists(file) && !Files.isDirectory(file) ? Files.readAllBytes(file.toRealPath())
                : null;
        T e = assertThrows(type, open::execute);
        assertTrue(e.getMessage().contains(file.toAbsolutePath().toString()), "the file is not named: " + e);
        assertTrue(e.getMessage().contains(what), "'" + what + "' is not in: " + e);
        if (before != null) {
            assertArrayEquals(before, Files.readAllBytes(file), "the failed open changed the file");
        }
    }

    @Test
    void aFileThatIsNotAGroveFileIsRefused() throws IOException {
        Path text = dir.resolve("text.grove");
        Files.writeString(text, "hello ".repeat(1_000));
        assertRefused(GroveFileException.class, text, "not a Grove file", () -> builder(text).build());
        Path empty = Files.createFile(dir.resolve("empty.grove"));
        assertRefused(GroveFileException.class, empty, "empty", () -> builder(empty).build());
        Path tiny = dir.resolve("tiny.grove");
        Files.write(tiny, new byte[] {1, 2, 3});
        assertRefused(GroveFileException.class, tiny, "too short", () -> builder(tiny).build());
    }

    @Test
    void aNewerFormatIsRefusedAndTheFileStillOpensAfterwards() throws IOException {
        Path file = soundFile("newer.grove");
        byte[] original = header(file);
        int newer = FileHeader.FORMAT_VERSION + 1;
        overwrite(file, 8, new byte[] {(byte) newer, 0, 0, 0});
        assertRefused(GroveFileException.class, file, "format version " + newer, () -> builder(file).build());
        int older = FileHeader.FORMAT_VERSION - 1; // never released
        overwrite(file, 8, new byte[] {(byte) older, 0, 0, 0});
        assertRefused(GroveFileException.class, file, "format version " + older, () -> builder(file).build());
        overwrite(file, 0, original);
        try (GroveHashMap<Long, String> map = builder(file).build()) {
            assertEquals("one", map.get(1L));
        }
    }

    @Test
    void aDamagedHeaderIsRefused() throws IOException {
        Path file = soundFile("damaged.grove");
        byte[] page = header(file);
        page[30] ^= 0x10; // inside the settings, covered by the checksum
        overwrite(file, 0, page);
        assertRefused(GroveFileException.class, file, "damaged header", () -> builder(file).build());
    }

    @Test
    void aTruncatedFileIsRefused() throws IOException {
        Path file = soundFile("truncated.grove");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(SIZE / 2);
        }
        assertRefused(GroveFileException.class, file, "truncated", () -> builder(file).build());
    }

    @Test
    void contradictingSettingsAreNamedWithBothValues() throws IOException {
        Path file = soundFile("settings.grove");
        assertRefused(IllegalArgumentException.class, file, "maxFileSize is " + SIZE + " in the file, "
                + (SIZE * 2) + " wanted", () -> builder(file).maxFileSize(SIZE * 2).build());
        assertRefused(IllegalArgumentException.class, file, "maximumSize", () -> GroveHashMap
                .builder(Serializers.longs(), Serializers.strings()).file(file).maxFileSize(SIZE).maximumSize(10)
                .build()); // (bounded maps take no cells yet)
        int cells = (int) OffHeapHashMap.cellBytesFor(Long.BYTES, 100);
        assertRefused(IllegalArgumentException.class, file, "cell size (inlineEntries) is "
                + cellBytes() + " in the file, " + cells + " wanted",
                () -> builder(file).inlineEntries(Long.BYTES, 100).build());
        assertRefused(IllegalArgumentException.class, file, "value serializer", () -> GroveHashMap
                .builder(Serializers.longs(), Serializers.longs()).file(file).maxFileSize(SIZE).build());
        try (GroveHashMap<Long, String> map = builder(file).expectedSize(1_000_000).build()) {
            assertEquals("one", map.get(1L), "expectedSize only sizes a new file");
        }
    }

    @Test
    void aDirectoryOrAMissingDirectoryIsRefused() throws IOException {
        assertRefused(GroveFileException.class, dir, "is a directory", () -> builder(dir).build());
        Path orphan = dir.resolve("no/such/dir/map.grove");
        assertRefused(GroveFileException.class, orphan, "directory does not exist", () -> builder(orphan).build());
    }

    /**
     * A symbolic link to a file that does not exist is refused, naming it, and nothing is created: an open finds no
     * file there, and a creation finds the name taken (it recursed between the two until the stack overflowed).
     */
    @Test
    void aSymbolicLinkToAMissingFileIsRefused() throws IOException {
        Path link = Files.createSymbolicLink(dir.resolve("dangling.grove"), dir.resolve("missing.grove"));
        assertRefused(GroveFileException.class, link, "symbolic link to a file that does not exist",
                () -> builder(link).build());
        try (var names = Files.list(dir)) {
            assertEquals(List.of(link), names.toList());
        }
    }

    @Test
    void aFileOpenInThisProcessIsNotOpenedTwice() throws Exception {
        Path file = soundFile("twice.grove");
        Path link = Files.createLink(dir.resolve("another-name.grove"), file);
        try (GroveHashMap<Long, String> map = builder(file).build()) {
            assertEquals("open in 1", processesWithTheFileOpen(file));
            // (no assertRefused: its reading of the file's bytes would open and close a descriptor of it)
            IllegalStateException twice = assertThrows(IllegalStateException.class, () -> builder(file).build());
            assertTrue(twice.getMessage().contains(file + " is open already in this process"), twice.getMessage());
            IllegalStateException linked = assertThrows(IllegalStateException.class, () -> builder(link).build());
            assertTrue(linked.getMessage().contains("open already in this process (under another name)"),
                    linked.getMessage());
            // the refusals opened no descriptor of the file: closing one would have released this process's locks
            assertEquals("open in 1", processesWithTheFileOpen(file), "another process sees this one's map open");
            assertEquals("one", map.get(1L));
        }
        try (GroveHashMap<Long, String> map = builder(file).build()) {
            assertEquals("one", map.get(1L), "reopens after the close");
        }
    }

    /** What another process finds of the processes that have {@code file} open ({@link OpenProcesses}). */
    private static String processesWithTheFileOpen(Path file) throws Exception {
        Process child = ChildJvm.of(OpenProcesses.class, file.toString()).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(child.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "the child did not end");
        assertEquals(0, child.exitValue(), output);
        return output;
    }

    /**
     * A thread whose interrupt status is set fills the map until the file grows several times: a thread interrupted
     * in a blocking operation of a {@code FileChannel} (a write, a lock) closes the channel, which releases every lock
     * the process holds on the file, so the other processes would take it for ended. The file's growth runs where no
     * interrupt reaches it: the puts succeed, the thread keeps its interrupt status, and the map grows on and reopens
     * whole. (Before, the first growth failed with {@code ClosedByInterruptException} and every later one too.)
     */
    @Test
    void anInterruptedWriterDoesNotCloseTheFile() throws Exception {
        Path file = dir.resolve("interrupted.grove");
        String value = "v".repeat(1_000);
        try (GroveHashMap<Long, String> map = builder(file).build()) {
            Throwable[] failed = new Throwable[1];
            boolean[] keptItsInterrupt = new boolean[1];
            Thread writer = new Thread(() -> {
                Thread.currentThread().interrupt();
                try {
                    for (long k = 0; k < 20_000; k++) {
                        map.put(k, value);
                    }
                } catch (RuntimeException | Error e) {
                    failed[0] = e;
                }
                keptItsInterrupt[0] = Thread.currentThread().isInterrupted();
            });
            writer.start();
            writer.join();
            if (failed[0] != null) {
                throw new AssertionError("a put of the interrupted thread failed", failed[0]);
            }
            assertTrue(keptItsInterrupt[0], "the writer's interrupt status was cleared");
            for (long k = 20_000; k < 30_000; k++) {
                map.put(k, value);
            }
        }
        try (GroveHashMap<Long, String> map = builder(file).build()) {
            assertEquals(30_000, map.size());
            assertEquals(value, map.get(0L));
            assertEquals(value, map.get(29_999L));
        }
    }

    /**
     * Another program truncates the file while the map has it open: the mapping beyond the new end faults, which
     * the JVM reports as {@link InternalError} from the map's operations instead of crashing; the close records
     * nothing (it cannot) but releases the file, which then opens no more (truncated) without harm to the process.
     */
    @Test
    void aFileTruncatedWhileOpenFailsOperationsButNotTheProcess() throws IOException {
        Path file = dir.resolve("cut.grove");
        GroveHashMap<Long, String> map = builder(file).build();
        for (long k = 0; k < 1_000; k++) {
            map.put(k, "value " + k);
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(4096);
        }
        InternalError fault = assertThrows(InternalError.class, () -> {
            for (long k = 0; k < 1_000; k++) {
                map.get(k);
            }
        });
        assertTrue(fault.getMessage().contains("unsafe memory access"), fault.getMessage());
        assertThrows(InternalError.class, map::close);
        assertRefused(GroveFileException.class, file, "truncated", () -> builder(file).build());
    }

    /**
     * A copy of the file taken while its map is open is what a process killed between two operations leaves (its
     * pool state says open, the free lists and release stripes were on its heap): opening the copy recovers it, with
     * the entries of the moment of the copy, and the memory of the entries removed before is reused. Random
     * operations against a {@link HashMap}; the copy replaces the map at random points, so some copies fall in the
     * middle of a growth; contents compared after every recovery, and {@code verify} passes on the last file.
     */
    @Test
    void aCopyTakenWhileOpenIsRecoveredWithItsEntries() throws IOException {
        Random random = new Random(5);
        Map<Long, String> reference = new HashMap<>();
        Path file = dir.resolve("live0.grove");
        GroveHashMap<Long, String> map = builder(file).expectedSize(16).build();
        int recoveries = 0;
        try {
            for (int step = 0; step < 30_000; step++) {
                long key = random.nextInt(5_000);
                switch (random.nextInt(4)) {
                    case 0, 1 -> assertEquals(reference.put(key, "v" + step), map.put(key, "v" + step));
                    case 2 -> assertEquals(reference.remove(key), map.remove(key));
                    default -> assertEquals(reference.get(key), map.get(key));
                }
                if (random.nextInt(1_500) == 0) {
                    Path copy = dir.resolve("live" + (++recoveries) + ".grove");
                    Files.copy(file, copy);
                    map.close();
                    Files.delete(file);
                    file = copy;
                    map = builder(file).build();
                    assertEquals(reference, new HashMap<>(map), "after recovery " + recoveries + ", step " + step);
                    assertEquals(reference.size(), map.size());
                }
            }
        } finally {
            map.close();
        }
        assertTrue(recoveries >= 10, "recovered only " + recoveries + " times");
        assertEquals(0, FileTool.run(new String[] {"verify", file.toString()}, System.out, System.err),
                "verify after the last recovery");
    }

    /** Recovery reuses what the dead process had freed: a churn across many recoveries does not grow the use. */
    @Test
    void memoryFreedBeforeAKillIsReusedAfterRecovery() throws IOException {
        Path file = dir.resolve("churn0.grove");
        long usedAfterFirstRound = 0;
        for (int round = 0; round < 12; round++) {
            try (GroveHashMap<Long, String> map = builder(file).build()) {
                for (long k = 0; k < 5_000; k++) {
                    map.put(k, String.format("round %02d value %d", round, k));
                }
                for (long k = 0; k < 5_000; k++) {
                    map.remove(k);
                }
                if (round == 1) {
                    usedAfterFirstRound = map.footprint().allocatedBytes();
                } else if (round > 1) {
                    assertEquals(usedAfterFirstRound, map.footprint().allocatedBytes(), "round " + round);
                }
                Path copy = dir.resolve("churn" + (round + 1) + ".grove");
                Files.copy(file, copy);
                file = copy;
            }
        }
    }

    /**
     * A file closed without being forced, reopened after the operating system restarted (simulated by writing
     * another boot id into its pool state, as {@code docs/memory-layout.md} places it), may have reached the disk in
     * part, its record of the close among them: {@code verify} says so, and the open recovers it (walks and repairs
     * it) instead of trusting its record, here a bump pointer of 0 as if that word of the close never reached the
     * disk (trusted, it would hand out the live entries' memory again). A file closed with {@code syncOnClose} is
     * trusted after a restart.
     */
    @Test
    void aFileNotForcedAtItsCloseIsRecoveredAfterASystemRestart() throws IOException {
        Path file = dir.resolve("restart.grove");
        Map<Long, String> expected = new HashMap<>();
        try (GroveHashMap<Long, String> map = builder(file).build()) {
            for (long k = 0; k < 1_000; k++) {
                map.put(k, "value " + k);
                expected.put(k, "value " + k);
            }
        }
        otherBoot(file);
        overwrite(file, FileHeader.STATE_OFFSET + 8, new byte[8]); // the recorded bump pointer, lost
        String report = run("verify", file);
        assertTrue(report.contains("closed without being forced, and the operating system restarted"), report);
        try (GroveHashMap<Long, String> map = builder(file).build()) {
            assertEquals(expected, new HashMap<>(map));
            for (long k = 1_000; k < 2_000; k++) {
                map.put(k, "value " + k);
                expected.put(k, "value " + k);
            }
            assertEquals(expected, new HashMap<>(map));
        }
        assertTrue(run("verify", file).contains(": sound"), run("verify", file));

        try (GroveHashMap<Long, String> map = builder(file).syncOnClose().build()) {
            map.put(2_000L, "forced");
        }
        otherBoot(file);
        assertTrue(run("inspect", file).contains("closed cleanly  yes, forced"), run("inspect", file));
        assertTrue(run("verify", file).contains(": sound"), "forced at its close");
        try (GroveHashMap<Long, String> map = builder(file).build()) {
            assertEquals("forced", map.get(2_000L));
        }
    }

    /**
     * An entry torn by an operating-system crash (one of its pages written back, another not: here one byte of its
     * value changed behind the map's back in a file closed without force, then a restart): {@code verify} names it
     * by its check word, and the recovery drops it and keeps every other entry. Without the check word the entry
     * comes back with a value nobody wrote.
     */
    @Test
    void aTornEntryIsFoundByItsCheckWordAndDroppedAfterASystemRestart() throws IOException {
        Path file = dir.resolve("torn.grove");
        Map<Long, String> expected = new HashMap<>();
        String marker = "a value that is torn after a crash";
        try (GroveHashMap<Long, String> map = builder(file).build()) {
            for (long k = 0; k < 1_000; k++) {
                map.put(k, "value " + k);
                expected.put(k, "value " + k);
            }
            map.put(-1L, marker);
        }
        byte[] bytes = Files.readAllBytes(file);
        byte[] markerBytes = marker.getBytes(StandardCharsets.UTF_8);
        int at = indexOf(bytes, markerBytes);
        assertTrue(at > 0, "the marker value is in the file");
        for (; at >= 0; at = indexOf(bytes, markerBytes, at + 1)) { // with cells, also in a freed private entry
            overwrite(file, at + 2, new byte[] {'X'});
        }
        otherBoot(file);
        String report = run("verify", file);
        assertTrue(report.contains("(a torn entry)"), report);
        try (GroveHashMap<Long, String> map = builder(file).build()) {
            assertEquals(expected, new HashMap<>(map));
            map.put(-1L, "written again");
        }
        assertTrue(run("verify", file).contains(": sound"), run("verify", file));
    }

    /** Writes a boot id other than this system's into {@code file}'s pool state (bytes 48-63 of it). */
    private static void otherBoot(Path file) throws IOException {
        byte[] other = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
        overwrite(file, FileHeader.STATE_OFFSET + 48, other);
    }

    /** What {@code ./grove COMMAND FILE} prints. */
    private static String run(String command, Path file) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            FileTool.run(new String[] {command, file.toString()}, print, print);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * A recovery continues the dead process's last block with the bump pointer: a map that grows a little between
     * recoveries stays in the blocks it has (until 2026-11-25 each recovery began a new 8 MiB block).
     */
    @Test
    void recoveriesTakeNoNewBlock() throws IOException {
        Path file = dir.resolve("grow0.grove");
        long reservedAfterFirstRound = 0;
        for (int round = 0; round < 8; round++) {
            try (GroveHashMap<Long, String> map = builder(file).build()) {
                for (long k = round * 500L; k < (round + 1) * 500L; k++) {
                    map.put(k, "value " + k);
                }
                if (round == 0) {
                    reservedAfterFirstRound = map.footprint().reservedBytes();
                } else {
                    assertEquals(reservedAfterFirstRound, map.footprint().reservedBytes(), "round " + round);
                    assertEquals((round + 1) * 500L, map.size());
                }
                Path copy = dir.resolve("grow" + (round + 1) + ".grove");
                Files.copy(file, copy); // what a kill leaves
                file = copy;
            }
        }
    }

    /**
     * {@code sync()} forces a map in a file and does nothing for one in memory; after the close it throws. A map
     * built with {@code syncEvery} runs one daemon thread that forces the file until the close, which stops it;
     * {@code syncOnClose} closes and reopens like any map. The sync settings apply to maps in files only.
     */
    @Test
    void syncForcesTheFileAndItsThreadEndsWithTheMap() throws InterruptedException {
        Path file = dir.resolve("sync.grove");
        try (GroveHashMap<Long, String> map = builder(file).syncOnClose().build()) {
            map.put(1L, "one");
            map.sync();
            map.put(2L, "two");
            map.sync();
        }
        GroveHashMap<Long, String> map = builder(file).syncEvery(Duration.ofMillis(5)).build();
        Thread syncer = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("grove-sync " + file.toAbsolutePath())).findFirst().orElseThrow();
        assertTrue(syncer.isDaemon());
        for (long k = 3; k < 2_000; k++) {
            map.put(k, "value " + k);
        }
        Thread.sleep(20); // a few turns of the thread, with changes to force
        map.close();
        assertTrue(!syncer.isAlive(), "the sync thread outlived its map");
        assertThrows(IllegalStateException.class, map::sync);
        try (GroveHashMap<Long, String> reopened = builder(file).build()) {
            assertEquals(1_999, reopened.size());
            assertEquals("two", reopened.get(2L));
        }
        try (GroveHashMap<Long, String> memory =
                GroveHashMap.builder(Serializers.longs(), Serializers.strings()).build()) {
            memory.put(1L, "one");
            memory.sync();
        }
        assertThrows(IllegalArgumentException.class,
                () -> GroveHashMap.builder(Serializers.longs(), Serializers.strings()).syncOnClose().build());
        assertThrows(IllegalArgumentException.class, () -> GroveHashMap.builder(Serializers.longs(),
                Serializers.strings()).syncEvery(Duration.ofSeconds(1)).build());
        assertThrows(IllegalArgumentException.class, () -> builder(file).syncEvery(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> GroveHashMap.builder(Serializers.longs(),
                Serializers.strings()).otherProcessWait(Duration.ofSeconds(1)).build());
        assertThrows(IllegalArgumentException.class, () -> builder(file).otherProcessWait(Duration.ofSeconds(-1)));
    }

    @Test
    void aFileMapTakesNoPoolOrMemoryLimit() {
        Path file = dir.resolve("x.grove");
        assertThrows(IllegalArgumentException.class, () -> builder(file).memoryLimit(1 << 30).build());
        assertTrue(Files.notExists(file), "a refused build created the file");
    }
}
