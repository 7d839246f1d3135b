package io.grove.internal.tool;

import static io.grove.testing.Bytes.indexOf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.internal.file.FileHeader;
import io.grove.internal.hash.OffHeapHashMap;
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
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code inspect} reports what a file holds; {@code verify} passes a sound file and fails each damaged one;
 * {@code salvage} copies what a damaged file holds soundly into a new one.
 */
class FileToolTest {
    private static final String MARKER = "marker-key-0123456789";

    @TempDir
    Path dir;

    private record Result(int status, String out) {}

    private static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = FileTool.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
    }

    private Path file(int entries) {
        Path file = dir.resolve("map.grove");
        try (GroveHashMap<String, String> map = GroveHashMap.builder(Serializers.strings(), Serializers.strings())
                .file(file).maxFileSize(64L << 20).expectedSize(16).build()) {
            for (int i = 0; i < entries; i++) {
                map.put("key " + i, "value " + i);
            }
            map.put(MARKER, "marked");
        }
        return file;
    }

    @Test
    void inspectReportsSettingsAndEntriesAndWritesNothing() throws IOException {
        Path file = file(1_000);
        byte[] before = Files.readAllBytes(file);
        Result r = run("inspect", file.toString());
        assertEquals(0, r.status(), r.out());
        assertTrue(r.out().contains("entries         1001"), r.out());
        assertTrue(r.out().contains("closed cleanly  yes"), r.out());
        assertTrue(r.out().contains("maxFileSize     " + (64L << 20)), r.out());
        assertTrue(r.out().contains("cellBytes       8 (slots only)"), r.out());
        assertTrue(r.out().contains("key serializer  " + Serializers.strings().getClass().getName()), r.out());
        assertArrayEquals(before, Files.readAllBytes(file), "inspect changed the file");
    }

    /** A table whose entries lie in its cells: inspect gives the cell size, verify checks the cells' entries. */
    @Test
    void inspectAndVerifyKnowCells() {
        Path file = dir.resolve("cells.grove");
        try (GroveHashMap<String, String> map = GroveHashMap.builder(Serializers.strings(), Serializers.strings())
                .file(file).maxFileSize(64L << 20).expectedSize(16).inlineEntries(16, 16).build()) {
            for (int i = 0; i < 1_000; i++) {
                map.put("key " + i, i % 10 == 0 ? "a value too long for its cell " + i : "value " + i);
            }
        }
        Result inspect = run("inspect", file.toString());
        assertEquals(0, inspect.status(), inspect.out());
        assertTrue(inspect.out().contains("cellBytes       " + OffHeapHashMap.cellBytesFor(16, 16)
                + " (entries in cells: inlineEntries)"), inspect.out());
        assertTrue(inspect.out().contains("entries         1000"), inspect.out());
        Result verify = run("verify", file.toString());
        assertEquals(0, verify.status(), verify.out());
        assertTrue(verify.out().contains(": sound (format " + FileHeader.FORMAT_VERSION + ", 1000 entries)"),
                verify.out());
    }

    @Test
    void verifyPassesASoundFile() {
        Path file = file(1_000);
        Result r = run("verify", file.toString());
        assertEquals(0, r.status(), r.out());
        assertTrue(r.out().contains("sound"), r.out());
    }

    @Test
    void verifyFindsADamagedEntry() throws IOException {
        Path file = file(100);
        byte[] bytes = Files.readAllBytes(file);
        byte[] marker = MARKER.getBytes(StandardCharsets.UTF_8);
        int at = indexOf(bytes, marker);
        assertTrue(at > 0, "the marker key is not in the file");
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {(byte) (bytes[at + 3] ^ 1)}), at + 3);
        }
        Result r = run("verify", file.toString());
        assertEquals(1, r.status(), r.out());
        assertTrue(r.out().contains("its key belongs to segment"), r.out());
    }

    @Test
    void verifyFindsADamagedHeaderAndAnUncleanFile() throws IOException {
        Path file = file(10);
        Path copy = dir.resolve("copy.grove");
        try (GroveHashMap<String, String> map = GroveHashMap.builder(Serializers.strings(), Serializers.strings())
                .file(file).maxFileSize(64L << 20).build()) {
            Files.copy(file, copy);
            assertEquals("marked", map.get(MARKER));
        }
        Result unclean = run("verify", copy.toString());
        assertEquals(1, unclean.status(), unclean.out());
        assertTrue(unclean.out().contains("not closed cleanly"), unclean.out());
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {0x7F}), 20);
        }
        Result damaged = run("verify", file.toString());
        assertEquals(1, damaged.status(), damaged.out());
        assertTrue(damaged.out().contains("damaged header"), damaged.out());
    }

    /**
     * A damaged entry (its key changed, so it hashes elsewhere and its check word fails) is left out of the salvage;
     * every other entry is copied into a new file that the builder of the damaged one opens, which is sound. The
     * damaged file is not written.
     */
    @Test
    void salvageCopiesEverySoundEntryIntoANewFileThatTheSameBuilderOpens() throws IOException {
        Path file = file(1_000);
        byte[] bytes = Files.readAllBytes(file);
        int at = indexOf(bytes, MARKER.getBytes(StandardCharsets.UTF_8));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {(byte) (bytes[at + 3] ^ 1)}), at + 3);
        }
        byte[] damaged = Files.readAllBytes(file);
        Path salvaged = dir.resolve("salvaged.grove");
        Result r = run("salvage", file.toString(), salvaged.toString());
        assertEquals(1, r.status(), r.out());
        assertTrue(r.out().contains("its key belongs to segment") && r.out().contains("(a torn entry)")
                && r.out().contains("1000 entries copied to " + salvaged.toAbsolutePath() + " (its segments count"
                        + " 1001)"), r.out());
        assertArrayEquals(damaged, Files.readAllBytes(file), "the salvage changed the damaged file");
        Map<String, String> expected = new HashMap<>();
        for (int i = 0; i < 1_000; i++) {
            expected.put("key " + i, "value " + i);
        }
        try (GroveHashMap<String, String> map = GroveHashMap.builder(Serializers.strings(), Serializers.strings())
                .file(salvaged).maxFileSize(64L << 20).build()) {
            assertEquals(expected, new HashMap<>(map));
        }
        Result verify = run("verify", salvaged.toString());
        assertEquals(0, verify.status(), verify.out());
    }

    /** A sound file of cells is copied whole, with its settings: the builder with its cells opens the copy. */
    @Test
    void salvageOfASoundFileOfCellsCopiesItWhole() {
        Path file = dir.resolve("cells.grove");
        Map<String, String> expected = new HashMap<>();
        try (GroveHashMap<String, String> map = cells(file)) {
            for (int i = 0; i < 1_000; i++) {
                map.put("key " + i, i % 10 == 0 ? "a value too long for its cell " + i : "value " + i);
            }
            expected.putAll(map);
        }
        Path salvaged = dir.resolve("salvaged.grove");
        Result r = run("salvage", file.toString(), salvaged.toString());
        assertEquals(0, r.status(), r.out());
        assertTrue(r.out().contains("1000 entries copied") && r.out().contains("0 problem(s)"), r.out());
        try (GroveHashMap<String, String> map = cells(salvaged)) {
            assertEquals(expected, new HashMap<>(map));
        }
        assertEquals(0, run("verify", salvaged.toString()).status());
    }

    private static GroveHashMap<String, String> cells(Path file) {
        return GroveHashMap.builder(Serializers.strings(), Serializers.strings()).file(file).maxFileSize(64L << 20)
                .expectedSize(16).inlineEntries(16, 16).build();
    }

    /** The salvage writes only a new file, and reads only a file no process has open. */
    @Test
    void salvageRefusesAnExistingNewFileAndAFileThatIsOpen() throws IOException {
        Path file = file(10);
        Path existing = Files.writeString(dir.resolve("existing"), "mine");
        Result exists = run("salvage", file.toString(), existing.toString());
        assertEquals(1, exists.status(), exists.out());
        assertTrue(exists.out().contains(existing.toAbsolutePath() + " exists"), exists.out());
        assertEquals("mine", Files.readString(existing));
        Path salvaged = dir.resolve("salvaged.grove");
        try (GroveHashMap<String, String> map = GroveHashMap.builder(Serializers.strings(), Serializers.strings())
                .file(file).maxFileSize(64L << 20).build()) {
            Result open = run("salvage", file.toString(), salvaged.toString());
            assertEquals(1, open.status(), open.out());
            assertTrue(open.out().contains("is open in process " + ProcessHandle.current().pid())
                    && open.out().contains("close every map on it first"), open.out());
            assertEquals("marked", map.get(MARKER));
        }
        assertTrue(Files.notExists(salvaged), "a refused salvage wrote its new file");
    }

    @Test
    void aWrongUsageExitsWithTwo() {
        assertEquals(2, run("check", "x").status());
        assertEquals(2, run("verify").status());
        assertEquals(2, run("salvage", "x").status());
    }
}
