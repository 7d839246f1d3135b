package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.grove.GroveFileException;
import io.grove.GroveHashMap;
import io.grove.GroveOutOfMemoryException;
import io.grove.internal.tool.FileTool;
import io.grove.serial.Serializers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files on devices that refuse writes. A map whose file's device fills up: the put that needs more of the device
 * fails with {@link GroveOutOfMemoryException} naming the file, every entry acknowledged before stays, the map goes
 * on working in the room it has (removing entries frees some), closes, reopens and verifies; creating a file on the
 * full device is refused with {@link GroveFileException}. Without the space taken before a block's first use, the
 * same fill ends in an {@link InternalError} from a store into the mapping (SIGBUS), and so does the close. A file
 * on a read-only device is refused with {@link GroveFileException} naming it, and can still be verified.
 *
 * <p>The device is a tmpfs of {@value #DEVICE_MIB} MiB mounted for each test, which takes the rights to mount
 * (root, as in the project's CI); elsewhere the tests are reported as skipped, with that reason.
 */
class RefusingDeviceTest {
    private static final int DEVICE_MIB = 20;

    @TempDir
    Path dir;

    private boolean mounted;

    @BeforeEach
    void mountASmallDevice() throws IOException, InterruptedException {
        mounted = run("mount", "-t", "tmpfs", "-o", "size=" + DEVICE_MIB + "m", "tmpfs", dir.toString()) == 0;
        assumeTrue(mounted, "mounting a tmpfs needs root");
    }

    @AfterEach
    void unmount() throws IOException, InterruptedException {
        if (mounted) {
            assertEquals(0, run("umount", dir.toString()), "umount " + dir);
        }
    }

    private static int run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getInputStream().readAllBytes();
        return process.waitFor();
    }

    private static GroveHashMap.Builder<Long, byte[]> builder(Path file) {
        return GroveHashMap.builder(Serializers.longs(), Serializers.bytes()).file(file).maxFileSize(256L << 20);
    }

    private static byte[] value(long key) {
        byte[] value = new byte[200];
        value[0] = (byte) key;
        value[199] = (byte) (key >>> 8);
        return value;
    }

    @Test
    void aFileOnAReadOnlyDeviceIsRefusedAndStillVerified() throws IOException, InterruptedException {
        Path file = dir.resolve("kept.grove");
        try (GroveHashMap<Long, byte[]> map = builder(file).build()) {
            map.put(1L, value(1));
        }
        assertEquals(0, run("mount", "-o", "remount,ro", dir.toString()), "remount read-only");
        GroveFileException refused = assertThrows(GroveFileException.class, () -> builder(file).build());
        assertTrue(refused.getMessage().contains(file.toString()) && refused.getMessage().contains("Read-only"),
                refused.getMessage());
        Path other = dir.resolve("other.grove");
        GroveFileException notCreated = assertThrows(GroveFileException.class, () -> builder(other).build());
        assertTrue(notCreated.getMessage().contains(other.toString()), notCreated.getMessage());
        assertFalse(Files.exists(other));
        assertSound(file);
    }

    /** {@code ./grove verify FILE} finds the file sound. */
    private static void assertSound(Path file) {
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(report, true, StandardCharsets.UTF_8)) {
            assertEquals(0, FileTool.run(new String[] {"verify", file.toString()}, out, out),
                    report.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void aFullDeviceFailsThePutThatNeedsItAndLosesNothing() throws IOException {
        Path file = dir.resolve("full.grove");
        Map<Long, Byte> expected = new HashMap<>();
        try (GroveHashMap<Long, byte[]> map = builder(file).build()) {
            long key = 0;
            GroveOutOfMemoryException full = null;
            while (full == null) {
                try {
                    map.put(key, value(key));
                    expected.put(key, (byte) key);
                    key++;
                } catch (GroveOutOfMemoryException e) {
                    full = e;
                }
            }
            assertTrue(full.getMessage().contains(file.toString()) && full.getMessage().contains("device"),
                    full.getMessage());
            assertTrue(key > 10_000, "only " + key + " entries fit in " + DEVICE_MIB + " MiB");
            assertFalse(map.containsKey(key), "the failed put changed the map");
            assertEquals(expected.size(), map.size());

            for (long k = 0; k < key / 2; k++) { // frees room (reclaimed in batches), which later puts reuse
                map.remove(k);
                expected.remove(k);
            }
            for (long k = key; k < key + 1_000; k++) {
                map.put(k, value(k));
                expected.put(k, (byte) k);
            }
        }

        assertThrows(GroveFileException.class, () -> builder(dir.resolve("other.grove")).build(),
                "a file created on the full device");
        assertFalse(Files.exists(dir.resolve("other.grove")), "the refused file was left behind");

        try (GroveHashMap<Long, byte[]> map = builder(file).build()) {
            assertEquals(expected.size(), map.size());
            expected.forEach((k, first) -> assertEquals(first, map.get(k)[0], "key " + k));
        }
        assertSound(file);
    }
}
