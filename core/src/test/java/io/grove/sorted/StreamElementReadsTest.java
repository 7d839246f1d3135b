package io.grove.sorted;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import java.nio.ByteBuffer;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The reads of a zero-copy stream's element, each kind, on one thread: a value's getters, copies and
 * {@code read(function)} return the entry's bytes; a function's own exception on bytes that did not change comes out
 * once; a read inside a read's function works; once the value was replaced or removed every read fails with
 * {@link ConcurrentModificationException} while the key handle reads on; reads outside the bytes throw
 * {@link IndexOutOfBoundsException}. With and without {@code layOutForScans()}, whose streams' handles follow their
 * pairs when a layout moves them.
 */
class StreamElementReadsTest {
    private static final int KEYS = 40;

    private static GroveSortedMap<Long, byte[]> filledMap(boolean layOut) {
        GroveSortedMap.Builder<Long, byte[]> builder =
                GroveSortedMap.builder(Serializers.longs(), Serializers.bytes()).chunkSize(8);
        GroveSortedMap<Long, byte[]> map = (layOut ? builder.layOutForScans() : builder).build();
        for (long k = 0; k < KEYS; k++) {
            map.put(k, value(k));
        }
        return map;
    }

    private static byte[] value(long k) {
        return ByteBuffer.allocate(24).putLong(k).putLong(~k).putLong(k * 3).array();
    }

    /** The stream's element at key {@code k}, taken from a stream of the whole map. */
    private static Map.Entry<Handle, Handle> elementAt(Iterator<Map.Entry<Handle, Handle>> stream, long k) {
        while (true) {
            Map.Entry<Handle, Handle> e = stream.next();
            if (Serializers.longs().read(e.getKey()) == k) {
                return e;
            }
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void everyReadOfAnElementReturnsItsEntrysBytes(boolean layOut) {
        try (GroveSortedMap<Long, byte[]> map = filledMap(layOut)) {
            map.zc().entryStream().forEach(e -> { }); // a laid-out map lays its chunks out at their second scan
            map.zc().entryStream().forEach(e -> { });
            Iterator<Map.Entry<Handle, Handle>> stream = map.zc().entryStream().iterator();
            for (long k = 0; k < KEYS; k++) {
                Map.Entry<Handle, Handle> e = stream.next();
                Handle key = e.getKey();
                Handle value = e.getValue();
                assertEquals(k, Serializers.longs().read(key));
                assertEquals(Long.BYTES, key.size());
                assertEquals(24, value.size());
                assertEquals(k, value.getLong(0));
                assertEquals(~k, value.getLong(8));
                assertEquals((byte) k, value.getByte(7));
                assertEquals((int) ~k, value.getInt(12));
                assertEquals((short) (k * 3), value.getShort(22));
                assertEquals((char) (k * 3), value.getChar(22));
                assertEquals(Double.longBitsToDouble(k * 3), value.getDouble(16));
                assertEquals(Float.intBitsToFloat((int) ~k), value.getFloat(12));
                byte[] copy = new byte[24];
                value.copyTo(0, copy, 0, 24);
                assertArrayEquals(value(k), copy);
                assertArrayEquals(value(k), value.toByteArray());
                assertEquals(k * 3, (long) value.read(v -> v.getLong(16)));
                assertTrue(value.isValid());
                assertTrue(key.isValid());
                assertTrue(value.toString().contains("size=24"), value.toString());
            }
            assertFalse(stream.hasNext());
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aFunctionsOwnExceptionComesOutOnceAndAReadInsideAFunctionWorks(boolean layOut) {
        try (GroveSortedMap<Long, byte[]> map = filledMap(layOut)) {
            Handle value = elementAt(map.zc().entryStream().iterator(), 7).getValue();
            AtomicInteger runs = new AtomicInteger();
            IllegalArgumentException thrown = new IllegalArgumentException("the function's own");
            assertSame(thrown, assertThrows(IllegalArgumentException.class, () -> value.read(v -> {
                runs.incrementAndGet();
                throw thrown;
            })));
            assertEquals(1, runs.get(), "a function that failed on bytes that did not change ran again");
            long[] nested =
                    value.read(v -> new long[] {v.getLong(0), value.getLong(8), value.read(w -> w.getLong(16))});
            assertArrayEquals(new long[] {7, ~7L, 21}, nested);
            assertEquals(7, value.getLong(0), "a read after a nested read");
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aValueReplacedOrRemovedFailsEveryReadWhileItsKeyReadsOn(boolean layOut) {
        try (GroveSortedMap<Long, byte[]> map = filledMap(layOut)) {
            Iterator<Map.Entry<Handle, Handle>> stream = map.zc().entryStream().iterator();
            Map.Entry<Handle, Handle> replaced = elementAt(stream, 5);
            assertEquals(5, replaced.getValue().getLong(0)); // a quick read confirmed the stamp
            map.put(5L, value(500));
            assertGone(replaced.getValue());
            assertEquals(5L, Serializers.longs().read(replaced.getKey()), "a key handle survives a put");

            Map.Entry<Handle, Handle> removed = elementAt(stream, 6);
            map.remove(6L);
            assertGone(removed.getValue());
        }
    }

    private static void assertGone(Handle value) {
        assertThrows(ConcurrentModificationException.class, () -> value.getLong(0));
        assertThrows(ConcurrentModificationException.class, () -> value.getByte(0));
        assertThrows(ConcurrentModificationException.class, () -> value.read(v -> v.getLong(0)));
        assertThrows(ConcurrentModificationException.class, () -> value.copyTo(0, new byte[24], 0, 24));
        assertFalse(value.isValid());
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void readsOutsideTheBytesThrow(boolean layOut) {
        try (GroveSortedMap<Long, byte[]> map = filledMap(layOut)) {
            Map.Entry<Handle, Handle> e = map.zc().entryStream().iterator().next();
            assertThrows(IndexOutOfBoundsException.class, () -> e.getValue().getLong(17));
            assertThrows(IndexOutOfBoundsException.class, () -> e.getValue().getByte(-1));
            assertThrows(IndexOutOfBoundsException.class, () -> e.getKey().getInt(5));
            assertThrows(IndexOutOfBoundsException.class, () -> e.getValue().read(v -> v.getLong(24)));
            assertEquals(0, e.getValue().getLong(0), "a read after the failed ones");
        }
    }
}
