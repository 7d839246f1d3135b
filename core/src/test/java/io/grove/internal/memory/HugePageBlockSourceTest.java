package io.grove.internal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** {@link HugePageBlockSource} keeps the contract of a block source: zero-filled, aligned, gone after the close. */
class HugePageBlockSourceTest {
    @Test
    void blocksAreAlignedZeroFilledWritableAndInaccessibleAfterTheClose() {
        assertTrue(HugePageBlockSource.supported(), "this project's machines run Linux on x86-64");
        HugePageBlockSource source = new HugePageBlockSource();
        MemorySegment[] blocks = new MemorySegment[3];
        for (int b = 0; b < blocks.length; b++) {
            blocks[b] = source.reserve(8L << 20);
            assertEquals(8L << 20, blocks[b].byteSize());
            assertEquals(0, blocks[b].address() % (2L << 20), "aligned to 2 MiB");
            for (long at = 0; at < blocks[b].byteSize(); at += 4096) {
                assertEquals(0L, blocks[b].get(ValueLayout.JAVA_LONG, at), "fresh memory at " + at);
                blocks[b].set(ValueLayout.JAVA_LONG, at, at + b);
            }
        }
        for (int b = 0; b < blocks.length; b++) {
            for (long at = 0; at < blocks[b].byteSize(); at += 4096) {
                assertEquals(at + b, blocks[b].get(ValueLayout.JAVA_LONG, at));
            }
        }
        source.close();
        assertThrows(IllegalStateException.class, () -> blocks[0].get(ValueLayout.JAVA_LONG, 0));
    }
}
