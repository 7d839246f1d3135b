package io.grove.internal.view;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.Reclamation;
import io.grove.SerializerException;
import io.grove.internal.memory.Pool;
import io.grove.serial.Serializer;
import io.grove.serial.Serializers;
import io.grove.view.ReadView;
import io.grove.view.WriteView;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ConcurrentModificationException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SliceHandleTest {
    private final Pool pool = new Pool(1 << 16, 4 << 16, Reclamation.NOVA);
    private final SegmentView scratch = new SegmentView();

    @AfterEach
    void close() {
        pool.close();
    }

    private long store(String value) {
        return write(Serializers.strings(), value);
    }

    /** A new private slice holding {@code value}, as the maps make them. */
    private <T> long write(Serializer<T> serializer, T value) {
        int size = SliceWriter.sizeOf(serializer, value);
        long ref = pool.allocate(size);
        SliceWriter.writeOrDelete(pool, serializer, value, size, scratch, ref, pool.payloadOffset(ref));
        return ref;
    }

    @Test
    void handleReadsTheSliceItWasMadeFor() {
        long ref = write(Serializers.longs(), 42L);
        SliceHandle handle = new SliceHandle(pool, ref);
        assertEquals(8, handle.size());
        assertTrue(handle.isValid());
        assertEquals(42L, Serializers.longs().read(handle));
        assertEquals(42L, (long) handle.read(Serializers.longs()::read));
    }

    @Test
    void everyReadThroughAHandleOfARemovedEntryThrows() {
        long ref = store("hello, grove");
        SliceHandle handle = new SliceHandle(pool, ref);
        assertTrue(pool.delete(ref));
        pool.reclaimNow();
        long reused = store("other entry!");
        assertEquals(pool.segment(ref).address() + pool.payloadOffset(ref),
                pool.segment(reused).address() + pool.payloadOffset(reused), "the memory was reused");
        assertFalse(handle.isValid());
        assertThrows(ConcurrentModificationException.class, () -> handle.getByte(0));
        assertThrows(ConcurrentModificationException.class, () -> handle.getShort(0));
        assertThrows(ConcurrentModificationException.class, () -> handle.getChar(0));
        assertThrows(ConcurrentModificationException.class, () -> handle.getInt(0));
        assertThrows(ConcurrentModificationException.class, () -> handle.getLong(0));
        assertThrows(ConcurrentModificationException.class, () -> handle.getFloat(0));
        assertThrows(ConcurrentModificationException.class, () -> handle.getDouble(0));
        assertThrows(ConcurrentModificationException.class, () -> handle.copyTo(0, new byte[4], 0, 4));
        assertThrows(ConcurrentModificationException.class, () -> handle.copyTo(0, ByteBuffer.allocate(4)));
        assertThrows(ConcurrentModificationException.class, handle::toByteArray);
        assertThrows(ConcurrentModificationException.class, () -> handle.read(v -> v.getByte(0)));
        assertThrows(ConcurrentModificationException.class, () -> new SliceHandle(pool, ref));
        assertEquals("other entry!", Serializers.strings().read(new SliceHandle(pool, reused)));
    }

    @Test
    void aFailureOfTheReaderCausedByARemovalIsReportedAsTheRemoval() {
        long ref = store("abc");
        SliceHandle handle = new SliceHandle(pool, ref);
        assertThrows(ConcurrentModificationException.class, () -> handle.read(view -> {
            pool.delete(ref);
            throw new NegativeArraySizeException("garbage length read from reused bytes");
        }));
        long live = store("def");
        assertThrows(NegativeArraySizeException.class, () -> new SliceHandle(pool, live).read(view -> {
            throw new NegativeArraySizeException("a genuine bug of the reader");
        }));
    }

    @Test
    void theViewGivenToReadIsScopedToTheCall() {
        SliceHandle handle = new SliceHandle(pool, store("scoped"));
        AtomicReference<ReadView> leaked = new AtomicReference<>();
        handle.read(view -> {
            leaked.set(view);
            return null;
        });
        assertThrows(IllegalStateException.class, () -> leaked.get().getByte(0));
        assertThrows(IllegalStateException.class, () -> ((WriteView) leaked.get()).putByte(0, (byte) 1));
    }

    @Test
    void boundsAreCheckedAgainstTheSliceLength() {
        SliceHandle handle = new SliceHandle(pool, store("12345"));
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> handle.getInt(2));
        assertTrue(e.getMessage().contains("size 5"), e.getMessage());
        assertArrayEquals("12345".getBytes(StandardCharsets.UTF_8), handle.toByteArray());
    }

    @Test
    void handleUseAfterCloseThrowsIllegalState() {
        SliceHandle handle = new SliceHandle(pool, store("x"));
        pool.close();
        assertThrows(IllegalStateException.class, () -> handle.getByte(0));
    }

    @Test
    void serializerWritingPastItsSizeIsNamedAndLeavesNothing() {
        Serializer<String> liar = new Serializer<>() {
            @Override
            public int size(String value) {
                return value.length();
            }

            @Override
            public void write(String value, WriteView target) {
                for (int i = 0; i <= value.length(); i++) {
                    target.putByte(i, (byte) 'x');
                }
            }

            @Override
            public String read(ReadView source) {
                return "";
            }

            @Override
            public String toString() {
                return "LyingSerializer";
            }
        };
        long liveBefore = pool.footprint().liveSlices();
        SerializerException e = assertThrows(SerializerException.class,
                () -> write(liar, "four"));
        assertTrue(e.getMessage().contains("LyingSerializer") && e.getMessage().contains("4 bytes"), e.getMessage());
        assertEquals(liveBefore, pool.footprint().liveSlices(), "the half-written slice was freed");
        assertFalse(scratch.isOpen());
        assertEquals("next", Serializers.strings().read(new SliceHandle(pool, store("next"))));
    }

    @Test
    void otherSerializerFailuresPropagateAndLeaveNothing() {
        Serializer<String> failing = new Serializer<>() {
            @Override
            public int size(String value) {
                return 8;
            }

            @Override
            public void write(String value, WriteView target) {
                throw new IllegalStateException("broken serializer");
            }

            @Override
            public String read(ReadView source) {
                return "";
            }
        };
        assertThrows(IllegalStateException.class, () -> write(failing, "v"));
        assertEquals(0, pool.footprint().liveSlices());
        assertThrows(NullPointerException.class, () -> write(Serializers.strings(), null));
        assertThrows(IllegalArgumentException.class,
                () -> write(Serializers.bytes(), new byte[1 << 16]));
        assertEquals(0, pool.footprint().liveSlices());
    }
}
