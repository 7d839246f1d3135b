package io.grove.internal.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.Reclamation;
import io.grove.internal.memory.Pool;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ConcurrentModificationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Reads through a handle with a {@link SliceStamp}: one state of the slice per read, waits for writers. */
class SliceHandleStampTest {
    /** A slice as a map that writes in place lays it out here: the stamp, then 16 bytes of value. */
    private static final int STAMP = 0;
    private static final int VALUE = 8;
    private static final int SIZE = 24;

    private final Pool pool = new Pool(1 << 16, 4 << 16, Reclamation.NOVA);
    private final long ref = pool.allocate(SIZE);
    private final MemorySegment block = pool.segment(ref);
    private final long stampAt = pool.payloadOffset(ref) + STAMP;
    private final long valueAt = pool.payloadOffset(ref) + VALUE;
    private final SliceHandle handle = new SliceHandle(pool).pointAt(ref, VALUE, -1, STAMP);

    @AfterEach
    void close() {
        pool.close();
    }

    /** An in-place write as a map makes it: both value words set to {@code value} between odd and even stamps. */
    private void write(long value) {
        long odd = SliceStamp.beginWrite(block, stampAt);
        setWords(value);
        SliceStamp.endWrite(block, stampAt, odd);
    }

    private void setWords(long value) {
        block.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), valueAt, value);
        block.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), valueAt + 8, value);
    }

    @Test
    void aReadWaitsWhileAWriterHoldsTheStampAndThenSeesItsWrite() throws Exception {
        write(1);
        long odd = SliceStamp.beginWrite(block, stampAt);
        setWords(2); // half-way: the reader must not return this state
        CompletableFuture<Long> copy = CompletableFuture.supplyAsync(() -> handle.getLong(0) + handle.getLong(8));
        assertThrows(TimeoutException.class, () -> copy.get(100, TimeUnit.MILLISECONDS), "the reader waits");
        setWords(3);
        SliceStamp.endWrite(block, stampAt, odd);
        assertEquals(6L, copy.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aReaderThatOverlappedAWriteRunsAgainOnTheNewState() {
        write(1);
        AtomicInteger runs = new AtomicInteger();
        long sum = handle.read(view -> {
            long first = view.getLong(0);
            if (runs.incrementAndGet() == 1) {
                write(5); // a writer that ran while the reader read
            }
            return first + view.getLong(8);
        });
        assertEquals(10L, sum);
        assertEquals(2, runs.get());
    }

    @Test
    void aReaderFailureOnBytesThatChangedIsDiscardedAndTheReaderRunsAgain() {
        write(1);
        AtomicInteger runs = new AtomicInteger();
        long value = handle.read(view -> {
            if (runs.incrementAndGet() == 1) {
                write(7);
                throw new OutOfMemoryError("a length read from a half-written value");
            }
            return view.getLong(0);
        });
        assertEquals(7L, value);
        assertEquals(2, runs.get());
    }

    @Test
    void aReaderFailureOnBytesThatDidNotChangeIsTheReadersOwn() {
        write(1);
        AtomicInteger runs = new AtomicInteger();
        assertThrows(IllegalArgumentException.class, () -> handle.read(view -> {
            runs.incrementAndGet();
            throw new IllegalArgumentException("a bug of the reader");
        }));
        assertEquals(1, runs.get());
    }

    @Test
    void aStampLeftOddOnADeletedSliceFailsInsteadOfWaiting() {
        write(1);
        SliceStamp.beginWrite(block, stampAt);
        assertTrue(pool.delete(ref));
        assertThrows(ConcurrentModificationException.class, () -> handle.getLong(0));
        assertThrows(ConcurrentModificationException.class, () -> handle.read(view -> view.getLong(0)));
        assertThrows(ConcurrentModificationException.class, () -> handle.copyTo(0, new byte[16], 0, 16));
    }

    @Test
    void theRemovedBitFailsEveryReadAtOnce() {
        write(1);
        block.set(ValueLayout.JAVA_LONG, stampAt, block.get(ValueLayout.JAVA_LONG, stampAt) | SliceStamp.REMOVED);
        assertTrue(pool.isLive(ref), "still live: the map deletes it next");
        assertThrows(ConcurrentModificationException.class, () -> handle.getByte(0));
        assertThrows(ConcurrentModificationException.class, () -> handle.read(view -> view.getByte(0)));
        assertThrows(ConcurrentModificationException.class, () -> handle.copyTo(0, ByteBuffer.allocate(4)));
    }

    @Test
    void everyAccessorReadsTheValue() {
        write(0x0102_0304_0506_0708L);
        assertEquals(0x01, handle.getByte(0));
        assertEquals(0x0102, handle.getShort(0));
        assertEquals((char) 0x0304, handle.getChar(2));
        assertEquals(0x0102_0304, handle.getInt(0));
        assertEquals(0x0102_0304_0506_0708L, handle.getLong(8));
        assertEquals(Float.intBitsToFloat(0x0506_0708), handle.getFloat(4));
        assertEquals(Double.longBitsToDouble(0x0102_0304_0506_0708L), handle.getDouble(0));
        byte[] bytes = new byte[16];
        handle.copyTo(0, bytes, 0, 16);
        assertEquals(8, bytes[15]);
        ByteBuffer buffer = ByteBuffer.allocateDirect(16);
        handle.copyTo(0, buffer);
        assertEquals(16, buffer.position());
        assertEquals(0x0102_0304_0506_0708L, buffer.getLong(8));
        MemorySegment target = MemorySegment.ofArray(new byte[16]);
        handle.copyTo(0, target, 0, 16);
        assertEquals(1, target.get(ValueLayout.JAVA_BYTE, 8));
        assertEquals(16, handle.size());
        assertTrue(handle.toString().contains("stamped"), handle.toString());
    }

    @Test
    void theStampMustBeAnAlignedWordInsideTheSlice() {
        SliceHandle other = new SliceHandle(pool);
        assertThrows(IndexOutOfBoundsException.class, () -> other.pointAt(ref, VALUE, -1, 4));
        assertThrows(IndexOutOfBoundsException.class, () -> other.pointAt(ref, VALUE, -1, SIZE - 4));
        assertThrows(IndexOutOfBoundsException.class, () -> other.pointAt(ref, VALUE, -1, SIZE));
        assertThrows(IndexOutOfBoundsException.class, () -> other.pointAt(ref, VALUE, -1, -8));
        assertFalse(other.toString().contains("stamped"));
    }
}
