package io.grove.internal.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Nova's free list (Nova, §3.2): reusable slices, by size. One lock-free stack per size class.
 *
 * <p>Implementation notes.
 *
 * <p>Size classes, in granules (header included): every capacity up to {@link #SMALL_MAX} (64 KiB) is a class of
 * its own, so recurring sizes are reused exactly. Larger capacities fall into classes four per power of two,
 * whose lower bounds are {@code (4 + k) << (e - 2)}; fresh large slices are rounded up to such a bound
 * ({@link #roundedCapacity}), at most 25% more. Invariant: every slice on the stack of class {@code c} has a
 * capacity of at least {@code lowerBound(c)}, so a pop from the class of {@code roundedCapacity(n)} always fits
 * {@code n} granules.
 *
 * <p>Each stack is a Treiber stack whose head word ({@link AllocatorWords#head}: on the heap, or in a file's pool
 * state record) packs a 29-bit tag and {@code granule + 1} (0 = empty). The
 * link to the next free slice is stored in the first payload word of the free slice itself: a slice on a free
 * list has its deleted bit set and no announced writer (the reclaimer checked), so nobody else writes there. A pop
 * reads the link of the head it saw; if that slice was meanwhile popped and overwritten, the link read is garbage
 * but the tag has changed and the CAS fails (no ABA).
 *
 * <p>Memory ordering: push stores the link plainly, then publishes with the head CAS (volatile); pop reads the head
 * with {@code getVolatile} before reading the link, so it sees the link stored before the push that installed
 * that head.
 */
final class FreeLists {
    private static final VarHandle LINK = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();

    /** Capacities up to this many granules (64 KiB) have exact classes. */
    static final int SMALL_MAX = 4096;
    private static final int SMALL_MAX_LOG = 12;
    private static final int POINTER_BITS = 35;
    private static final long POINTER_MASK = (1L << POINTER_BITS) - 1;
    private static final long TAG_UNIT = 1L << POINTER_BITS;

    private final Blocks blocks;
    private final AllocatorWords words;
    private final int classCount;

    FreeLists(Blocks blocks, AllocatorWords words) {
        this.blocks = blocks;
        this.words = words;
        this.classCount = classCount(blocks.granulesPerBlock);
    }

    /** The number of size classes of a pool whose blocks hold {@code granulesPerBlock} granules. */
    static int classCount(long granulesPerBlock) {
        return classOf(granulesPerBlock) + 1;
    }

    /** The capacity a fresh slice of {@code granules} gets: exact for small slices, a class bound for large. */
    static long roundedCapacity(long granules) {
        if (granules <= SMALL_MAX) {
            return granules;
        }
        long step = 1L << (63 - Long.numberOfLeadingZeros(granules) - 2);
        return (granules + step - 1) & -step;
    }

    /** The class of a slice of {@code capacity} granules: the class with the greatest lower bound not above it. */
    static int classOf(long capacity) {
        if (capacity <= SMALL_MAX) {
            return (int) capacity;
        }
        int e = 63 - Long.numberOfLeadingZeros(capacity);
        int k = (int) ((capacity >>> (e - 2)) & 3);
        return SMALL_MAX + 1 + (e - SMALL_MAX_LOG) * 4 + k;
    }

    int classCount() {
        return classCount;
    }

    /** Pushes a free slice of {@code capacity} granules whose header is at {@code granule}. */
    void push(long granule, long capacity) {
        int c = classOf(capacity);
        MemorySegment block = blocks.block(granule);
        long linkOffset = blocks.offsetInBlock(granule) + SliceHeader.SIZE;
        while (true) {
            long head = words.head(c);
            LINK.set(block, linkOffset, head & POINTER_MASK);
            long next = (head & ~POINTER_MASK) + TAG_UNIT | (granule + 1);
            if (words.casHead(c, head, next)) {
                words.addFree(capacity);
                return;
            }
        }
    }

    /** Pops a slice from class {@code c}; returns its header granule, or -1 if the class is empty. */
    long pop(int c) {
        while (true) {
            long head = words.head(c);
            long pointer = head & POINTER_MASK;
            if (pointer == 0) {
                return -1;
            }
            long granule = pointer - 1;
            long link = (long) LINK.get(blocks.block(granule), blocks.offsetInBlock(granule) + SliceHeader.SIZE);
            long next = (head & ~POINTER_MASK) + TAG_UNIT | (link & POINTER_MASK);
            if (words.casHead(c, head, next)) {
                words.addFree(-SliceHeader.capacityGranules(blocks.block(granule), blocks.offsetInBlock(granule)));
                return granule;
            }
        }
    }

    /**
     * Empties class {@code c} at once and returns the header granules of the slices it held, appended to
     * {@code out}. Pushes racing with the take land on the emptied stack and are not returned.
     */
    void takeAll(int c, LongList out) {
        long head;
        do {
            head = words.head(c);
            if ((head & POINTER_MASK) == 0) {
                return;
            }
        } while (!words.casHead(c, head, (head & ~POINTER_MASK) + TAG_UNIT));
        long pointer = head & POINTER_MASK;
        while (pointer != 0) {
            long granule = pointer - 1;
            MemorySegment block = blocks.block(granule);
            long header = blocks.offsetInBlock(granule);
            out.add(granule);
            words.addFree(-SliceHeader.capacityGranules(block, header));
            pointer = (long) LINK.get(block, header + SliceHeader.SIZE) & POINTER_MASK;
        }
    }

    /**
     * Visits the slices of class {@code c} from the head, reading only (no thread may push or pop meanwhile), until
     * the list ends or {@code visitor} returns {@code false}.
     */
    void walk(int c, FreeSliceVisitor visitor) {
        long pointer = words.head(c) & POINTER_MASK;
        while (pointer != 0) {
            long granule = pointer - 1;
            if (!visitor.visit(granule)) {
                return;
            }
            pointer = (long) LINK.get(blocks.block(granule), blocks.offsetInBlock(granule) + SliceHeader.SIZE)
                    & POINTER_MASK;
        }
    }

    /** Receives the header granules of a free list's slices ({@link #walk}). */
    interface FreeSliceVisitor {
        /** Returns whether to go on. */
        boolean visit(long granule);
    }

    long freeGranules() {
        return words.freeGranules();
    }

    long freeBytes() {
        return freeGranules() << SliceHeader.GRANULE_SHIFT;
    }
}
