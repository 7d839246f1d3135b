package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.grove.GroveFileException;
import io.grove.GroveHashMap;
import io.grove.internal.tool.FileTool;
import io.grove.view.Handle;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processes use one file at once: a child JVM ({@link CrashWriter}) writes its keys with several threads while
 * this process opens the same file, writes keys of its own and reads the child's; this process then closes its map
 * while the child goes on, and the child is killed. What each process wrote must be there when the file is opened
 * again (recovered, as the child was killed), and neither process may see a value the other did not write whole.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SharedFileTest {
    private static final long OWN_KEYS_FROM = 1_000_000;
    private static final int OWN_KEYS = 2_000;
    private static final int OWN_THREADS = 2;

    @TempDir
    Path dir;

    @Test
    void twoProcessesWriteOneFileAtOnce() throws Exception {
        Path file = dir.resolve("shared.grove");
        Path output = dir.resolve("child.out");
        Process child = CrashTest.startWriting(file, false, 7, output, dir.resolve("child.err"));
        Map<Long, String> own = new ConcurrentHashMap<>();
        try {
            try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
                String inspect = CrashTest.tool("inspect", file);
                assertTrue(inspect.contains("open now        true, in 2 process(es)"), inspect);
                assertTrue(inspect.contains("process " + child.pid()), inspect);
                assertTrue(inspect.contains("process " + ProcessHandle.current().pid()), inspect);
                runWriters(map, own, TimeUnit.SECONDS.toNanos(3));
                for (Map.Entry<Long, String> e : own.entrySet()) {
                    assertEquals(e.getValue(), map.get(e.getKey()), "key " + e.getKey() + " read back here");
                }
            }
            long written = Files.size(output);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (Files.size(output) < written + 10_000 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(Files.size(output) >= written + 10_000, "the child stopped writing when this process closed");
            assertTrue(child.isAlive(), "the child ended when this process closed");
        } finally {
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the killed child did not end");
        }
        String afterKill = CrashTest.tool("inspect", file);
        assertTrue(afterKill.contains("open now        false"), afterKill);
        assertTrue(afterKill.contains("ended without closing it: process " + child.pid()), afterKill);
        assertTrue(!afterKill.contains("ended without closing it: process " + ProcessHandle.current().pid()),
                afterKill);

        CrashTest.Child lines = new CrashTest.Child();
        lines.lines.addAll(Files.readAllLines(output, StandardCharsets.US_ASCII));
        Map<Long, String> acknowledged = new HashMap<>();
        Map<Long, String> pending = lines.apply(acknowledged);
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
            for (long k = 0; k < CrashTest.KEYS; k++) {
                String actual = map.get(k);
                if (!Objects.equals(actual, acknowledged.get(k))
                        && !(pending.containsKey(k) && Objects.equals(actual, pending.get(k)))) {
                    fail("the child's key " + k + " holds " + actual + ", acknowledged " + acknowledged.get(k));
                }
            }
            for (Map.Entry<Long, String> e : own.entrySet()) {
                assertEquals(e.getValue(), map.get(e.getKey()), "key " + e.getKey() + " after the reopen");
            }
        }
        String verify = CrashTest.tool("verify", file);
        assertTrue(verify.contains(": sound"), verify);
    }

    /**
     * This process's threads put and remove keys of their own (checking each read exactly) and read the child's
     * keys, whose values must be whole: a key's value starts with the key, and its tail is all of one letter (an
     * in-place toggle turns every {@code x} into {@code y} under the entry's stamp).
     */
    private static void runWriters(GroveHashMap<Long, String> map, Map<Long, String> own, long nanos)
            throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] threads = new Thread[OWN_THREADS];
        long end = System.nanoTime() + nanos;
        for (int t = 0; t < OWN_THREADS; t++) {
            int id = t;
            threads[t] = Thread.ofPlatform().daemon().unstarted(() -> {
                SplittableRandom random = new SplittableRandom(id);
                try {
                    for (long seq = 0; System.nanoTime() < end; seq++) {
                        long key = OWN_KEYS_FROM + (long) random.nextInt(OWN_KEYS / OWN_THREADS) * OWN_THREADS + id;
                        if (random.nextInt(4) == 0) {
                            map.remove(key);
                            own.remove(key);
                        } else {
                            String value = CrashWriter.value(key, seq);
                            map.put(key, value);
                            own.put(key, value);
                        }
                        assertEquals(own.get(key), map.get(key), "key " + key + " read back at once");
                        long theirs = random.nextInt(CrashTest.KEYS);
                        String value = map.get(theirs);
                        if (value != null && !whole(theirs, value)) {
                            fail("the child's key " + theirs + " read as " + value);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            threads[t].start();
        }
        for (Thread thread : threads) { // bounded: a broken table may leave a writer in an endless probe
            if (!thread.join(Duration.ofNanos(nanos).plusSeconds(60))) {
                fail("a writer of this process did not finish: " + Arrays.toString(thread.getStackTrace()));
            }
        }
        if (failure.get() != null) {
            throw new AssertionError("a writer of this process failed", failure.get());
        }
    }

    private static boolean whole(long key, String value) {
        String head = key + ":";
        int tail = value.indexOf(':', head.length()) + 1;
        if (!value.startsWith(head) || tail == 0) {
            return false;
        }
        for (int i = tail + 1; i < value.length(); i++) {
            if (value.charAt(i) != value.charAt(tail)) {
                return false;
            }
        }
        return true;
    }

    /**
     * A thread waiting for a segment that another process holds locked is never left waiting for ever: while the holder
     * lives (here in a function that never returns, its in-place update half done), the wait ends after its bound
     * ({@code otherProcessWait}, 2 s here) with an exception naming the process; once the holder is killed, the next
     * look of a waiter (every ~30 ms of waiting) repairs the segment while the file stays open: the value is as it was
     * before the update (a waiting handle read, which did the repair, sees it so), and every key can be written.
     */
    @Test
    void aWaitForAnotherProcessesLockEndsNamingItAndAKilledHoldersSegmentIsRepaired() throws Exception {
        Path file = dir.resolve("held.grove");
        Path output = dir.resolve("holder.out");
        Process holder = ChildJvm.start(LockHolder.class, output, file.toString());
        try {
            awaitHolding(holder, output);
            try (GroveHashMap<Long, String> map =
                    CrashWriter.builder(file, false).otherProcessWait(Duration.ofSeconds(2)).build()) {
                long started = System.nanoTime();
                IllegalStateException alive = assertThrows(IllegalStateException.class,
                        () -> map.put(LockHolder.KEY, "mine"));
                long waited = System.nanoTime() - started;
                assertTrue(alive.getMessage().contains("process " + holder.pid()), alive.getMessage());
                assertTrue(alive.getMessage().contains("which is alive"), alive.getMessage());
                assertTrue(waited >= TimeUnit.SECONDS.toNanos(2) && waited < TimeUnit.SECONDS.toNanos(10),
                        "waited " + waited / 1_000_000 + " ms");

                CompletableFuture<Byte> handleRead = new CompletableFuture<>();
                Thread.ofPlatform().start(() -> {
                    try {
                        Handle value = map.zc().get(LockHolder.KEY);
                        handleRead.complete(value.getByte(value.size() - 1));
                    } catch (RuntimeException e) {
                        handleRead.completeExceptionally(e);
                    }
                });
                Thread.sleep(300); // the handle waits for the update in flight
                holder.destroyForcibly();
                assertTrue(holder.waitFor(30, TimeUnit.SECONDS), "the killed holder did not end");
                assertEquals((byte) 'x', handleRead.get(5, TimeUnit.SECONDS), "the waiting handle's look repairs");
                started = System.nanoTime();
                assertEquals(CrashWriter.value(LockHolder.KEY, 0), map.get(LockHolder.KEY), "put back");
                assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(5), "slow to repair");
                assertEquals(CrashWriter.value(LockHolder.KEY, 0), map.put(LockHolder.KEY, "mine"));
                for (long k = 2; k < 200; k++) {
                    map.put(k, "v" + k);
                    assertEquals("v" + k, map.get(k));
                }
            }
        } finally {
            holder.destroyForcibly().waitFor();
        }
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) { // recovers the file
            assertEquals("mine", map.get(LockHolder.KEY));
            assertEquals(198, map.size() - 1);
        }
        assertTrue(CrashTest.tool("verify", file).contains(": sound"), CrashTest.tool("verify", file));
    }

    /**
     * The last process to close a file that another process had open and left without closing (killed with no
     * operation in flight) leaves it marked open: that process's deleted slices and counts were on its heap, so the
     * next open recovers the file, which then holds what both wrote.
     */
    @Test
    void theLastCloseAfterAnotherProcessEndedLeavesTheFileToARecovery() throws Exception {
        Path file = dir.resolve("ended.grove");
        Path output = dir.resolve("idle.out");
        Process idle = ChildJvm.start(LockHolder.class, output, file.toString(), "idle");
        try {
            awaitHolding(idle, output);
            try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
                map.put(2L, "two");
                idle.destroyForcibly();
                assertTrue(idle.waitFor(30, TimeUnit.SECONDS), "the killed child did not end");
                map.put(3L, "three");
            }
        } finally {
            idle.destroyForcibly().waitFor();
        }
        String inspect = CrashTest.tool("inspect", file);
        assertTrue(inspect.contains("closed cleanly  no"), inspect);
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
            assertEquals(CrashWriter.value(LockHolder.KEY, 0), map.get(LockHolder.KEY));
            assertEquals("two", map.get(2L));
            assertEquals("three", map.get(3L));
        }
        assertTrue(CrashTest.tool("inspect", file).contains("closed cleanly  yes"), CrashTest.tool("inspect", file));
    }

    /**
     * A process stopped with {@code SIGSTOP} while it holds a segment's lock (inside an in-place update) is never
     * robbed of it: a put and a get of its key here wait out {@code otherProcessWait} (1 s here) and fail naming it as
     * alive; once it is continued ({@code SIGCONT}), both processes go on.
     */
    @Test
    void aStoppedHolderIsWaitedForWithinTheBoundAndBothGoOnOnceItContinues() throws Exception {
        Path file = dir.resolve("stopped.grove");
        Path output = dir.resolve("busy.out");
        Process holder = ChildJvm.start(LockHolder.class, output, file.toString(), "busy");
        try {
            awaitHolding(holder, output);
            try (GroveHashMap<Long, String> map =
                    CrashWriter.builder(file, false).otherProcessWait(Duration.ofSeconds(1)).build()) {
                IllegalStateException timedOut = null;
                IllegalStateException reader = null;
                long waited = 0;
                for (int attempt = 0; attempt < 30 && reader == null; attempt++) {
                    signal("STOP", holder); // about half the time inside an update
                    Thread.sleep(LockHolder.BUSY_MILLIS);
                    long started = System.nanoTime();
                    try {
                        map.put(LockHolder.KEY, "mine");
                    } catch (IllegalStateException e) {
                        timedOut = e;
                        waited = System.nanoTime() - started;
                        try {
                            map.get(LockHolder.KEY); // waits only while the value's stamp is odd
                        } catch (IllegalStateException e2) {
                            reader = e2;
                        }
                    }
                    if (reader == null) { // stopped between two updates, or with the lock and an even stamp: again
                        signal("CONT", holder);
                        Thread.sleep(3 * LockHolder.BUSY_MILLIS);
                    }
                }
                assertTrue(reader != null, "never stopped inside an update's function in 30 attempts");
                assertTrue(waited >= TimeUnit.SECONDS.toNanos(1) && waited < TimeUnit.SECONDS.toNanos(5),
                        "waited " + waited / 1_000_000 + " ms");
                assertTrue(timedOut.getMessage().contains("process " + holder.pid()), timedOut.getMessage());
                assertTrue(timedOut.getMessage().contains("which is alive"), timedOut.getMessage());
                assertTrue(reader.getMessage().contains("which is alive"), reader.getMessage());
                long updates = Files.readAllLines(output).size();

                signal("CONT", holder);
                map.put(LockHolder.KEY, "after");
                assertTrue(map.get(LockHolder.KEY) != null);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (Files.readAllLines(output).size() < updates + 5 && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertTrue(Files.readAllLines(output).size() >= updates + 5, "the continued holder went on");
            }
        } finally {
            signal("CONT", holder);
            holder.destroyForcibly().waitFor();
        }
    }

    /**
     * Zero-copy handles held in one process on entries that another process replaces and removes, reusing their memory,
     * never read another entry's bytes: while the other process works, each read returns the entry's own value or
     * throws {@link ConcurrentModificationException}; once it is done, every read throws.
     */
    @Test
    void handlesOnEntriesAnotherProcessReplacesFailInsteadOfReadingOthersBytes() throws Exception {
        Path file = dir.resolve("handles.grove");
        int keys = 500;
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
            Handle[] handles = new Handle[keys];
            byte[][] values = new byte[keys][];
            for (int k = 0; k < keys; k++) {
                map.put((long) k, CrashWriter.value(k, 0));
                handles[k] = map.zc().get((long) k);
                values[k] = CrashWriter.value(k, 0).getBytes(StandardCharsets.UTF_8);
                assertArrayEquals(values[k], handles[k].toByteArray());
            }
            Path output = dir.resolve("replacer.out");
            Process replacer = ChildJvm.start(Replacer.class, output, file.toString(), String.valueOf(keys));
            long ownBytes = 0;
            long failed = 0;
            try {
                while (replacer.isAlive()) {
                    for (int k = 0; k < keys; k++) {
                        try {
                            assertArrayEquals(values[k], handles[k].toByteArray(), "key " + k);
                            ownBytes++;
                        } catch (ConcurrentModificationException replaced) {
                            failed++;
                        }
                    }
                }
                assertEquals(0, replacer.waitFor(), Files.readString(output));
            } finally {
                replacer.destroyForcibly().waitFor();
            }
            assertTrue(Files.readString(output).contains("done"), Files.readString(output));
            for (int k = 0; k < keys; k++) {
                Handle handle = handles[k];
                assertThrows(ConcurrentModificationException.class, handle::toByteArray, "key " + k);
                assertEquals(k % 2 == 0 ? CrashWriter.value(k, 1) : null, map.get((long) k));
            }
            assertEquals(5L * keys - keys / 2, map.size());
            System.out.println("handles read during the other process's changes: " + ownBytes + " own values, "
                    + failed + " failed");
        }
    }

    /**
     * A bounded map's bound holds for the file as a whole: this process and a child each put 5,000 keys of their own at
     * once into a map of at most {@value BoundedWriter#BOUND} entries; each process's listener hears of the evictions
     * that process made, and the entries left are exactly the keys put less the evictions both heard of.
     */
    @Test
    void aBoundHoldsForTheFileAndEachProcessHearsOfItsOwnEvictions() throws Exception {
        Path file = dir.resolve("bounded.grove");
        Path output = dir.resolve("bounded.out");
        long count = 5_000;
        AtomicLong evicted = new AtomicLong();
        try (GroveHashMap<Long, String> map = BoundedWriter.open(file, evicted)) {
            Process child = ChildJvm.start(BoundedWriter.class, output, file.toString(), String.valueOf(count),
                    String.valueOf(count));
            try {
                ChildJvm.awaitLine(child, output, "ready");
                OutputStream go = child.getOutputStream();
                go.write('\n');
                go.flush();
                putEach(map, 0, count);
                assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child did not end");
                assertEquals(0, child.exitValue(), Files.readString(output));
            } finally {
                child.destroyForcibly().waitFor();
            }
            long childEvicted = Files.readAllLines(output).stream().filter(line -> line.startsWith("evicted "))
                    .mapToLong(line -> Long.parseLong(line.substring(8))).findFirst().orElseThrow();
            assertTrue(evicted.get() > 0 && childEvicted > 0, evicted + " evictions here, " + childEvicted + " there");
            assertTrue(map.size() <= BoundedWriter.BOUND, map.size() + " entries");
            assertEquals(2 * count - evicted.get() - childEvicted, map.size(),
                    evicted + " evictions here, " + childEvicted + " there");
        }
    }

    /**
     * The file grows while another process has it open: a child writes some 20 MB of entries (three of the file's 8 MiB
     * blocks, reserved by the child) while this process has the map open, and this process then reads every one and
     * writes beside them.
     */
    @Test
    void blocksAnotherProcessReservedAreReadHere() throws Exception {
        Path file = dir.resolve("grown.grove");
        int keys = 20_000;
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
            map.put(-1L, "here first");
            long reservedBefore = map.footprint().reservedBytes();
            Path output = dir.resolve("grower.out");
            Process grower = ChildJvm.start(Replacer.class, output, file.toString(), String.valueOf(keys));
            try {
                assertTrue(grower.waitFor(2, TimeUnit.MINUTES), "the child did not end");
                assertEquals(0, grower.exitValue(), Files.readString(output));
            } finally {
                grower.destroyForcibly().waitFor();
            }
            for (long k = 0; k < 5L * keys; k++) {
                String expected = k >= keys ? CrashWriter.value(k, 0) : k % 2 == 0 ? CrashWriter.value(k, 1) : null;
                assertEquals(expected, map.get(k), "key " + k);
            }
            for (long k = 5L * keys; k < 6L * keys; k++) {
                map.put(k, CrashWriter.value(k, 0));
            }
            assertEquals(5L * keys - keys / 2 + keys + 1, map.size());
            long reserved = map.footprint().reservedBytes();
            assertTrue(reserved >= reservedBefore + (16L << 20), reservedBefore + " bytes reserved, then " + reserved);
            System.out.println("reserved " + reservedBefore + " bytes before the child wrote, " + reserved + " after");
        }
        assertTrue(CrashTest.tool("verify", file).contains(": sound"), CrashTest.tool("verify", file));
    }

    /**
     * A process killed while its release stripes hold deleted entries, with no lock held, leaves them to whoever
     * notices while the file stays open: here the next process to open the file (a restart) takes its record over,
     * reclaims them and frees the record. This process then puts as many entries of the same size again and they
     * take no fresh memory; the killed process no longer shows in the process table.
     */
    @Test
    void aKilledProcessesDeletedSlicesAreReusedAndItsRecordFreedWhileTheFileStaysOpen() throws Exception {
        Path file = dir.resolve("salvaged.grove");
        int removed = 40; // fewer than a batch: all wait in the child's one stripe
        long size = 256L << 20;
        try (GroveHashMap<Long, String> map = Remover.builder(file, size).build()) {
            map.put(-1L, "here first");
            Process remover = removeThenKill(file, size, "1000", removed, dir.resolve("remover.out"));
            assertTrue(CrashTest.tool("inspect", file).contains("ended without closing it: process " + remover.pid()),
                    CrashTest.tool("inspect", file));
            long allocated = map.footprint().allocatedBytes();
            Path openerOutput = dir.resolve("opener.out");
            Process opener = ChildJvm.start(Remover.class, openerOutput, file.toString(), String.valueOf(size), "0",
                    "0", "leave");
            assertTrue(opener.waitFor(2, TimeUnit.MINUTES), "the opener did not end");
            String log = Files.readString(openerOutput);
            assertEquals(0, opener.exitValue(), log);
            Matcher salvaged = Pattern.compile("process " + remover.pid() + " .* (\\d+) deleted slices of its release"
                    + " stripes reclaimed, its record freed").matcher(log);
            assertTrue(salvaged.find() && Long.parseLong(salvaged.group(1)) > 0, log); // entries, old slot arrays
            String inspect = CrashTest.tool("inspect", file);
            assertFalse(inspect.contains("ended without closing it"), inspect);
            for (long k = 0; k < removed; k++) {
                assertNull(map.put(k, CrashWriter.value(k, 0)));
            }
            assertEquals(allocated, map.footprint().allocatedBytes(), "fresh memory taken for the entries put again");
            assertEquals(1001, map.size());
        }
        String inspect = CrashTest.tool("inspect", file);
        assertTrue(inspect.contains("closed cleanly  no"), inspect); // the killed process's counts: recounted
        try (GroveHashMap<Long, String> map = Remover.builder(file, size).build()) {
            assertEquals(1001, map.size());
            for (long k = 0; k < 1000; k++) {
                assertEquals(CrashWriter.value(k, 0), map.get(k), "key " + k);
            }
        }
        assertTrue(CrashTest.tool("verify", file).contains(": sound"), CrashTest.tool("verify", file));
    }

    /**
     * Each process counts its allocations and frees in the file, so the footprint any process reads is the file's
     * whole: while a child that put 1,000 entries and removed 40 stays open, this process's footprint counts the same
     * live slices as the child's; once the child is killed, and once a process that opens the file has salvaged it
     * and freed its record, its counts stay in the file: the figure does not change.
     */
    @Test
    void everyProcessesSlicesCountInTheFootprintWhileItRunsAndOnceItWasKilledAndSalvaged() throws Exception {
        Path file = dir.resolve("counted.grove");
        long size = 256L << 20;
        try (GroveHashMap<Long, String> map = Remover.builder(file, size).build()) {
            map.put(-1L, "here first");
            long here = map.footprint().liveSlices();
            Path output = dir.resolve("remover.out");
            Process remover = ChildJvm.start(Remover.class, output, file.toString(), String.valueOf(size), "1000", "40",
                    "stay");
            long there;
            try {
                ChildJvm.awaitLine(remover, output, "removed");
                Matcher live = Pattern.compile("live slices (\\d+)").matcher(Files.readString(output));
                assertTrue(live.find(), Files.readString(output));
                there = Long.parseLong(live.group(1));
                assertTrue(there > here + 900, there + " live slices, " + here + " before the child");
                assertEquals(there, map.footprint().liveSlices(), "the child's slices, counted here");
            } finally {
                remover.destroyForcibly().waitFor();
            }
            assertEquals(there, map.footprint().liveSlices(), "killed, not yet salvaged");
            Path openerOutput = dir.resolve("opener.out");
            Process opener = ChildJvm.start(Remover.class, openerOutput, file.toString(), String.valueOf(size), "0",
                    "0", "leave");
            assertTrue(opener.waitFor(2, TimeUnit.MINUTES), "the opener did not end");
            String log = Files.readString(openerOutput);
            assertTrue(log.contains("process " + remover.pid()) && log.contains("its record freed"), log);
            assertEquals(there, map.footprint().liveSlices(), "salvaged, its record freed");
            assertTrue(CrashTest.tool("inspect", file).contains(" in " + there + " slices"),
                    CrashTest.tool("inspect", file));
        }
    }

    /**
     * A process killed in the middle of a put, holding its segment's lock with the new entry's slice allocated and not
     * linked (its value's serializer never returns), leaves no slice behind: the segment's intent names the slice,
     * and the thread here that waits for the lock, finds its holder ended and repairs the segment frees it. Both for a
     * new key and for a present one (whose value stays as it was). Measured by the file's live slices while this
     * process keeps the file open (a recovery of the whole file would count anew and hide a leak); it fails when the
     * repair ignores the intent: one slice more for each kill.
     */
    @Test
    void theSliceAProcessKilledInThePutWasMakingIsFreedByTheRepair() throws Exception {
        Path file = dir.resolve("half-made.grove");
        try (GroveHashMap<Long, String> map = HalfWriter.builder(file).build()) {
            map.put(1L, "one");
            map.put(2L, "two");
            long before = map.footprint().liveSlices();
            killWhileWriting(file, 3, dir.resolve("new-key.out"));
            assertNull(map.put(3L, "three")); // waits for the lock: repairs the segment, then inserts
            assertEquals(before + 1, map.footprint().liveSlices(), "a killed put of a new key");
            killWhileWriting(file, 2, dir.resolve("present-key.out"));
            assertEquals("two", map.get(2L));
            assertEquals("two", map.put(2L, "owt")); // the same size: in place, no slice more or less
            assertEquals(before + 1, map.footprint().liveSlices(), "a killed put of a present key");
            assertEquals("owt", map.get(2L));
            assertEquals("three", map.get(3L));
            String inspect = CrashTest.tool("inspect", file);
            assertFalse(inspect.contains("ended without closing it"), inspect);
        }
        try (GroveHashMap<Long, String> map = HalfWriter.builder(file).build()) { // after salvages: recovered whole
            assertEquals(Map.of(1L, "one", 2L, "owt", 3L, "three"), new HashMap<>(map));
        }
        assertTrue(CrashTest.tool("verify", file).contains(": sound"), CrashTest.tool("verify", file));
    }

    /**
     * The same kill in a put, with no other process having the file open: the next open recovers the whole file,
     * which frees the slice the intent names (the sweep keeps only what the table links) and clears the intent, so the
     * file holds as many live slices as before the kill and verifies sound (verify reports an intent left set).
     */
    @Test
    void aFileRecoveredWholeAfterAKillInAPutKeepsNoSliceOfItAndNoIntent() throws Exception {
        Path file = dir.resolve("half-made-alone.grove");
        long before;
        try (GroveHashMap<Long, String> map = HalfWriter.builder(file).build()) {
            map.put(1L, "one");
            map.put(2L, "two");
            before = map.footprint().liveSlices();
        }
        killWhileWriting(file, 3, dir.resolve("alone.out"));
        try (GroveHashMap<Long, String> map = HalfWriter.builder(file).build()) {
            assertEquals(Map.of(1L, "one", 2L, "two"), new HashMap<>(map));
            assertEquals(before, map.footprint().liveSlices(), "live slices after the recovery");
        }
        String verify = CrashTest.tool("verify", file);
        assertTrue(verify.contains(": sound"), verify);
    }

    /**
     * A file whose process table is full (256 processes have it open: a child holds each record's lock, as they would)
     * refuses an open with an exception naming the file and the limit, without waiting and without harm to the file.
     * Once the processes are gone, the file opens with its entries.
     */
    @Test
    void anOpenOfAFileThatTwoHundredFiftySixProcessesHaveOpenIsRefused() throws Exception {
        Path file = fileWithOneEntry("full-table.grove");
        Path output = dir.resolve("filler.out");
        Process filler = ChildJvm.start(TableFiller.class, output, file.toString(), "256");
        try {
            awaitHolding(filler, output);
            GroveFileException full = assertThrows(GroveFileException.class,
                    () -> CrashWriter.builder(file, false).build());
            String message = full.getMessage();
            assertTrue(message.contains(file.toString()) && message.contains("has 256 processes"), message);
        } finally {
            filler.destroyForcibly();
            assertTrue(filler.waitFor(1, TimeUnit.MINUTES), "the table's filler did not end");
        }
        assertOpensWithOneEntry(file);
        assertTrue(CrashTest.tool("verify", file).contains(": sound"), CrashTest.tool("verify", file));
    }

    /**
     * A process table whose every record is taken, some by processes that ended without closing the file (their
     * records' locks free, not salvaged yet: 6 of the 255 beside this process's here), does not keep a process from
     * opening the file: the open ({@link RacingCreator}) takes an ended process's record over and salvages the other
     * ended ones. The open failed while a process needed a free record before it could salvage ended ones, and so
     * would every open once processes ended faster than others salvaged them.
     */
    @Test
    void anOpenOfAFileWhoseFullProcessTableHoldsEndedProcessesTakesOneOfTheirRecords() throws Exception {
        Path file = dir.resolve("ended-table.grove");
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
            map.put(1L, "one");
            Path fillerOutput = dir.resolve("filler.out");
            Process filler = ChildJvm.start(TableFiller.class, fillerOutput, file.toString(), "249", "1");
            try {
                awaitHolding(filler, fillerOutput);
                String said = openAndPutSeven(file);
                assertTrue(said.contains("took its record over"), said);
                assertEquals(CrashWriter.value(7, 0), map.get(7L));
                String inspect = CrashTest.tool("inspect", file);
                assertTrue(inspect.contains("open now        true, in 250 process(es)"), inspect);
                assertFalse(inspect.contains("ended without closing it"), inspect);
            } finally {
                filler.destroyForcibly();
                assertTrue(filler.waitFor(1, TimeUnit.MINUTES), "the table's filler did not end");
            }
        }
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
            assertEquals(Map.of(1L, "one", 7L, CrashWriter.value(7, 0)), new HashMap<>(map));
        }
        assertTrue(CrashTest.tool("verify", file).contains(": sound"), CrashTest.tool("verify", file));
    }

    /**
     * A process that takes over the record of a killed process, the table having no free one, salvages what that
     * process left under the record before it uses it: here the killed process held a segment's lock in the middle of
     * an in-place update of key 1 ({@link LockHolder}) and every other record is taken by a live process, so the
     * child that opens next ({@link RacingCreator}) must take the killed process's record. It repairs the segment at
     * its open (this process, idle meanwhile, then finds key 1's value as before the update at once and can write it),
     * logs what it salvaged naming the killed process, and writes its own key. Without the repair at the open, the
     * segment stayed locked under the opener's own record with the killed thread's id, which was also the id of the
     * opener's main thread: the opener took the lock for one its own operation held, and its close failed.
     */
    @Test
    void anOpenInTheRecordOfAKilledHolderRepairsWhatItLeftFirst() throws Exception {
        Path file = dir.resolve("inherited.grove");
        try (GroveHashMap<Long, String> map =
                CrashWriter.builder(file, false).otherProcessWait(Duration.ofSeconds(5)).build()) {
            Path holderOutput = dir.resolve("holder.out");
            Path fillerOutput = dir.resolve("filler.out");
            Process holder = ChildJvm.start(LockHolder.class, holderOutput, file.toString());
            Process filler = null;
            try {
                awaitHolding(holder, holderOutput); // record 1: this process has record 0
                filler = ChildJvm.start(TableFiller.class, fillerOutput, file.toString(), "254", "2");
                awaitHolding(filler, fillerOutput);
                holder.destroyForcibly();
                assertTrue(holder.waitFor(30, TimeUnit.SECONDS), "the killed holder did not end");

                String said = openAndPutSeven(file);
                assertTrue(said.contains("process " + holder.pid()) && said.contains("took its record over")
                        && said.contains("segments ["), said);

                long started = System.nanoTime();
                assertEquals(CrashWriter.value(LockHolder.KEY, 0), map.get(LockHolder.KEY), "put back");
                assertEquals(CrashWriter.value(LockHolder.KEY, 0), map.put(LockHolder.KEY, "mine"));
                assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(2), "waited for the segment");
                assertEquals(CrashWriter.value(7, 0), map.get(7L));
            } finally {
                holder.destroyForcibly().waitFor();
                if (filler != null) {
                    filler.destroyForcibly().waitFor();
                }
            }
        }
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) { // recovers the file
            assertEquals(Map.of(LockHolder.KEY, "mine", 7L, CrashWriter.value(7, 0)), new HashMap<>(map));
        }
        assertTrue(CrashTest.tool("verify", file).contains(": sound"), CrashTest.tool("verify", file));
    }

    /**
     * An open waits for another process that is opening or closing the file (which holds its gate: here a child
     * stands for a process stopped in its open) at most {@code otherProcessWait}, then fails naming the file; once
     * that process is gone, the file opens with its entries. It fails when the wait is fixed (10 s before).
     */
    @Test
    void anOpenWaitsForAnotherProcesssOpenAtMostTheProcessWait() throws Exception {
        Path file = fileWithOneEntry("gate.grove");
        Path output = dir.resolve("gate.out");
        Process holder = ChildJvm.start(GateHolder.class, output, file.toString());
        try {
            awaitHolding(holder, output);
            long started = System.nanoTime();
            GroveFileException stuck = assertThrows(GroveFileException.class,
                    () -> CrashWriter.builder(file, false).otherProcessWait(Duration.ofSeconds(1)).build());
            long waited = System.nanoTime() - started;
            assertTrue(waited >= TimeUnit.SECONDS.toNanos(1) && waited < TimeUnit.SECONDS.toNanos(5),
                    "waited " + waited / 1_000_000 + " ms");
            assertTrue(stuck.getMessage().contains(file.toString()) && stuck.getMessage().contains("opening or"
                    + " closing it for 1000 ms"), stuck.getMessage());
        } finally {
            holder.destroyForcibly();
            assertTrue(holder.waitFor(1, TimeUnit.MINUTES), "the gate's holder did not end");
        }
        assertOpensWithOneEntry(file);
    }

    /** A file of {@link CrashWriter#builder} whose map holds {@code 1 -> "one"}, closed. */
    private Path fileWithOneEntry(String name) {
        Path file = dir.resolve(name);
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
            map.put(1L, "one");
        }
        return file;
    }

    /**
     * Runs a child JVM that opens the map in {@code file}, puts key 7 and closes the map ({@link RacingCreator}),
     * checks that it succeeded and returns what it printed, its log included.
     */
    private String openAndPutSeven(Path file) throws Exception {
        String said = RacingCreator.runOnce(dir, file, 7, 0);
        assertTrue(said.contains("done"), said);
        return said;
    }

    /**
     * A draft that a creator ended without removing (killed while making the file, or just after giving it its name)
     * stays beside the file, a sparse file as large as the map's: the next open of the file deletes each draft whose
     * creation lock (byte 3) no process holds (here made by hand, one with a negative time in its name as
     * {@code System.nanoTime} may give), and leaves one whose creator is alive (a child holds its creation lock) until
     * an open after that child ended. Files whose names only look like a draft's are never touched.
     */
    @Test
    void anOpenDeletesTheDraftsThatCreatorsWhichEndedLeftAndOnlyThose() throws Exception {
        Path file = fileWithOneEntry("drafted.grove");
        Path left = dir.resolve(".drafted.grove.999999-12345.creating");
        Path leftEarlier = dir.resolve(".drafted.grove.999998--12345.creating");
        Path held = dir.resolve(".drafted.grove.999997-12345.creating");
        List<Path> untouched = List.of(dir.resolve(".drafted.grove.x.999996-12345.creating"),
                dir.resolve(".drafted.grove.notes.creating"), dir.resolve(".drafted.grove.999995-1.creating.txt"));
        for (Path draft : List.of(left, leftEarlier, held)) {
            Files.write(draft, new byte[4096]);
        }
        for (Path other : untouched) {
            Files.writeString(other, "not a draft");
        }
        Path output = dir.resolve("creator.out");
        Process creator = ChildJvm.start(GateHolder.class, output, held.toString(), "3");
        try {
            awaitHolding(creator, output);
            assertOpensWithOneEntry(file);
            assertFalse(Files.exists(left), "left by a creator that ended");
            assertFalse(Files.exists(leftEarlier), "left by a creator that ended");
            assertTrue(Files.exists(held), "its creator is alive");
        } finally {
            creator.destroyForcibly();
            assertTrue(creator.waitFor(1, TimeUnit.MINUTES), "the creator did not end");
        }
        assertOpensWithOneEntry(file);
        assertFalse(Files.exists(held), "left by a creator that ended");
        for (Path other : untouched) {
            assertEquals("not a draft", Files.readString(other), other.toString());
        }
    }

    /** Opens {@code file} ({@link #fileWithOneEntry}) and checks that its map holds exactly {@code 1 -> "one"}. */
    private static void assertOpensWithOneEntry(Path file) {
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
            assertEquals(Map.of(1L, "one"), new HashMap<>(map));
        }
    }

    /**
     * Processes that open a file that does not exist yet at the same moment all open it, one creating it, and each
     * finds the others' entries: a file is given its name only once its creation ended. When it was created under its
     * own name, an open that came between the creation and the header's write failed with "is empty, not a Grove
     * file" (and a creator killed there left that file for good); here 4 children are released at once, in 6 rounds.
     * No draft is left beside the file.
     */
    @Test
    void processesThatOpenANewFileAtOnceAllOpenIt() throws Exception {
        int children = 4;
        for (int round = 0; round < 6; round++) {
            Path file = dir.resolve("raced-" + round + ".grove");
            Path go = dir.resolve("go-" + round);
            Process[] creators = new Process[children];
            Path[] outputs = new Path[children];
            try {
                for (int c = 0; c < children; c++) {
                    outputs[c] = dir.resolve("creator-" + round + "-" + c + ".out");
                    creators[c] = ChildJvm.start(RacingCreator.class, outputs[c], file.toString(), go.toString(),
                            String.valueOf(c));
                }
                for (int c = 0; c < children; c++) {
                    ChildJvm.awaitLine(creators[c], outputs[c], "ready");
                }
                Files.createFile(go);
                for (int c = 0; c < children; c++) {
                    assertTrue(creators[c].waitFor(2, TimeUnit.MINUTES), "creator " + c + " did not end");
                    assertEquals(0, creators[c].exitValue(), "round " + round + ", creator " + c + " ended with status "
                            + creators[c].exitValue() + ": " + Files.readString(outputs[c]));
                }
            } finally {
                for (Process creator : creators) {
                    if (creator != null) {
                        creator.destroyForcibly();
                    }
                }
            }
            try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
                for (long c = 0; c < children; c++) {
                    assertEquals(CrashWriter.value(c, 0), map.get(c), "round " + round + ", key " + c);
                }
            }
            try (var names = Files.list(dir)) {
                assertEquals(List.of(), names.filter(p -> p.getFileName().toString().endsWith(".creating")).toList());
            }
        }
    }

    /**
     * Four processes open (creating it when missing), close and delete one file over and over, each some 500 times in
     * 10 s here, so that opens meet creations, closes and other opens at every step. Two races it found, each failing
     * an open: an open's look for abandoned drafts may delete a creator's new draft in the instant before the creator
     * locks it (the creator must start again; checking the lock alone and not that the draft was still there once
     * locked, a creator failed with {@code NoSuchFileException} in 3 of 3 runs), and an opener may take the gate
     * between the moments the last closer's channel close releases the gate and the users' lock (the close must let
     * go of the users' lock first; with the channel releasing both, an opener took itself for one of several and the
     * file's closed pool state for damaged in 3 of 5 runs).
     */
    @Test
    void processesThatOpenCloseAndDeleteOneFileOverAndOverAllSucceed() throws Exception {
        Path file = dir.resolve("recreated.grove");
        int children = 4;
        Process[] loops = new Process[children];
        Path[] outputs = new Path[children];
        try {
            for (int c = 0; c < children; c++) {
                outputs[c] = dir.resolve("loop-" + c + ".out");
                loops[c] = ChildJvm.start(CreateDeleteLoop.class, outputs[c], file.toString(), "10");
            }
            for (int c = 0; c < children; c++) {
                assertTrue(loops[c].waitFor(2, TimeUnit.MINUTES), "loop " + c + " did not end");
                assertEquals(0, loops[c].exitValue(), "loop " + c + ": " + Files.readString(outputs[c]));
            }
        } finally {
            for (Process loop : loops) {
                if (loop != null) {
                    loop.destroyForcibly();
                }
            }
        }
    }

    /** Starts a {@link HalfWriter} of {@code key} on {@code file} and kills it once it is writing the value. */
    private static void killWhileWriting(Path file, long key, Path output) throws Exception {
        Process writer = ChildJvm.start(HalfWriter.class, output, file.toString(), String.valueOf(key));
        ChildJvm.awaitLine(writer, output, "writing");
        writer.destroyForcibly();
        assertTrue(writer.waitFor(1, TimeUnit.MINUTES), "the writer did not end");
    }

    /**
     * An allocation that finds the file's memory full salvages what a killed process left before it gives up: a
     * child fills a file of one block, removes 40 entries and is killed; this process, which had the file open all
     * along, then puts 40 entries of the same size into the memory they held.
     */
    @Test
    void anAllocationShortOfMemoryReclaimsWhatAKilledProcessLeft() throws Exception {
        Path file = dir.resolve("full.grove");
        long size = 16L << 20; // one 8 MiB block
        int removed = 40;
        try (GroveHashMap<Long, String> map = Remover.builder(file, size).build()) {
            Path output = dir.resolve("filler.out");
            removeThenKill(file, size, "full", removed, output);
            assertTrue(Files.readString(output).contains("full at "), Files.readString(output));
            long entries = map.size();
            for (long k = 0; k < removed; k++) {
                map.put(k, CrashWriter.value(k, 0));
            }
            assertEquals(entries + removed, map.size());
            assertFalse(CrashTest.tool("inspect", file).contains("ended without closing it"));
        }
        try (GroveHashMap<Long, String> map = Remover.builder(file, size).build()) { // recovers: counts anew
            assertEquals(CrashWriter.value(0, 0), map.get(0L));
        }
        assertTrue(CrashTest.tool("verify", file).contains(": sound"), CrashTest.tool("verify", file));
    }

    /**
     * The recovery of a file that a process killed after removing entries left open counts no memory as released: the
     * deleted slices its release stripes name, which the recovering process takes up with its record and counts as
     * released, are freed by the recovery's sweep, which counts anew. Without the count reset the footprint reported
     * them released for good.
     */
    @Test
    void aRecoveredFileCountsNoMemoryAsReleased() throws Exception {
        Path file = dir.resolve("released.grove");
        long size = 256L << 20;
        removeThenKill(file, size, "1000", 40, dir.resolve("remover.out"));
        try (GroveHashMap<Long, String> map = Remover.builder(file, size).build()) {
            assertEquals(960, map.size());
            assertEquals(0, map.footprint().releasedBytes(), map.footprint().toString());
        }
    }

    /**
     * Runs a {@link Remover} child on {@code file} (of at most {@code size} bytes) that puts {@code count} entries and
     * removes {@code removed} of them, printing to {@code output}, and kills it once it has removed them; returns it.
     */
    private static Process removeThenKill(Path file, long size, String count, int removed, Path output)
            throws Exception {
        Process remover = ChildJvm.start(Remover.class, output, file.toString(), String.valueOf(size), count,
                String.valueOf(removed), "stay");
        try {
            ChildJvm.awaitLine(remover, output, "removed");
        } finally {
            remover.destroyForcibly().waitFor();
        }
        return remover;
    }

    /** Puts keys {@code from} to {@code from + count - 1} into {@code map}, each once, with two threads. */
    static void putEach(GroveHashMap<Long, String> map, long from, long count) throws InterruptedException {
        Thread[] threads = new Thread[2];
        for (int t = 0; t < threads.length; t++) {
            long first = from + t;
            threads[t] = Thread.ofPlatform().start(() -> {
                for (long k = first; k < from + count; k += 2) {
                    map.put(k, CrashWriter.value(k, 0));
                }
            });
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    /** Sends signal {@code name} to {@code process} with the system's {@code kill} command. */
    private static void signal(String name, Process process) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).inheritIO().start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -" + name);
    }

    private static void awaitHolding(Process child, Path output) throws Exception {
        ChildJvm.awaitLine(child, output, "holding");
    }

    /**
     * A tool run in the process that has the file open keeps that process's locks: it reads through the open
     * file's channel, since closing a second descriptor of the file would release every lock the process holds on
     * it (POSIX), and other processes would take this one for ended. A tool in another process sees it open.
     */
    @Test
    void aToolRunBesideTheOpenMapKeepsItsLocks() throws Exception {
        Path file = dir.resolve("tool.grove");
        long self = ProcessHandle.current().pid();
        try (GroveHashMap<Long, String> map = CrashWriter.builder(file, false).build()) {
            map.put(1L, "one");
            String inspect = CrashTest.tool("inspect", file);
            assertTrue(inspect.contains("open now        true, in 1 process(es)\n  process " + self), inspect);
            String verify = CrashTest.tool("verify", file);
            assertTrue(verify.contains("a map has the file open (process " + self), verify);
            String elsewhere = toolInAnotherProcess("inspect", file);
            assertTrue(elsewhere.contains("open now        true, in 1 process(es)\n  process " + self), elsewhere);
            assertEquals("one", map.get(1L));
        }
    }

    private String toolInAnotherProcess(String command, Path file) throws Exception {
        Path output = dir.resolve("tool.out");
        Process tool = ChildJvm.start(FileTool.class, output, command, file.toString());
        assertTrue(tool.waitFor(60, TimeUnit.SECONDS), "the tool did not end");
        return Files.readString(output);
    }
}
