package io.grove.internal.view;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.view.ReadView;
import io.grove.view.WriteView;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Unit tests of {@link SegmentView} over a 16-byte region in the middle of a 32-byte confined segment, so that
 * only the view's own checks (not the segment's) stand between a bad index and the neighbouring bytes.
 */
class SegmentViewTest {
    static final int TOTAL = 32;
    static final int OFFSET = 8;
    static final int SIZE = 16;
    static final long SEED = Long.getLong("grove.seed", System.nanoTime());

    private Arena arena;
    private MemorySegment segment;
    private SegmentView view;

    @BeforeEach
    @SuppressWarnings("MustBeClosedChecker") // the arena lives for one test: tearDown closes it
    void setUp() {
        arena = Arena.ofConfined();
        segment = arena.allocate(TOTAL);
        resetContents();
        view = new SegmentView().open(segment, OFFSET, SIZE, true);
    }

    private void resetContents() {
        for (int i = 0; i < TOTAL; i++) {
            segment.set(ValueLayout.JAVA_BYTE, i, (byte) (0xA0 + i));
        }
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    private byte[] contents() {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    private byte[] region() {
        return segment.asSlice(OFFSET, SIZE).toArray(ValueLayout.JAVA_BYTE);
    }

    // ---- accessor tables -----------------------------------------------------------------------------------

    /** A fixed-width accessor applied at an index. */
    record Access(String name, int width, IndexOp op) {
        @Override
        public String toString() {
            return name;
        }
    }

    @FunctionalInterface
    interface IndexOp {
        void apply(SegmentView view, int index);
    }

    /** A bulk accessor applied at an index with a length. */
    record Bulk(String name, boolean writes, BulkOp op) {
        @Override
        public String toString() {
            return name;
        }
    }

    @FunctionalInterface
    interface BulkOp {
        void apply(SegmentView view, int index, int length);
    }

    static List<Access> reads() {
        return List.of(
                new Access("getByte", 1, SegmentView::getByte),
                new Access("getShort", 2, SegmentView::getShort),
                new Access("getChar", 2, SegmentView::getChar),
                new Access("getInt", 4, SegmentView::getInt),
                new Access("getLong", 8, SegmentView::getLong),
                new Access("getFloat", 4, SegmentView::getFloat),
                new Access("getDouble", 8, SegmentView::getDouble));
    }

    static List<Access> puts() {
        return List.of(
                new Access("putByte", 1, (v, i) -> v.putByte(i, (byte) 1)),
                new Access("putShort", 2, (v, i) -> v.putShort(i, (short) 1)),
                new Access("putChar", 2, (v, i) -> v.putChar(i, 'x')),
                new Access("putInt", 4, (v, i) -> v.putInt(i, 1)),
                new Access("putLong", 8, (v, i) -> v.putLong(i, 1L)),
                new Access("putFloat", 4, (v, i) -> v.putFloat(i, 1f)),
                new Access("putDouble", 8, (v, i) -> v.putDouble(i, 1d)));
    }

    /** Bulk accessors whose other side (array, segment) is large enough for any in-bounds length. */
    List<Bulk> bulks() {
        MemorySegment other = arena.allocate(64);
        return List.of(
                new Bulk("copyTo(byte[])", false, (v, i, n) -> v.copyTo(i, new byte[64], 0, n)),
                new Bulk("copyTo(MemorySegment)", false, (v, i, n) -> v.copyTo(i, other, 0, n)),
                new Bulk("copyFrom(byte[])", true, (v, i, n) -> v.copyFrom(new byte[64], 0, i, n)),
                new Bulk("copyFrom(MemorySegment)", true, (v, i, n) -> v.copyFrom(other, 0, i, n)),
                new Bulk("fill", true, (v, i, n) -> v.fill(i, n, (byte) 1)));
    }

    /** Every method of the view, each applied with arguments that would be valid on an open writable view. */
    List<Consumer<SegmentView>> everyMethod() {
        List<Consumer<SegmentView>> all = new ArrayList<>();
        all.add(SegmentView::size);
        all.add(SegmentView::toByteArray);
        for (Access a : reads()) {
            all.add(v -> a.op().apply(v, 0));
        }
        all.addAll(everyWrite());
        all.add(v -> v.copyTo(0, new byte[4], 0, 4));
        all.add(v -> v.copyTo(0, ByteBuffer.allocate(4)));
        all.add(v -> v.copyTo(0, arena.allocate(4), 0, 4));
        return all;
    }

    List<Consumer<SegmentView>> everyWrite() {
        List<Consumer<SegmentView>> all = new ArrayList<>();
        for (Access a : puts()) {
            all.add(v -> a.op().apply(v, 0));
        }
        all.add(v -> v.copyFrom(new byte[4], 0, 0, 4));
        all.add(v -> v.copyFrom(ByteBuffer.allocate(4), 0));
        all.add(v -> v.copyFrom(ByteBuffer.allocateDirect(4), 0));
        all.add(v -> v.copyFrom(arena.allocate(4), 0, 0, 4));
        all.add(v -> v.fill(0, 4, (byte) 1));
        return all;
    }

    // ---- round trips ---------------------------------------------------------------------------------------

    @Test
    void multiByteValuesAreBigEndian() {
        view.putLong(0, 0x0102030405060708L).putInt(8, 0x090A0B0C).putShort(12, (short) 0x0D0E).putChar(14, '\u0F10');
        byte[] expected = new byte[SIZE];
        for (int i = 0; i < SIZE; i++) {
            expected[i] = (byte) (i + 1);
        }
        assertArrayEquals(expected, region());
    }

    @Test
    void everyFixedWidthAccessorRoundTripsAtTheBoundaries() {
        Random random = new Random(SEED);
        long[] values = {0, -1, 1, Long.MIN_VALUE, Long.MAX_VALUE, random.nextLong(), random.nextLong()};
        for (long value : values) {
            for (int width : new int[] {1, 2, 4, 8}) {
                for (int index : new int[] {0, 1, SIZE / 2 - 1, SIZE - width}) {
                    roundTrip(value, width, index);
                }
            }
        }
    }

    private void roundTrip(long value, int width, int index) {
        String where = "value " + value + ", width " + width + ", index " + index + ", seed " + SEED;
        ByteBuffer expected = ByteBuffer.allocate(SIZE);
        byte[] before = contents();
        switch (width) {
            case 1 -> {
                view.putByte(index, (byte) value);
                assertEquals((byte) value, view.getByte(index), where);
                expected.put(index, (byte) value);
            }
            case 2 -> {
                view.putShort(index, (short) value);
                assertEquals((short) value, view.getShort(index), where);
                assertEquals((char) value, view.getChar(index), where);
                view.putChar(index, (char) value);
                assertEquals((short) value, view.getShort(index), where);
                expected.putShort(index, (short) value);
            }
            case 4 -> {
                view.putInt(index, (int) value);
                assertEquals((int) value, view.getInt(index), where);
                // floatToIntBits on both sides: a NaN's payload need not survive a float register.
                assertEquals(Float.floatToIntBits(Float.intBitsToFloat((int) value)),
                        Float.floatToIntBits(view.getFloat(index)), where);
                float f = (float) value / 3;
                view.putFloat(index, f);
                assertEquals(f, view.getFloat(index), where);
                view.putInt(index, (int) value);
                expected.putInt(index, (int) value);
            }
            default -> {
                view.putDouble(index, (double) value / 3);
                assertEquals((double) value / 3, view.getDouble(index), where);
                view.putLong(index, value);
                assertEquals(value, view.getLong(index), where);
                assertEquals(Double.doubleToLongBits(Double.longBitsToDouble(value)),
                        Double.doubleToLongBits(view.getDouble(index)), where);
                expected.putLong(index, value);
            }
        }
        byte[] after = contents();
        for (int i = 0; i < TOTAL; i++) {
            boolean written = i >= OFFSET + index && i < OFFSET + index + width;
            byte want = written ? expected.get(i - OFFSET) : before[i];
            assertEquals(want, after[i], "byte " + i + " of the segment, " + where);
        }
    }

    @Test
    void floatingPointSpecialValuesRoundTrip() {
        for (float f : new float[] {Float.NaN, Float.POSITIVE_INFINITY, -0f, Float.MIN_VALUE, Float.MAX_VALUE}) {
            view.putFloat(SIZE - 4, f);
            assertEquals(f, view.getFloat(SIZE - 4));
        }
        for (double d : new double[] {Double.NaN, Double.NEGATIVE_INFINITY, -0d, Double.MIN_VALUE}) {
            view.putDouble(SIZE - 8, d);
            assertEquals(d, view.getDouble(SIZE - 8));
        }
    }

    @Test
    void byteArraysRoundTripAtEveryIndexAndLength() {
        Random random = new Random(SEED);
        for (int index = 0; index <= SIZE; index++) {
            for (int length = 0; index + length <= SIZE; length++) {
                String where = "index " + index + ", length " + length + ", seed " + SEED;
                byte[] source = new byte[length + 5];
                random.nextBytes(source);
                byte[] before = contents();
                view.copyFrom(source, 3, index, length);
                byte[] target = new byte[length + 7];
                view.copyTo(index, target, 2, length);
                for (int i = 0; i < length; i++) {
                    assertEquals(source[3 + i], target[2 + i], where);
                }
                assertUnchangedOutside(before, index, length, where);
            }
        }
    }

    private void assertUnchangedOutside(byte[] before, int index, int length, String where) {
        byte[] after = contents();
        for (int i = 0; i < TOTAL; i++) {
            if (i < OFFSET + index || i >= OFFSET + index + length) {
                assertEquals(before[i], after[i], "byte " + i + " of the segment changed, " + where);
            }
        }
    }

    @Test
    void toByteArrayCopiesTheRegion() {
        assertArrayEquals(region(), view.toByteArray());
        assertEquals(SIZE, view.size());
    }

    @Test
    void segmentsRoundTripAndOverlapIsHandled() {
        Random random = new Random(SEED);
        MemorySegment heap = MemorySegment.ofArray(new byte[40]);
        MemorySegment other = arena.allocate(40);
        for (MemorySegment side : List.of(heap, other)) {
            for (int index = 0; index <= SIZE; index += 3) {
                for (int length = 0; index + length <= SIZE; length += 5) {
                    String where = side + ", index " + index + ", length " + length + ", seed " + SEED;
                    byte[] data = new byte[length];
                    random.nextBytes(data);
                    MemorySegment.copy(data, 0, side, ValueLayout.JAVA_BYTE, 7, length);
                    byte[] before = contents();
                    view.copyFrom(side, 7, index, length);
                    assertUnchangedOutside(before, index, length, where);
                    side.fill((byte) 0);
                    view.copyTo(index, side, 11, length);
                    assertArrayEquals(data, side.asSlice(11, length).toArray(ValueLayout.JAVA_BYTE), where);
                }
            }
        }
        // Source and target overlap inside the same segment: the copy behaves like memmove.
        byte[] original = region();
        view.copyFrom(segment, OFFSET + 2, 0, SIZE - 2);
        for (int i = 0; i < SIZE - 2; i++) {
            assertEquals(original[i + 2], view.getByte(i));
        }
    }

    @Test
    void fillWritesExactlyTheRange() {
        for (byte value : new byte[] {0, 1, (byte) 0x80, (byte) 0xFF}) {
            for (int index = 0; index <= SIZE; index++) {
                for (int length = 0; index + length <= SIZE; length++) {
                    String where = "value " + value + ", index " + index + ", length " + length;
                    resetContents();
                    byte[] before = contents();
                    assertSame(view, view.fill(index, length, value));
                    for (int i = 0; i < length; i++) {
                        assertEquals(value, view.getByte(index + i), where);
                    }
                    assertUnchangedOutside(before, index, length, where);
                }
            }
        }
    }

    // ---- ByteBuffers ---------------------------------------------------------------------------------------

    static List<Supplier<ByteBuffer>> bufferKinds(int capacity) {
        return List.of(
                () -> ByteBuffer.allocate(capacity),
                () -> ByteBuffer.allocateDirect(capacity),
                () -> ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN),
                () -> ByteBuffer.wrap(new byte[capacity + 6], 3, capacity).slice(), // arrayOffset 3
                () -> ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN));
    }

