package io.grove.bench.experiments;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.AbstractMap;
import java.util.Map;
import java.util.Spliterators;
import java.util.function.Consumer;
import java.util.stream.StreamSupport;

/**
 * What the read protocol of a zero-copy stream element costs by itself, in cache: 2,000 pairs laid out as the ordered
 * map lays them (a 128-byte key slice, then a value slice: 16-byte slice header, 8-byte value header, 16 value bytes)
 * in one off-heap segment, their references in heap arrays as a chunk holds them, scanned whole 2,000 times per figure,
 * ten rounds. {@code floor}: the element's three reads (the key's int, two value words) and nothing else;
 * {@code validated}: the same reads with the checks the map makes for them — the cursor's presence check (value
 * header and slice state read with acquire semantics, a load-load fence, the entry still holding the value, the chunk
 * not replaced), the key read followed by a fence and the replaced flag, and each value word followed by its stamp read
 * again, a fence and the entry check; {@code +lookups}: the same, each slice's segment found through a block table
 * by its reference, as the map's pool finds it ({@code Pool.segment}); {@code shaped}: the same checks behind the
 * API a zero-copy stream has, a spliterator whose {@code tryAdvance} reads links ahead and points two reused handles
 * whose getters make the checks, consumed by {@code limit().forEach()} as the benchmark consumes the map's streams:
 * the least such an API costs with these checks. Run: {@code java -cp "bench/target/grove-bench.jar:bench/target/lib/*"
 * io.grove.bench.experiments.ScanProtocolFloor}.
 */
public final class ScanProtocolFloor {
    private static final int PAIRS = 2_000;
    private static final int SCANS = 2_000;
    private static final int KEY_SLICE = 128;
    private static final int VALUE_SLICE = 48;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final VarHandle ACQUIRE = ValueLayout.JAVA_LONG.varHandle();
    /** Where a reference's block number starts (all references here lie in block 0). */
    private static final int BLOCK_SHIFT = 40;

    /** A chunk's view of its pairs: the references and the list links, and whether it was replaced. */
    private static final class Chunk {
        final long[] keyRef = new long[PAIRS];
        final long[] valueRef = new long[PAIRS];
        final int[] next = new int[PAIRS];
        volatile boolean replaced;
    }

    private ScanProtocolFloor() {}

