package io.grove.internal.sorted;

import io.grove.GroveSortedMap;
import io.grove.internal.memory.Pool;
import io.grove.serial.Serializers;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Spliterators;
import java.util.function.Consumer;
import java.util.stream.StreamSupport;

/**
 * A measurement program, not a test: where the time of a zero-copy stream element goes in cache, found by replacing
 * the map's layers with minimal ones. 2,000 pairs ({@code -Dpairs=N}) of 100-byte keys and 16-byte values put in
 * random order into a map built with {@code layOutForScans()} and laid out by two scans without a limit (a scan that
 * stops at its limit, before the chunk's end, lays nothing out), then scanned whole 2,000 times per round, eight
 * rounds, ns per pair; each element's key byte and two value words are read, as the benchmark's stream scans read
 * them. {@code -Dvariant=map}: the map's stream ({@code zc().entryStream().limit().forEach()}); {@code cursor}: the
 * map's cursor, with two minimal handles pointed from it (fields stored, no checks but the read protocol's: the stamp
 * unchanged and the entry vouching); {@code walk}: the same minimal handles, and instead of the cursor a walk over the
 * index's chunks reading 16 links ahead, with the cursor's presence check of each value; {@code batch}: that walk
 * without a stream or handles, handing each pair to a function as two views checked for bounds only and validating
 * the pairs together after each batch of 64 ({@link BatchWalk}). One variant per JVM: the
 * JDK's stream loop would otherwise see several spliterators and compile differently. Run:
 * {@code java -Dvariant=V -cp core/target/classes:core/target/test-classes io.grove.internal.sorted.StreamLayers}.
 */
public final class StreamLayers {
    private static final int PAIRS = Integer.getInteger("pairs", 2_000);
    private static final int SCANS = 2_000;

    private StreamLayers() {}

    public static void main(String[] args) {
        String variant = System.getProperty("variant", "map");
        try (GroveSortedMap<byte[], byte[]> map = GroveSortedMap.builder(Serializers.bytes(), Serializers.bytes())
                .memoryLimit(1L << 30).layOutForScans().build()) {
            List<Integer> ids = new ArrayList<>();
            for (int i = 0; i < PAIRS; i++) {
                ids.add(i);
            }
            Collections.shuffle(ids, new Random(1));
            for (int i : ids) {
                byte[] key = new byte[100];
                key[1] = (byte) (i >> 8);
                key[2] = (byte) i;
                map.zc().putIfAbsent(key, java.nio.ByteBuffer.allocate(16).putLong(i).putLong(~i).array());
            }
            for (int scan = 0; scan < 2; scan++) { // scans that read a chunk to its end lay it out at the second
                map.zc().entryStream().forEach(e -> {});
            }
            ChunkMap<?, ?> chunks = ((OffHeapSortedMap<byte[], byte[]>) map).map;
            if (!chunks.index.first().laidOutInOrder(0)) {
                throw new IllegalStateException("the map was not laid out");
            }
            for (int round = 0; round < 8; round++) {
                long sink = 0;
                long t0 = System.nanoTime();
                for (int r = 0; r < SCANS; r++) {
                    long[] sum = new long[1];
                    switch (variant) {
                        case "map" -> map.zc().entryStream().limit(PAIRS).forEach(e -> sum[0] +=
                                e.getKey().getByte(2) + e.getValue().getLong(0) + e.getValue().getLong(8));
                        case "cursor" -> StreamSupport.stream(new CursorElements(chunks, (OffHeapSortedMap<?, ?>) map),
                                false).limit(PAIRS).forEach(e -> sum[0] += e.key.getByte(2) + e.value.getLong(0)
                                        + e.value.getLong(8));
                        case "batch" -> new BatchWalk(chunks).forEach((k, v) -> sum[0] += k.getByte(2) + v.getLong(0)
                                + v.getLong(8));
                        case "walk" -> StreamSupport.stream(new WalkElements(chunks), false).limit(PAIRS)
                                .forEach(e -> sum[0] += e.key.getByte(2) + e.value.getLong(0) + e.value.getLong(8));
                        default -> throw new IllegalArgumentException("variant " + variant);
                    }
                    sink += sum[0];
                }
                long t1 = System.nanoTime();
                System.out.printf("%s %.1f ns per pair (%d)%n", variant, (t1 - t0) / ((double) SCANS * PAIRS), sink);
            }
        }
    }