    @Test
    void byteBuffersRoundTripRespectingPositionAndLimit() {
        Random random = new Random(SEED);
        for (Supplier<ByteBuffer> kind : bufferKinds(SIZE + 8)) {
            for (int index = 0; index <= SIZE; index++) {
                for (int length = 0; index + length <= SIZE; length++) {
                    ByteBuffer source = kind.get();
                    String where = source + ", index " + index + ", length " + length + ", seed " + SEED;
                    byte[] data = new byte[length];
                    random.nextBytes(data);
                    source.position(5).put(data).position(5).limit(5 + length);
                    byte[] before = contents();
                    assertSame(view, view.copyFrom(source, index));
                    assertEquals(5 + length, source.position(), where);
                    assertEquals(5 + length, source.limit(), where);
                    assertUnchangedOutside(before, index, length, where);

                    ByteBuffer target = kind.get();
                    target.position(2).limit(2 + length);
                    view.copyTo(index, target);
                    assertEquals(2 + length, target.position(), where);
                    target.limit(target.capacity());
                    byte[] copied = new byte[length];
                    target.get(2, copied);
                    assertArrayEquals(data, copied, where);
                    assertEquals(0, target.get(1), where);
                    if (target.capacity() > 2 + length) {
                        assertEquals(0, target.get(2 + length), where);
                    }
                }
            }
        }
    }