    public static void main(String[] args) {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment block = arena.allocate((long) (KEY_SLICE + VALUE_SLICE) * PAIRS, 4096);
            MemorySegment[] blocks = {block};
            Chunk chunk = new Chunk();
            for (int i = 0; i < PAIRS; i++) {
                long key = (long) i * (KEY_SLICE + VALUE_SLICE);
                long value = key + KEY_SLICE;
                chunk.keyRef[i] = key;
                chunk.valueRef[i] = value;
                chunk.next[i] = i + 1 < PAIRS ? i + 1 : -1;
                block.set(LONG, key, KEY_SLICE - 16); // slice state: the payload length
                block.set(LONG, value, VALUE_SLICE - 16);
                block.set(INT, key + 16, i);
                block.set(LONG, value + 16, 2); // the value header: an even stamp
                block.set(LONG, value + 24, i);
                block.set(LONG, value + 32, ~i);
            }
            double pairs = (double) SCANS * PAIRS;
            for (int round = 0; round < 10; round++) {
                long sink = 0;
                long t0 = System.nanoTime();
                for (int r = 0; r < SCANS; r++) {
                    sink += floor(chunk, block);
                }
                long t1 = System.nanoTime();
                for (int r = 0; r < SCANS; r++) {
                    sink += validated(chunk, block);
                }
                long t2 = System.nanoTime();
                for (int r = 0; r < SCANS; r++) {
                    sink += validatedWithLookups(chunk, blocks);
                }
                long t3 = System.nanoTime();
                for (int r = 0; r < SCANS; r++) {
                    sink += shaped(chunk, blocks);
                }
                long t4 = System.nanoTime();
                System.out.printf("floor %.1f  validated %.1f  +lookups %.1f  shaped %.1f ns per pair (%d)%n",
                        (t1 - t0) / pairs, (t2 - t1) / pairs, (t3 - t2) / pairs, (t4 - t3) / pairs, sink);
            }
        }
    }

    private static long floor(Chunk chunk, MemorySegment block) {
        long sum = 0;
        for (int e = 0; e != -1; e = chunk.next[e]) {
            long key = chunk.keyRef[e];
            long value = chunk.valueRef[e];
            sum += block.get(INT, key + 16) + block.get(LONG, value + 24) + block.get(LONG, value + 32);
        }
        return sum;
    }

    private static long validated(Chunk chunk, MemorySegment block) {
        long sum = 0;
        for (int e = 0; e != -1; e = chunk.next[e]) {
            long key = chunk.keyRef[e];
            long value = chunk.valueRef[e];
            long stamp = (long) ACQUIRE.getAcquire(block, value + 16);
            long state = (long) ACQUIRE.getAcquire(block, value);
            VarHandle.loadLoadFence();
            if (chunk.valueRef[e] != value || chunk.replaced || (stamp & 1) != 0 || state == 0) {
                throw new IllegalStateException("not present");
            }
            int k = block.get(INT, key + 16);
            VarHandle.loadLoadFence();
            if (chunk.replaced) {
                throw new IllegalStateException("key gone");
            }
            sum += k + checkedWord(chunk, block, e, value, value + 24, stamp)
                    + checkedWord(chunk, block, e, value, value + 32, stamp);
        }
        return sum;
    }

    /** As {@link #validated}, each slice's segment found through {@code blocks} by its reference's high bits. */
    private static long validatedWithLookups(Chunk chunk, MemorySegment[] blocks) {
        long sum = 0;
        for (int e = 0; e != -1; e = chunk.next[e]) {
            long key = chunk.keyRef[e];
            long value = chunk.valueRef[e];
            MemorySegment keyBlock = blocks[(int) (key >>> BLOCK_SHIFT)];
            MemorySegment valueBlock = blocks[(int) (value >>> BLOCK_SHIFT)];
            long stamp = (long) ACQUIRE.getAcquire(valueBlock, value + 16);
            long state = (long) ACQUIRE.getAcquire(valueBlock, value);
            VarHandle.loadLoadFence();
            if (chunk.valueRef[e] != value || chunk.replaced || (stamp & 1) != 0 || state == 0) {
                throw new IllegalStateException("not present");
            }
            int k = keyBlock.get(INT, key + 16);
            VarHandle.loadLoadFence();
            if (chunk.replaced) {
                throw new IllegalStateException("key gone");
            }
            sum += k + checkedWord(chunk, valueBlock, e, value, value + 24, stamp)
                    + checkedWord(chunk, valueBlock, e, value, value + 32, stamp);
        }
        return sum;
    }

    /** As {@link #validatedWithLookups}, through a stream of two reused handles ({@link Pairs}). */
    private static long shaped(Chunk chunk, MemorySegment[] blocks) {
        long[] sum = new long[1];
        Pairs pairs = new Pairs(chunk, blocks);
        StreamSupport.stream(pairs, false).limit(PAIRS).forEach(p -> sum[0] +=
                p.getKey().getInt(0) + p.getValue().getLong(0) + p.getValue().getLong(8));
        return sum[0];
    }

    /** A handle: a slice's segment and offset, the entry that vouches for it, and its stamp (values; keys have 0). */
    private static final class ReusedHandle {
        final Chunk chunk;
        MemorySegment segment;
        long at;
        long ref;
        int entry;
        long stamp;

        ReusedHandle(Chunk chunk) {
            this.chunk = chunk;
        }

        int getInt(int offset) {
            int k = segment.get(INT, at + offset);
            VarHandle.loadLoadFence();
            if (chunk.replaced) {
                throw new IllegalStateException("key gone");
            }
            return k;
        }

        long getLong(int offset) {
            long word = segment.get(LONG, at + offset);
            long after = (long) ACQUIRE.getAcquire(segment, ref + 16);
            VarHandle.loadLoadFence();
            if (after != stamp || chunk.valueRef[entry] != ref || chunk.replaced) {
                throw new IllegalStateException("value changed");
            }
            return word;
        }
    }

    /** A stream over the chunk: 16 entries read ahead, each value's presence checked, two handles pointed per pair. */
    private static final class Pairs extends Spliterators.AbstractSpliterator<Map.Entry<ReusedHandle, ReusedHandle>> {
        final Chunk chunk;
        final MemorySegment[] blocks;
        final int[] queue = new int[16];
        int head;
        int size;
        int nextRead;
        final ReusedHandle key;
        final ReusedHandle value;
        final Map.Entry<ReusedHandle, ReusedHandle> element;

        Pairs(Chunk chunk, MemorySegment[] blocks) {
            super(Long.MAX_VALUE, ORDERED);
            this.chunk = chunk;
            this.blocks = blocks;
            this.key = new ReusedHandle(chunk);
            this.value = new ReusedHandle(chunk);
            this.element = new AbstractMap.SimpleImmutableEntry<>(key, value);
        }

        @Override
        public boolean tryAdvance(Consumer<? super Map.Entry<ReusedHandle, ReusedHandle>> action) {
            if (head == size) {
                head = 0;
                size = 0;
                for (int e = nextRead; e != -1 && size < queue.length; e = chunk.next[e]) {
                    queue[size++] = e;
                    nextRead = chunk.next[e];
                }
                if (chunk.replaced) {
                    throw new IllegalStateException("moved");
                }
                if (size == 0) {
                    return false;
                }
            }
            int e = queue[head++];
            long k = chunk.keyRef[e];
            long v = chunk.valueRef[e];
            MemorySegment valueBlock = blocks[(int) (v >>> BLOCK_SHIFT)];
            long stamp = (long) ACQUIRE.getAcquire(valueBlock, v + 16);
            long state = (long) ACQUIRE.getAcquire(valueBlock, v);
            VarHandle.loadLoadFence();
            if (chunk.valueRef[e] != v || chunk.replaced || (stamp & 1) != 0 || state == 0) {
                throw new IllegalStateException("not present");
            }
            key.segment = blocks[(int) (k >>> BLOCK_SHIFT)];
            key.at = k + 16;
            key.ref = k;
            key.entry = e;
            value.segment = valueBlock;
            value.at = v + 24;
            value.ref = v;
            value.entry = e;
            value.stamp = stamp;
            action.accept(element);
            return true;
        }
    }

    /** A value word read, then its stamp read again, a fence, and the entry checked, as a handle's read does. */
    private static long checkedWord(Chunk chunk, MemorySegment block, int e, long value, long at, long stamp) {
        long word = block.get(LONG, at);
        long after = (long) ACQUIRE.getAcquire(block, value + 16);
        VarHandle.loadLoadFence();
        if (after != stamp || chunk.valueRef[e] != value || chunk.replaced) {
            throw new IllegalStateException("value changed");
        }
        return word;
    }
}
