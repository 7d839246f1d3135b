package io.grove.internal.view;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.serial.Serializers;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class KeyBufferTest {
    private final KeyBuffer buffer = new KeyBuffer();

    @Test
    void aKeyLargerThanTheLimitIsNotSerializedButItsSizeIsKnown() {
        assertFalse(buffer.set(Serializers.bytes(), new byte[100], 99));
        assertFalse(buffer.fits());
        assertEquals(100, buffer.length());
        assertTrue(buffer.tooLarge(99, "why").getMessage().contains("100 bytes"));
        assertTrue(buffer.set(Serializers.bytes(), new byte[99], 99));
        assertTrue(buffer.fits());
    }

    @Test
    void smallKeysReuseOneBufferAndLargeOnesAreDroppedOnRelease() {
        assertTrue(buffer.set(Serializers.strings(), "short", 1 << 20));
        assertEquals('s', (char) buffer.segment().get(ValueLayout.JAVA_BYTE, 0));
        byte[] large = new byte[1 << 20];
        large[large.length - 1] = 9;
        assertTrue(buffer.set(Serializers.bytes(), large, 1 << 20));
        assertEquals(9, buffer.segment().get(ValueLayout.JAVA_BYTE, large.length - 1));
        buffer.release();
        assertTrue(buffer.retainedCapacity() <= KeyBuffer.RETAINED_BYTES, "kept " + buffer.retainedCapacity());
        assertTrue(buffer.set(Serializers.bytes(), new byte[KeyBuffer.RETAINED_BYTES], 1 << 20));
        assertEquals(KeyBuffer.RETAINED_BYTES, buffer.retainedCapacity());
        buffer.setBytes(java.lang.foreign.MemorySegment.ofArray(new byte[] {1, 2, 3}), 3);
        assertEquals(3, buffer.length());
        assertEquals(2, buffer.segment().get(ValueLayout.JAVA_BYTE, 1));
    }
}