    /** Bytes read with a bounds check only: what a batch-validated scan hands its reader. */
    private static final class RawView {
        MemorySegment segment;
        long at;
        int size;

        byte getByte(int i) {
            java.util.Objects.checkIndex(i, size);
            return segment.get(ValueLayout.JAVA_BYTE, at + i);
        }

        long getLong(int i) {
            java.util.Objects.checkFromIndexSize(i, Long.BYTES, size);
            return segment.get(ValueLayout.JAVA_LONG_UNALIGNED, at + i);
        }
    }

    /**
     * The walk of {@link WalkElements} without a stream or handles: each pair handed to a reader as two raw views,
     * unchecked, and the pairs validated together after each batch of up to 64 (each value's header and entry as the
     * handles check them after every read, and the chunk not replaced): what a scan whose reader's work can be thrown
     * away and redone (an aggregation) could cost.
     */
    private static final class BatchWalk {
        private static final int BATCH = 64;
        private final Chunk[] chunks;
        private final Pool pool;
        private final int headerSize;
        private final RawView key = new RawView();
        private final RawView value = new RawView();
        private final int[] entries = new int[BATCH];
        private final long[] refs = new long[BATCH];
        private final long[] stamps = new long[BATCH];
        private final MemorySegment[] blocks = new MemorySegment[BATCH];
        private final long[] payloads = new long[BATCH];

        BatchWalk(ChunkMap<?, ?> map) {
            this.chunks = map.index.snapshot();
            this.pool = map.pool;
            this.headerSize = map.values.headerSize;
        }

        void forEach(java.util.function.BiConsumer<RawView, RawView> reader) {
            for (Chunk c : chunks) {
                int e = c.first();
                while (e != Chunk.NONE) {
                    int n = 0;
                    for (; e != Chunk.NONE && n < BATCH; e = c.next(e)) {
                        long v = c.valueRef(e);
                        if (v == 0) {
                            continue;
                        }
                        MemorySegment block = pool.segment(v);
                        long at = pool.payloadOffset(v);
                        long header = ValueHeader.headerAcquire(block, at);
                        int length = pool.lengthUnchecked(block, at);
                        if (ValueHeader.isDeleted(header) || ValueHeader.isStamping(header) || length < headerSize) {
                            throw new IllegalStateException("a value changed");
                        }
                        long k = c.keyRef(e);
                        key.segment = pool.segment(k);
                        key.at = pool.payloadOffset(k);
                        key.size = c.keyLength(e);
                        value.segment = block;
                        value.at = at + headerSize;
                        value.size = length - headerSize;
                        reader.accept(key, value);
                        entries[n] = e;
                        refs[n] = v;
                        stamps[n] = header;
                        blocks[n] = block;
                        payloads[n] = at;
                        n++;
                    }
                    VarHandle.loadLoadFence();
                    for (int i = 0; i < n; i++) {
                        if (ValueHeader.headerAcquire(blocks[i], payloads[i]) != stamps[i]
                                || c.valueRef(entries[i]) != refs[i]) {
                            throw new IllegalStateException("a value changed");
                        }
                    }
                    if (c.isReplaced()) {
                        throw new IllegalStateException("the chunk was replaced");
                    }
                }
            }
        }
    }

    /** A minimal key handle: its bytes, vouched for by its chunk not being replaced. */
    private static final class KeyHandle {
        Chunk chunk;
        MemorySegment segment;
        long at;

        byte getByte(int i) {
            byte b = segment.get(ValueLayout.JAVA_BYTE, at + i);
            VarHandle.loadLoadFence();
            if (chunk.isReplaced()) {
                throw new IllegalStateException("the chunk was replaced");
            }
            return b;
        }
    }

    /** A minimal value handle: its bytes under the stamp read when it was pointed, vouched for by its entry. */
    private static final class ValueHandle {
        Chunk chunk;
        int entry;
        long ref;
        MemorySegment segment;
        long payload;
        int headerSize;
        long stamp;