    @Test
    void readOnlyBuffersAreValidSources() {
        Random random = new Random(SEED);
        byte[] data = new byte[13];
        random.nextBytes(data);
        for (Supplier<ByteBuffer> kind : bufferKinds(data.length)) {
            ByteBuffer source = kind.get().put(data).flip().asReadOnlyBuffer();
            view.fill(0, SIZE, (byte) 0);
            view.copyFrom(source, 2);
            assertEquals(data.length, source.position());
            byte[] copied = new byte[data.length];
            view.copyTo(2, copied, 0, data.length);
            assertArrayEquals(data, copied, source + ", seed " + SEED);
        }
    }

    @Test
    void readOnlyTargetBufferIsRejectedAndUnchanged() {
        for (Supplier<ByteBuffer> kind : bufferKinds(8)) {
            ByteBuffer target = kind.get().asReadOnlyBuffer();
            assertThrows(ReadOnlyBufferException.class, () -> view.copyTo(0, target));
            assertEquals(0, target.position());
            assertEquals(0, target.get(0));
        }
    }

    @Test
    void bufferLongerThanTheRestOfTheViewChangesNothing() {
        for (Supplier<ByteBuffer> kind : bufferKinds(SIZE + 1)) {
            ByteBuffer buffer = kind.get();
            byte[] before = contents();
            IndexOutOfBoundsException e =
                    assertThrows(IndexOutOfBoundsException.class, () -> view.copyFrom(buffer, 0));
            assertEquals("index 0, length 17 out of bounds for view of size 16", e.getMessage());
            assertEquals(0, buffer.position());
            buffer.position(4);
            e = assertThrows(IndexOutOfBoundsException.class, () -> view.copyTo(4, buffer));
            assertEquals("index 4, length 13 out of bounds for view of size 16", e.getMessage());
            assertEquals(4, buffer.position());
            assertArrayEquals(before, contents());
            for (int i = 0; i < buffer.capacity(); i++) {
                assertEquals(0, buffer.get(i));
            }
        }
    }

