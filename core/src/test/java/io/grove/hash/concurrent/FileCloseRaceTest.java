package io.grove.hash.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.internal.tool.FileTool;
import io.grove.serial.Serializers;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A map in a file closed while other threads write to it: every write either completes before the close records
 * the file's state or fails with {@link IllegalStateException} and changes nothing, so the reopened file holds
 * exactly the writes that returned, and {@code verify} (the table and the allocator state) finds it sound. Each
 * writer owns its keys and keeps the model of what returned; values vary in size so that puts allocate and removes
 * free. Before the close waited for the writers holding a segment lock ({@code HashTable.quiesce}), a write racing
 * the close could allocate after the state was recorded.
 */
class FileCloseRaceTest {
    private static final int ROUNDS = 40;
    private static final int WRITERS = 4;

    @TempDir
    Path dir;

    @Test
    void writesRacingTheCloseCompleteBeforeItOrFailAndChangeNothing() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Path file = dir.resolve("race" + round + ".grove");
            GroveHashMap<Long, String> map = builder(file).expectedSize(64).build();
            Map<Long, String> acknowledged = new ConcurrentHashMap<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch started = new CountDownLatch(WRITERS);
            Thread[] writers = new Thread[WRITERS];
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                SplittableRandom random = new SplittableRandom(round * 31L + w);
                writers[w] = Thread.ofPlatform().start(() -> {
                    started.countDown();
                    try {
                        for (long i = 0; ; i++) {
                            long key = writer + WRITERS * (long) random.nextInt(2_000);
                            if (random.nextInt(4) == 0) {
                                map.remove(key);
                                acknowledged.remove(key);
                            } else {
                                String value = "v" + i + "x".repeat(random.nextInt(300));
                                map.put(key, value);
                                acknowledged.put(key, value);
                            }
                        }
                    } catch (IllegalStateException closed) {
                        // the close came first: this write changed nothing
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                });
            }
            started.await();
            Thread.sleep(1 + round % 7);
            map.close();
            for (Thread writer : writers) {
                writer.join();
            }
            if (failure.get() != null) {
                throw new AssertionError("round " + round, failure.get());
            }
            String report = verify(file);
            assertTrue(report.contains(": sound"), "round " + round + ": " + report);
            try (GroveHashMap<Long, String> reopened = builder(file).build()) {
                assertEquals(new HashMap<>(acknowledged), new HashMap<>(reopened), "round " + round);
            }
        }
    }

    private static GroveHashMap.Builder<Long, String> builder(Path file) {
        return GroveHashMap.builder(Serializers.longs(), Serializers.strings()).file(file).maxFileSize(64L << 20);
    }

    private static String verify(Path file) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            FileTool.run(new String[] {"verify", file.toString()}, print, print);
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