        long getLong(int i) {
            long word = segment.get(ValueLayout.JAVA_LONG_UNALIGNED, payload + headerSize + i);
            long after = ValueHeader.headerAcquire(segment, payload);
            VarHandle.loadLoadFence();
            if (after != stamp || chunk.valueRef(entry) != ref || chunk.isReplaced()) {
                throw new IllegalStateException("the value changed");
            }
            return word;
        }
    }

    /** A stream element: the two minimal handles. */
    private static final class Element {
        final KeyHandle key = new KeyHandle();
        final ValueHandle value = new ValueHandle();

        void point(Chunk chunk, int entry, Pool pool, long keyRef, long valueRef, MemorySegment valueBlock,
                long valuePayload, int headerSize, long stamp) {
            key.chunk = chunk;
            key.segment = pool.segment(keyRef);
            key.at = pool.payloadOffset(keyRef);
            value.chunk = chunk;
            value.entry = entry;
            value.ref = valueRef;
            value.segment = valueBlock;
            value.payload = valuePayload;
            value.headerSize = headerSize;
            value.stamp = stamp;
        }
    }

    /** The map's cursor, the minimal handles. */
    private static final class CursorElements extends Spliterators.AbstractSpliterator<Element> {
        private final Cursor cursor;
        private final Pool pool;
        private final int headerSize;
        private final Element element = new Element();

        CursorElements(ChunkMap<?, ?> map, SortedRangeMap<?, ?> view) {
            super(Long.MAX_VALUE, ORDERED);
            this.cursor = view.cursor(false, false);
            this.pool = map.pool;
            this.headerSize = map.values.headerSize;
        }

        @Override
        public boolean tryAdvance(Consumer<? super Element> action) {
            if (!cursor.advance()) {
                return false;
            }
            element.point(cursor.entryChunk(), cursor.entryIndex(), pool, cursor.keyRef(), cursor.valueRef(),
                    cursor.valueBlock(), cursor.valuePayload(), headerSize,
                    ValueHeader.headerAcquire(cursor.valueBlock(), cursor.valuePayload()));
            action.accept(element);
            return true;
        }
    }

    /**
     * The index's chunks in order (none replaced while it runs), 16 links read ahead, each value's presence checked as
     * the cursor checks it; the minimal handles.
     */
    private static final class WalkElements extends Spliterators.AbstractSpliterator<Element> {
        private final Chunk[] chunks;
        private final Pool pool;
        private final int headerSize;
        private final int[] queue = new int[16];
        private final Element element = new Element();
        private int head;
        private int size;
        private int chunk;
        private int nextRead;

        WalkElements(ChunkMap<?, ?> map) {
            super(Long.MAX_VALUE, ORDERED);
            this.chunks = map.index.snapshot();
            this.pool = map.pool;
            this.headerSize = map.values.headerSize;
            this.nextRead = chunks[0].first();
        }

        @Override
        public boolean tryAdvance(Consumer<? super Element> action) {
            while (true) {
                Chunk c = chunks[chunk];
                if (head == size) {
                    head = 0;
                    size = 0;
                    for (int e = nextRead; e != Chunk.NONE && size < queue.length; e = c.next(e)) {
                        queue[size++] = e;
                        nextRead = c.next(e);
                    }
                    if (c.isReplaced()) {
                        throw new IllegalStateException("the chunk was replaced");
                    }
                    if (size == 0) {
                        if (++chunk == chunks.length) {
                            return false;
                        }
                        nextRead = chunks[chunk].first();
                        continue;
                    }
                }
                int e = queue[head++];
                long v = c.valueRef(e);
                if (v == 0) {
                    continue;
                }
                MemorySegment block = pool.segment(v);
                long at = pool.payloadOffset(v);
                long header = ValueHeader.headerAcquire(block, at);
                int length = pool.lengthUnchecked(block, at);
                VarHandle.loadLoadFence();
                if (c.valueRef(e) != v || c.isReplaced() || ValueHeader.isDeleted(header)
                        || ValueHeader.isStamping(header) || length < 0) {
                    throw new IllegalStateException("a value changed");
                }
                element.point(c, e, pool, c.keyRef(e), v, block, at, headerSize, header);
                action.accept(element);
                return true;
            }
        }
    }
}