    // ---- bounds --------------------------------------------------------------------------------------------

    private void assertOutOfBounds(String expectedMessage, Runnable access) {
        byte[] before = contents();
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, access::run, expectedMessage);
        assertEquals(expectedMessage, e.getMessage());
        // Only a range outside the view has the type the memory layer turns into a SerializerException.
        assertEquals(expectedMessage.startsWith("index "), e instanceof ViewBoundsException, expectedMessage);
        assertArrayEquals(before, contents(), "contents changed by a failed access: " + expectedMessage);
    }

    @Test
    void fixedWidthAccessOutOfBoundsThrowsAndChangesNothing() {
        List<Access> all = new ArrayList<>(reads());
        all.addAll(puts());
        for (Access a : all) {
            int w = a.width();
            int[] bad = {-1, -w, Integer.MIN_VALUE, SIZE - w + 1, SIZE, SIZE + 100, Integer.MAX_VALUE,
                Integer.MAX_VALUE - w + 2};
            for (int index : bad) {
                assertOutOfBounds("index " + index + ", length " + w + " out of bounds for view of size " + SIZE,
                        () -> a.op().apply(view, index));
            }
            a.op().apply(view, SIZE - w); // the last valid index still works
        }
    }

    @Test
    void bulkAccessOutOfBoundsThrowsAndChangesNothing() {
        int[][] bad = {{-1, 1}, {-1, 0}, {0, -1}, {0, SIZE + 1}, {1, SIZE}, {SIZE, 1}, {SIZE + 1, 0},
            {Integer.MAX_VALUE, 1}, {1, Integer.MAX_VALUE}, {Integer.MAX_VALUE, Integer.MAX_VALUE},
            {Integer.MIN_VALUE, 0}, {Integer.MIN_VALUE, Integer.MIN_VALUE}, {8, Integer.MIN_VALUE}};
        for (Bulk b : bulks()) {
            for (int[] c : bad) {
                assertOutOfBounds("index " + c[0] + ", length " + c[1] + " out of bounds for view of size " + SIZE,
                        () -> b.op().apply(view, c[0], c[1]));
            }
            b.op().apply(view, SIZE, 0); // empty ranges at either end are valid
            b.op().apply(view, 0, SIZE);
        }
    }

    @Test
    void arrayRangesAreCheckedBeforeCopying() {
        byte[] small = new byte[10];
        int[][] bad = {{-1, 1}, {0, 11}, {3, 8}, {10, 1}, {11, 0}, {Integer.MAX_VALUE, 1}, {Integer.MIN_VALUE, 1}};
        for (int[] c : bad) {
            String message = "array index " + c[0] + ", length " + c[1] + " out of bounds for array of length 10";
            assertOutOfBounds(message, () -> view.copyTo(0, small, c[0], c[1]));
            assertOutOfBounds(message, () -> view.copyFrom(small, c[0], 0, c[1]));
        }
        assertArrayEquals(new byte[10], small);
        // The view's range is checked first.
        assertOutOfBounds("index 10, length 8 out of bounds for view of size 16",
                () -> view.copyTo(10, small, 5, 8));
    }

    @Test
    void segmentRangesAreCheckedBeforeCopying() {
        MemorySegment other = arena.allocate(10);
        long[][] bad = {{-1, 1}, {0, 11}, {3, 8}, {10, 1}, {11, 0}, {Long.MAX_VALUE, 1}, {Long.MIN_VALUE, 1}};
        for (long[] c : bad) {
            String message = "segment offset " + c[0] + ", length " + c[1] + " out of bounds for segment of size 10";
            assertOutOfBounds(message, () -> view.copyTo(0, other, c[0], (int) c[1]));
            assertOutOfBounds(message, () -> view.copyFrom(other, c[0], 0, (int) c[1]));
        }
        assertArrayEquals(new byte[10], other.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void readOnlyTargetSegmentFailsBeforeWriting() {
        MemorySegment readOnly = arena.allocate(SIZE).asReadOnly();
        assertThrows(IllegalArgumentException.class, () -> view.copyTo(0, readOnly, 0, SIZE));
        assertArrayEquals(new byte[SIZE], readOnly.toArray(ValueLayout.JAVA_BYTE));
    }

    // ---- allocation ----------------------------------------------------------------------------------------

    /**
     * The current thread's allocated bytes, through reflection: test sources are compiled into the
     * {@code io.grove} module, which does not read {@code jdk.management}; at run time they are on the class path.
     */
    private static LongSupplier allocationCounter() {
        try {
            Object bean = Class.forName("java.lang.management.ManagementFactory")
                    .getMethod("getThreadMXBean").invoke(null);
            Class<?> type = Class.forName("com.sun.management.ThreadMXBean");
            Method supported = type.getMethod("isThreadAllocatedMemorySupported");
            if (!type.isInstance(bean) || !(Boolean) supported.invoke(bean)) {
                return null;
            }
            Method allocated = type.getMethod("getCurrentThreadAllocatedBytes");
            return () -> {
                try {
                    return (Long) allocated.invoke(bean);
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
            };
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    @Test
    void accessorsDoNotAllocate() {
        LongSupplier counter = allocationCounter();
        Assumptions.assumeTrue(counter != null, "per-thread allocation counter not available");
        byte[] array = new byte[SIZE];
        MemorySegment other = arena.allocate(SIZE);
        ByteBuffer heap = ByteBuffer.allocate(SIZE);
        ByteBuffer direct = ByteBuffer.allocateDirect(SIZE);
        ByteBuffer readOnly = ByteBuffer.allocateDirect(SIZE).asReadOnlyBuffer();
        long[] sink = new long[1];
        Runnable all = () -> {
            sink[0] += view.getByte(0) + view.getShort(1) + view.getChar(2) + view.getInt(3) + view.getLong(4)
                    + (long) view.getFloat(5) + (long) view.getDouble(6) + view.size();
            view.putByte(0, (byte) 1).putShort(1, (short) 2).putChar(2, 'c').putInt(3, 4).putLong(4, 5L)
                    .putFloat(5, 6f).putDouble(6, 7d).fill(1, 13, (byte) 8);
            view.copyTo(0, array, 0, SIZE);
            view.copyFrom(array, 0, 0, SIZE);
            view.copyTo(0, other, 0, SIZE);
            view.copyFrom(other, 0, 0, SIZE);
            view.copyTo(0, heap.clear());
            view.copyFrom(heap.flip(), 0);
            view.copyTo(0, direct.clear());
            view.copyFrom(direct.flip(), 0);
            view.copyFrom(readOnly.clear(), 0);
            view.close();
            view.open(segment, OFFSET, SIZE, true);
        };
        for (int i = 0; i < 1_000; i++) {
            all.run(); // links the call sites and initializes classes, which allocates once
        }
        int rounds = 10_000;
        long before = counter.getAsLong();
        for (int i = 0; i < rounds; i++) {
            all.run();
        }
        long allocated = counter.getAsLong() - before;
        // An allocating accessor would cost at least 16 bytes per round: 160,000 bytes. Allow for noise.
        assertTrue(allocated < 4096, allocated + " bytes allocated in " + rounds + " rounds of every accessor");
    }

    // ---- life cycle ----------------------------------------------------------------------------------------

    @Test
    void everyMethodOfAClosedViewThrows() {
        SegmentView neverOpened = new SegmentView();
        view.close();
        view.close(); // idempotent
        for (SegmentView closed : List.of(view, neverOpened)) {
            assertFalse(closed.isOpen());
            for (Consumer<SegmentView> method : everyMethod()) {
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> method.accept(closed));
                assertEquals("view used outside its callback", e.getMessage());
            }
            // Validity comes before every other check.
            assertThrows(IllegalStateException.class, () -> closed.getLong(-1));
            assertThrows(IllegalStateException.class, () -> closed.copyTo(0, (byte[]) null, 0, 1));
            assertThrows(IllegalStateException.class,
                    () -> closed.copyTo(0, ByteBuffer.allocate(1).asReadOnlyBuffer()));
        }
        assertEquals("SegmentView[closed]", view.toString());
    }

    @Test
    void everyWriteOnAReadOnlyViewThrowsAndChangesNothing() {
        view.close();
        ReadView readOnly = view.open(segment, OFFSET, SIZE, false);
        assertEquals(SIZE, readOnly.size());
        assertEquals((byte) (0xA0 + OFFSET), readOnly.getByte(0));
        assertArrayEquals(region(), readOnly.toByteArray());
        byte[] before = contents();
        for (Consumer<SegmentView> write : everyWrite()) {
            IllegalStateException e =
                    assertThrows(IllegalStateException.class, () -> write.accept((SegmentView) (WriteView) readOnly));
            assertEquals("view is read-only", e.getMessage());
        }
        assertThrows(IllegalStateException.class, () -> view.putLong(-1, 0)); // before the bounds check
        assertArrayEquals(before, contents());
        assertEquals("SegmentView[size=16, read-only]", view.toString());
    }

    @Test
    void openValidatesTheRegion() {
        assertThrows(IllegalStateException.class, () -> view.open(segment, 0, 1, true));
        view.close();
        SegmentView v = view;
        assertThrows(IndexOutOfBoundsException.class, () -> v.open(segment, TOTAL - 3, 4, true));
        assertThrows(IndexOutOfBoundsException.class, () -> v.open(segment, -1, 4, true));
        assertThrows(IndexOutOfBoundsException.class, () -> v.open(segment, 0, -1, true));
        assertThrows(NullPointerException.class, () -> v.open(null, 0, 0, true));
        assertThrows(IllegalArgumentException.class, () -> v.open(segment.asReadOnly(), 0, 4, true));
        assertFalse(v.isOpen());
        v.open(segment.asReadOnly(), 0, TOTAL, false);
        assertEquals(TOTAL, v.size());
        v.close();
        v.open(segment, TOTAL, 0, true);
        assertEquals(0, v.size());
        assertEquals(0, v.toByteArray().length);
        assertOutOfBounds("index 0, length 1 out of bounds for view of size 0", () -> v.getByte(0));
        v.close();
        assertTrue(v.open(segment, 0, 4, true).isOpen());
        assertEquals("SegmentView[size=4, writable]", v.toString());
    }

    @Test
    void nullArgumentsThrowNullPointerException() {
        byte[] before = contents();
        assertThrows(NullPointerException.class, () -> view.copyTo(0, (byte[]) null, 0, 0));
        assertThrows(NullPointerException.class, () -> view.copyTo(0, (ByteBuffer) null));
        assertThrows(NullPointerException.class, () -> view.copyTo(0, (MemorySegment) null, 0, 0));
        assertThrows(NullPointerException.class, () -> view.copyFrom((byte[]) null, 0, 0, 0));
        assertThrows(NullPointerException.class, () -> view.copyFrom((ByteBuffer) null, 0));
        assertThrows(NullPointerException.class, () -> view.copyFrom((MemorySegment) null, 0, 0, 0));
        assertArrayEquals(before, contents());
    }
}
