package io.grove.internal.view;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.Reclamation;
import io.grove.internal.memory.Pool;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A journaled {@link SegmentView} and its {@link UndoJournal}: an undone update leaves every byte as it was. */
class UndoJournalTest {
    private static final int SIZE = 256;
    /** The view covers the middle of the segment, so that a write outside it would show at the edges. */
    private static final int BASE = 64;

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment segment = arena.allocate(SIZE + 2 * BASE);
    private final SegmentView view = new SegmentView();
    private final UndoJournal journal = new UndoJournal();

    @AfterEach
    void close() {
        arena.close();
    }

    private byte[] contents() {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    private void randomize(SplittableRandom random) {
        for (long i = 0; i < segment.byteSize(); i++) {
            segment.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
        }
    }

    @Test
    void undoRestoresEveryByteAfterAnyMixOfWrites() {
        SplittableRandom random = new SplittableRandom(42);
        MemorySegment other = MemorySegment.ofArray(new byte[SIZE]);
        for (int round = 0; round < 2_000; round++) {
            randomize(random);
            byte[] before = contents();
            view.openJournaled(segment, BASE, SIZE, null, journal);
            int writes = 1 + random.nextInt(40);
            for (int w = 0; w < writes; w++) {
                writeSomething(random, other);
            }
            view.close();
            journal.undo();
            assertArrayEquals(before, contents(), "round " + round);
            assertEquals(0, journal.loggedBytes());
        }
    }

    /** One random write of any kind, anywhere in the view (often overlapping, continuing or inside earlier ones). */
    private void writeSomething(SplittableRandom random, MemorySegment other) {
        int length = 1 + random.nextInt(24);
        int index = random.nextInt(SIZE - length + 1);
        byte b = (byte) random.nextInt();
        switch (random.nextInt(11)) {
            case 0 -> view.putByte(index, b);
            case 1 -> view.putShort(random.nextInt(SIZE - 1), (short) random.nextInt());
            case 2 -> view.putChar(random.nextInt(SIZE - 1), (char) random.nextInt());
            case 3 -> view.putInt(random.nextInt(SIZE - 3), random.nextInt());
            case 4 -> view.putLong(random.nextInt(SIZE - 7), random.nextLong());
            case 5 -> view.putFloat(random.nextInt(SIZE - 3), random.nextFloat());
            case 6 -> view.putDouble(random.nextInt(SIZE - 7), random.nextDouble());
            case 7 -> view.copyFrom(new byte[length], 0, index, length);
            case 8 -> view.copyFrom(ByteBuffer.allocateDirect(length).put(0, b), index);
            case 9 -> {
                boolean itself = random.nextBoolean(); // a copy within the view itself, overlapping or not
                int from = (itself ? BASE : 0) + random.nextInt(SIZE - length + 1);
                view.copyFrom(itself ? segment : other, from, index, length);
            }
            default -> view.fill(index, length, b);
        }
    }

    @Test
    void aLoopOverTheWholeValueAndRepeatedWritesOfOneFieldCostOneRecord() {
        view.openJournaled(segment, BASE, SIZE, null, journal);
        for (int i = 0; i < SIZE; i += Long.BYTES) {
            view.putLong(i, i);
        }
        assertEquals(SIZE, journal.loggedBytes());
        assertEquals(1, journal.records());
        for (int i = 0; i < 1_000; i++) {
            view.putLong(8, i);
        }
        assertEquals(SIZE, journal.loggedBytes());
        assertEquals(1, journal.records());
        view.close();
        journal.commit();
        assertEquals(0, journal.loggedBytes());
    }

    @Test
    void aWriteThatFailsItsChecksSavesNothingAndAPlainViewIsNotJournaled() {
        view.openJournaled(segment, BASE, SIZE, null, journal);
        assertThrows(IndexOutOfBoundsException.class, () -> view.putLong(SIZE - 4, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> view.copyFrom(new byte[4], 2, 0, 4));
        assertEquals(0, journal.loggedBytes());
        view.close();
        view.open(segment, BASE, SIZE, true);
        view.putLong(0, 1);
        assertEquals(0, journal.loggedBytes());
        view.close();
    }

    @Test
    void aHugeUpdateDoesNotKeepAHugeLog() {
        MemorySegment large = arena.allocate(1 << 20);
        for (boolean undo : new boolean[] {false, true}) {
            view.openJournaled(large, 0, 1 << 20, null, journal);
            for (int i = 0; i < 1 << 20; i += 2 * Long.BYTES) { // records that do not continue each other
                view.putLong(i, i);
            }
            view.close();
            assertTrue(journal.capacity() > 1 << 20);
            if (undo) {
                journal.undo();
            } else {
                journal.commit();
            }
            assertTrue(journal.capacity() <= UndoJournal.RETAINED_BYTES + 16 * UndoJournal.RETAINED_RECORDS,
                    "kept " + journal.capacity() + " bytes");
        }
    }

    @Test
    void updatesOfAFewFieldsAllocateNothingOnceWarm() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long allocated = 0;
        for (int round = 0; round < 3; round++) { // the first rounds warm up
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++) {
                view.openJournaled(segment, BASE, SIZE, null, journal);
                view.putLong(0, i).putInt(100, i).fill(200, 40, (byte) i);
                view.close();
                if ((i & 1) == 0) {
                    journal.undo();
                } else {
                    journal.commit();
                }
            }
            allocated = threads.getCurrentThreadAllocatedBytes() - before;
        }
        assertTrue(allocated < 100_000, allocated + " bytes allocated by 100,000 journaled updates");
    }

    @Test
    void aFailedUpdateThatResizedLeavesTheOriginalAsItWasAndNoPrivateSlice() {
        Pool pool = new Pool(1 << 16, 4 << 16, Reclamation.NOVA);
        try {
            long original = pool.allocate(16);
            MemorySegment block = pool.segment(original);
            long at = pool.payloadOffset(original);
            block.set(ValueLayout.JAVA_LONG_UNALIGNED, at, 0x1111_1111_1111_1111L);
            block.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, 0x2222_2222_2222_2222L);
            long liveBefore = pool.footprint().liveSlices();
            SliceResizer resizer = new SliceResizer(pool, null);
            resizer.start(original, 0);
            view.openJournaled(block, at, 16, resizer, journal);
            view.putLong(0, 7); // into the original, before the resize
            view.resize(64).putLong(8, 8).resize(4096).putLong(4000, 9); // into private slices
            assertTrue(resizer.moved());
            view.close();
            resizer.abandon();
            journal.undo();
            assertFalse(resizer.moved());
            assertEquals(original, resizer.current());
            assertEquals(liveBefore, pool.footprint().liveSlices(), "the private slices were deleted");
            assertEquals(0x1111_1111_1111_1111L, block.get(ValueLayout.JAVA_LONG_UNALIGNED, at));
            assertEquals(0x2222_2222_2222_2222L, block.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 8));
        } finally {
            pool.close();
        }
    }
}
