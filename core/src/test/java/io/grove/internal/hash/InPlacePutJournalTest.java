package io.grove.internal.hash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.internal.view.SliceStamp;
import io.grove.serial.Serializers;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A put of a value of the same size into a map in a file writes it in place, with the old value saved in the file and
 * named by the segment's journal for as long as the entry's stamp is odd: what the reopen after a killed process
 * relies on ({@link TableRecovery} puts the image back into an entry it finds with an odd stamp). An observer checks it
 * against a writer's puts: whenever it reads the same odd stamp before and after it reads the journal, the journal
 * must name an image of that entry. Without the image this fails at the first odd stamp observed.
 */
class InPlacePutJournalTest {
    private static final long KEY = 7;
    private static final int SIZE = 4096;

    @Test
    void whileAPutWritesInPlaceTheOldValueIsInTheJournal(@TempDir Path dir) throws Exception {
        try (GroveHashMap<Long, byte[]> grove = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
                .file(dir.resolve("map.grove")).build()) {
            OffHeapHashMap<Long, byte[]> map = (OffHeapHashMap<Long, byte[]>) grove;
            byte[] a = filled('a');
            byte[] b = filled('b');
            map.put(KEY, a);
            HashTable table = map.table;
            Scratch scratch = map.begin(KEY);
            int s = table.segmentOf(scratch.keyHash());
            long e = table.findLockFree(s, scratch);
            scratch.release();
            MemorySegment sb = table.block(s);
            long so = table.offset(s);

            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; !stop.get(); i++) {
                        map.put(KEY, (i & 1) == 0 ? b : a);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            long oddStamps = 0;
            try {
                long end = System.nanoTime() + 2_000_000_000L;
                while (System.nanoTime() < end && writer.isAlive()) {
                    long stamp = table.stampAcquire(e);
                    if (!SliceStamp.isWriting(stamp)) {
                        continue;
                    }
                    long image = SegmentLayout.journal(sb, so);
                    long imageOf = image == 0 ? 0 : BeforeImage.entry(map.pool(), image); // before it may be freed
                    if (table.stampUnchanged(e, stamp)) {
                        oddStamps++;
                        assertTrue(image != 0, "an odd stamp with nothing in the journal");
                        assertEquals(e, imageOf, "the journal names an image of another entry");
                    }
                }
            } finally {
                stop.set(true);
                writer.join();
            }
            assertNull(failure.get(), "the writer failed");
            assertTrue(oddStamps > 0, "vacuous: no put was observed in progress");
            scratch = map.begin(KEY);
            assertEquals(e, table.findLockFree(s, scratch), "the puts replaced the entry instead of writing in place");
            scratch.release();
            byte[] last = map.get(KEY);
            assertTrue(Arrays.equals(a, last) || Arrays.equals(b, last), "a torn value");
            assertEquals(0, SegmentLayout.journal(sb, so), "an image left in the journal");
        }
    }

    private static byte[] filled(char c) {
        byte[] bytes = new byte[SIZE];
        Arrays.fill(bytes, (byte) c);
        return bytes;
    }
}
