package io.grove.internal.hash;

import io.grove.GroveOutOfMemoryException;
import io.grove.internal.memory.Pool;
import io.grove.internal.memory.Reference;
import io.grove.internal.memory.SliceHeader;
import io.grove.internal.sync.Backoff;
import io.grove.internal.sync.LockWaiters;
import io.grove.internal.sync.OperationsUnderWay;
import io.grove.internal.view.SliceHandle;
import io.grove.internal.view.SliceStamp;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;

/**
 * The off-heap structure of {@link OffHeapHashMap}: segments, slot arrays and entries, all in Nova slices of one
 * {@link Pool}, referring to each other by references and granules (offsets), never by Java objects or addresses.
 *
 * <p>Implementation notes.
 *
 * <p><b>Shape.</b> A fixed number of segments, chosen from the expected size (any number, so that a table sized for
 * its expected entries fills its power-of-two slot arrays to about 0.65 whatever that size: with a power-of-two
 * number the load at the expected size fell anywhere between 3/8 and 3/4, e.g. 0.48 at 1M). A key's 64-bit hash
 * ({@link KeyHash}) picks the segment by its top 24 bits ({@link #segmentOf(long, int)}) and the home slot by its low
 * bits. Each segment
 * ({@link SegmentLayout}) has a lock, a seqlock version, a count and an open-addressed slot array with linear
 * probing ({@link SlotLayout}): a slot holds a tag of the key's hash next to the granule of the entry
 * ({@link EntryLayout}: one slice holding fields, key and value), and a tag array beside it ({@link TagLayout})
 * holds 7 more hash bits per slot. A lookup reads the segment record, probes the tag array (one cache line for
 * most lookups), reads the slot whose tag matches and the entry whose slot's tag matches too: a wrong candidate
 * costs a slot miss only when 7 hash bits collide, an entry miss when 7 + 29 - log2(slots) do. The directory
 * ({@link DirectoryLayout}) lists the segments' references. A bounded map's bound is accounted by {@link Budget},
 * its evictions chosen by {@link ClockEviction}.
 *
 * <p><b>Writers</b> (MapHash §3.5 and §3.7: a lock per chain, here per segment): take the segment's lock (a CAS spin
 * lock in the segment record, off heap so that it can work across processes), search, and change slots only
 * inside a mutation (version odd). A new entry is written (and, in a file, sealed with its check word) while
 * private, before one release store of its slot links it; a put on a present key stores the new entry's slot in
 * the old one's place, or, with a value of the same size, copies the value over the old one under the entry's stamp
 * with a new identity ({@link #replaceValue}; in a file after saving the old value); either way handles on the old
 * value fail, as the zero-copy API promises. A removal empties the slot and shifts the rest of its run back (no
 * tombstones, so probe lengths do not grow with churn). Removed and replaced entries are deleted through Nova after
 * the mutation. Only the zero-copy API's in-place updates and puts of a value of the same size write into a linked
 * entry, under its stamp.
 *
 * <p><b>Readers</b> take no lock and never wait for a writer of another key. (1) The search: read the segment's
 * version (waiting while it is odd: a short mutation of the slots, never user code), probe, fence loads and
 * re-read the version; if it changed, search again ({@link OffHeapHashMap#findLinked}). A reader may follow a stale
 * granule into memory Nova reused (a removed entry's slice, or a replaced slot array, now someone else's): that can
 * only happen if the segment mutated meanwhile, so the version check rejects whatever it read; a probe is bounded
 * by the array's size, and any exception a stale read causes is discarded in the same way. (2) The value of the
 * entry found: read under the entry's stamp ({@link EntryLayout}), which only in-place updates of that entry move
 * ({@link OffHeapHashMap#readValueLockFree}); the bytes are accepted if the stamp did not move and the entry is
 * intact ({@link #isIntact}: the segment did not mutate since the search, or else the entry's slice is still
 * live).
 *
 * <p><b>Entries in cells.</b> A table built for entries of a given size ({@link #cellBytesFor}: the builder's
 * {@code inlineEntries}) has slot arrays of cells of {@code C} bytes, each a slot followed by room for an entry
 * ({@link SlotLayout}); an entry that fits lies in the cell its probe reaches, so that a lookup reads the tags and
 * that cell, one dependent miss, where a slot's entry lies apart (two). The rules above hold with one change: an
 * inline entry moves (a removal shifts the later cells of its run back, a growth copies every cell into the new
 * array), so its reference ({@link #isInline}: the cell's granule) is valid only while the segment's version is
 * unchanged: a lock-free reader of an inline entry accepts what it read only if no mutation began since its search
 * ({@link #isIntact}), and under the lock a reference is used only until the next mutation. An insert copies the
 * new private entry into its cell inside the mutation that links it; a put of another size copies the new entry
 * into the cell, or links it apart if it does not fit, inside a mutation; a put of the same size writes in place
 * under the entry's stamp as for an entry apart. Zero-copy handles, whose entries must not move, take an entry
 * moved apart first ({@link #spill}). In a table in a file a replacement of another size never overwrites the
 * entry in its cell (see {@link #replace}), and a removal's shift copies each cell before it overwrites the copy's
 * source, so a killed process leaves every entry whole in some cell. In a bounded table the CLOCK counter a read
 * raises without the lock lies in the cell ({@link ClockEviction#touch}), and the evictions that make room for a
 * replacement may shift the replaced entry, which is found again ({@code OffHeapHashMap#replaceWith}).
 *
 * <p><b>Growth</b> doubles one segment's slot array at a time, rehashing from the slots alone ({@link SegmentGrowth}).
 *
 * <p><b>Close on a shared pool</b> ({@link #close}) frees the table while other maps keep using the pool, and
 * while operations on this map may still run: each segment is locked for good, its version left odd and its lock
 * word marked closed before its memory is deleted. Writers announce the segment record to Nova before they try its
 * lock, so a waiter's record is not reused until it has read the mark and given up; readers check after their
 * version check that the record is still live, and lock-free walks check it now and then, so nothing read from a
 * reused record is trusted. All of them throw {@link IllegalStateException}. A map's own pool needs none of this:
 * it is closed whole, and its arena makes every racing access throw.
 *
 * <p><b>Linearization points.</b> A successful update: the release store that ends its mutation (an in-place update:
 * the release store that makes the entry's stamp even again). A lock-free miss: the search's final version check.
 * A lock-free hit: the first stamp reading of the value read, if the entry was linked then; else the moment just
 * before the mutation that unlinked it, which followed the search (an unlinked entry's value never changes). A
 * failed search under the lock: the moment the lock is held.
 *
 * <p><b>Notation.</b> {@code s}: segment index; {@code sb}/{@code so}: a segment's block and offset; {@code e}: an
 * entry reference; {@code eb}/{@code eo}: an entry's block and payload offset; {@code ab}/{@code ao}: the slot
 * array's; {@code i}: a slot index.
 */
final class HashTable {
    /** What a lock-free search returns when it gave up because the slots it probed were not a real array. */
    static final long RETRY = -1;

    private final Pool pool;
    private final long directory;
    private final MemorySegment[] segmentBlocks;
    private final long[] segmentOffsets;
    /** The references of the segment records, for Nova's write protocol and validation ({@link #lock}). */
    private final long[] segmentRefs;
    /**
     * Whether the pool is shared with other maps, so that {@link #close} frees the table while the pool stays
     * open: only then do operations guard against the close ({@link #lock}, {@link #isStable}). A map's own pool
     * closes whole, and its arena makes every racing access throw {@link IllegalStateException}.
     */
    private final boolean sharedPool;
    private final SegmentGrowth growth;
    /** Whether entries carry a check word ({@link EntryLayout}): in a table in a file. */
    private final boolean checked;
    /** What this process's threads store in a segment's lock to hold it: its process record plus one. */
    private final int holder;
    /**
     * The bytes of each cell of the slot arrays ({@link SlotLayout}): {@link SlotLayout#SLOT_CELL} (slots only), or
     * a multiple of 16 in a table whose entries lie in its cells where they fit.
     */
    private final int cellBytes;
    /** {@link #cellBytes} in 16-byte granules: the step between the references of inline entries of one array. */
    private final long cellGranules;
    /** Set by {@link #quiesce}: a lock taken after it is given back at once, and its operation fails as closed. */
    private volatile boolean quiescing;
    /**
     * In a table in a file, the operations of this process between the start of {@link #lock} or {@link #tryLock} and
     * the end of {@link #unlock}: a close that leaves the file open in other processes waits until there are none
     * ({@link #quiesce}); {@code null} in memory.
     */
    private final OperationsUnderWay lockedOperations;
    /** The processes that have the table's file open, for a thread waiting for one of them; {@code null} in memory. */
    private final Pool.ProcessWatch processes;
    /** Set by {@link #quiesce} once it took every segment's lock: each lock held before was given back by then. */
    private volatile boolean quiesced;
    /** Virtual threads waiting for a segment's lock that a thread of this process holds ({@link #lock}). */
    private final LockWaiters lockWaiters = new LockWaiters();

    /**
     * A table of {@code segments} segments of {@code 2^slotBits} cells of {@code cellBytes} bytes, sized for its
     * expected entries ({@link #segmentCount}, {@link #initialSlotBits}), with the budget {@code freeEntries} and
     * {@code freeBytes} in its directory ({@link Budget}; 0 when unbounded). {@code sharedPool}: whether other maps
     * draw on {@code pool} too.
     */
    HashTable(Pool pool, boolean sharedPool, int segments, int slotBits, long freeEntries, long freeBytes,
            int cellBytes) {
        this.pool = pool;
        this.sharedPool = sharedPool;
        this.checked = pool.inFile();
        this.holder = pool.processRecord() + 1;
        this.lockedOperations = pool.inFile() ? new OperationsUnderWay() : null;
        this.processes = pool.processes();
        this.cellBytes = cellBytes;
        this.cellGranules = cellBytes / CELL_ALIGNMENT;
        this.growth = new SegmentGrowth(pool, cellBytes);
        this.segmentBlocks = new MemorySegment[segments];
        this.segmentOffsets = new long[segments];
        this.segmentRefs = new long[segments];
        this.directory = pool.allocate((int) DirectoryLayout.sizeFor(segments));
        MemorySegment db = pool.segment(directory);
        long dof = pool.payloadOffset(directory);
        DirectoryLayout.initialize(db, dof, freeEntries, freeBytes);
        int records = 0;
        long[] tags = new long[segments];
        int tagArrays = 0;
        int arrays = 0;
        try {
            // All segment records first, then all tag arrays, so that they lie side by side in a few pages rather
            // than one per page between the slot arrays: every operation reads a record and probes tags, and a TLB
            // miss on them is avoidable.
            for (; records < segments; records++) {
                long segment = pool.allocate(SegmentLayout.SIZE);
                DirectoryLayout.setSegment(db, dof, records, segment);
                segmentRefs[records] = segment;
                segmentBlocks[records] = pool.segment(segment);
                segmentOffsets[records] = pool.payloadOffset(segment);
            }
            for (; tagArrays < segments; tagArrays++) {
                tags[tagArrays] = growth.newTagArray(slotBits);
            }
            for (; arrays < segments; arrays++) {
                long slots = growth.newSlotArray(slotBits);
                SegmentLayout.initialize(segmentBlocks[arrays], segmentOffsets[arrays], slots, tags[arrays], slotBits);
            }
        } catch (RuntimeException | Error e) {
            for (int s = 0; s < arrays; s++) { // nothing was shared yet: give back what was taken
                pool.deletePrivate(SegmentLayout.slots(segmentBlocks[s], segmentOffsets[s]));
            }
            for (int s = 0; s < tagArrays; s++) {
                pool.deletePrivate(tags[s]);
            }
            for (int s = 0; s < records; s++) {
                pool.deletePrivate(segmentRefs[s]);
            }
            pool.deletePrivate(directory);
            throw e;
        }
        VarHandle.releaseFence(); // the map object is published after this; its fields are final
    }

    /**
     * The table rooted at {@code directory}, built earlier on {@code pool} (by a map whose object is gone, e.g. in
     * a process that mapped the same file): nothing is written; the segments are read from the directory.
     *
     * @throws IllegalStateException if {@code directory} is not the live directory of a table
     */
    HashTable(Pool pool, boolean sharedPool, long directory) {
        this.pool = pool;
        this.sharedPool = sharedPool;
        this.checked = pool.inFile();
        this.holder = pool.processRecord() + 1;
        this.lockedOperations = pool.inFile() ? new OperationsUnderWay() : null;
        this.processes = pool.processes();
        this.directory = directory;
        if (!pool.isLive(directory)) {
            throw new IllegalStateException("no live hash table directory at reference " + directory);
        }
        int segments = DirectoryLayout.segmentsIn(pool.length(directory));
        if (segments < 1 || segments > MAX_SEGMENTS) {
            throw new IllegalStateException("a hash table directory of " + pool.length(directory)
                    + " bytes, which lists " + segments + " segments (1 to " + MAX_SEGMENTS + " expected)");
        }
        this.segmentBlocks = new MemorySegment[segments];
        this.segmentOffsets = new long[segments];
        this.segmentRefs = new long[segments];
        MemorySegment db = pool.segment(directory);
        long dof = pool.payloadOffset(directory);
        for (int s = 0; s < segments; s++) {
            long segment = DirectoryLayout.segment(db, dof, s);
            if (!pool.isLive(segment) || pool.length(segment) < SegmentLayout.SIZE) {
                throw new IllegalStateException("segment " + s + " of the hash table directory at reference "
                        + directory + " is not a live segment record: reference " + segment);
            }
            segmentRefs[s] = segment;
            segmentBlocks[s] = pool.segment(segment);
            segmentOffsets[s] = pool.payloadOffset(segment);
        }
        this.cellBytes = cellBytesOf(pool, segmentBlocks[0], segmentOffsets[0]);
        this.cellGranules = cellBytes / CELL_ALIGNMENT;
        this.growth = new SegmentGrowth(pool, cellBytes);
        VarHandle.releaseFence(); // as above
    }

    /** Inline entries' cells are multiples of 16 bytes, so that their entries are aligned as slices' payloads are. */
    private static final int CELL_ALIGNMENT = 16;

    /**
     * The cell size of a table, from the first segment's slot array: its bytes over its cells. A table records no
     * cell size of its own; every array has the same.
     */
    private static int cellBytesOf(Pool pool, MemorySegment sb, long so) {
        long slots = SegmentLayout.slots(sb, so);
        int bits = SegmentLayout.slotBits(sb, so);
        long cellBytes = bits < 0 || bits > SlotLayout.MAX_BITS || !pool.isLive(slots) ? -1
                : pool.length(slots) >> bits;
        if (cellBytes != SlotLayout.SLOT_CELL && (cellBytes < MIN_CELL || cellBytes % CELL_ALIGNMENT != 0
                || cellBytes > pool.maxSliceSize())) {
            throw new IllegalStateException("the first segment's slot array, reference " + slots + " of 2^" + bits
                    + " cells, has cells of " + cellBytes + " bytes");
        }
        return (int) cellBytes;
    }

    /** The smallest cell that holds an entry: its length word, and the entry's fields with an empty key and value. */
    static final int MIN_CELL = SlotLayout.INLINE_ENTRY + EntryLayout.KEY + 8;

    /**
     * The cell size of a table whose entries lie in its cells when their serialized keys and values have at most
     * these lengths: a multiple of 16 bytes holding the cell's slot and length words and such an entry.
     */
    static long cellBytesFor(int maxKeyBytes, int maxValueBytes) {
        long entry = (long) EntryLayout.valueOffset(0) + ((maxKeyBytes + 7L) & ~7L) + maxValueBytes;
        return Math.max(MIN_CELL, (SlotLayout.INLINE_ENTRY + entry + CELL_ALIGNMENT - 1) & -CELL_ALIGNMENT);
    }

    /** The reference of the table's directory, which names the whole table (see the attaching constructor). */
    long directory() {
        return directory;
    }

    /** The fewest segments a table has, unless it is bounded to fewer entries. */
    static final int MIN_SEGMENTS = 16;
    /** The most segments a table has: 2^12, few enough to scale the hash's top 24 bits ({@link #segmentOf}). */
    static final int MAX_SEGMENTS = 4096;

    /**
     * The most entries per segment, on average, that a table sized for its expected entries plans for:
     * {@link #slotsPerSegment} of this share is 1,024 slots (the share, four standard deviations above it, fills
     * 3/4 of them), so the table starts with 1,024 slots per segment at a load of about 0.64.
     */
    static final int SEGMENT_SHARE = 662;

    /**
     * The number of segments for {@code expectedSize} entries: one per {@value #SEGMENT_SHARE} expected entries,
     * {@value #MIN_SEGMENTS} to {@value #MAX_SEGMENTS}, and no more than {@code maxEntries} (a bounded map's segments
     * each hold at least one entry). At least as many, up to {@value #MAX_SEGMENTS}, as it takes for the pool's memory
     * ({@code memoryLimit}), or a bounded map's {@code maxEntries}, to run out before the segments fill 7/8 of their
     * largest slot arrays ({@code maxSliceSize / cellBytes} cells, {@link SegmentGrowth}) with entries of the smallest
     * size (with slots only, {@value #SMALLEST_ENTRY} bytes with Nova's header, and a slot; with inline entries, a
     * cell): so a map built without an expected size still holds as much as its pool does, for a slot array cannot
     * outgrow one slice. With the default 8 MiB blocks and slots only, a segment holds half a million slots, and a pool
     * of 9 GB (10^9 bytes) makes 409 segments.
     */
    static int segmentCount(long expectedSize, long maxEntries, long memoryLimit, int maxSliceSize, int cellBytes) {
        long segments = Math.clamp(Math.ceilDiv(expectedSize, SEGMENT_SHARE), MIN_SEGMENTS, MAX_SEGMENTS);
        long slotsPerSegment = 1L << SegmentGrowth.maxSlotBits(maxSliceSize, cellBytes);
        long entriesPerSegment = slotsPerSegment - slotsPerSegment / 8;
        long smallestEntry = cellBytes == SlotLayout.SLOT_CELL ? SMALLEST_ENTRY + Long.BYTES : cellBytes;
        long mostEntries = Math.min(Math.ceilDiv(memoryLimit, smallestEntry), maxEntries);
        long fillingSegments = Math.ceilDiv(mostEntries, entriesPerSegment);
        segments = Math.max(segments, Math.min(MAX_SEGMENTS, fillingSegments));
        return (int) Math.max(1, Math.min(segments, maxEntries));
    }

    /** The bytes of the smallest entry's slice: Nova's 16-byte header and the entry's 24 bytes of fields. */
    private static final int SMALLEST_ENTRY = 40;

    /**
     * log2 of the cells of {@code cellBytes} bytes each of {@code segments} segments starts with: room for its
     * share of {@code expectedSize} entries at 3/4 load ({@link #slotsPerSegment}), within the largest slot array
     * ({@link SegmentGrowth#maxSlotBits}); in memory ({@code inFile} false) no more cells in all than
     * {@value #MAX_INITIAL_SLOT_BYTES} bytes of slots would be, so that a large expected size does not commit
     * memory before entries arrive (segments grow as they fill; cells that hold entries commit what the entries
     * would). A table in a file gets the full size at once: its file is sized for it anyway, and no writer then
     * waits for a segment's rehash while the table fills.
     */
    static int initialSlotBits(long expectedSize, int segments, int maxSliceSize, boolean inFile, int cellBytes) {
        long perSegment = slotsPerSegment(expectedSize, segments);
        int cap = SegmentGrowth.maxSlotBits(maxSliceSize, cellBytes);
        if (!inFile) {
            cap = Math.min(cap, 63 - Long.numberOfLeadingZeros(MAX_INITIAL_SLOT_BYTES / Long.BYTES / segments));
        }
        return Math.clamp(64 - Long.numberOfLeadingZeros(perSegment - 1), SegmentGrowth.MIN_SLOT_BITS,
                Math.max(SegmentGrowth.MIN_SLOT_BITS, cap));
    }

    /**
     * The slots a segment needs to hold its share of {@code expectedSize} entries at 3/4 load without growing:
     * the mean share plus four standard deviations (the keys fall in segments at random), so that one segment in
     * about 30,000 exceeds it.
     */
    static long slotsPerSegment(long expectedSize, int segments) {
        long mean = Math.ceilDiv(expectedSize, segments);
        long share = mean + 4 * (long) Math.ceil(Math.sqrt(mean)) + 1;
        return share > Long.MAX_VALUE / 4 ? Long.MAX_VALUE : share / 3 * 4 + 1;
    }

    /**
     * The most bytes of slot arrays a table in memory starts with: 16 MiB (1,024 slots per segment for up to 2,048
     * segments, i.e. up to about 1.35 million expected entries; the segments of a larger table start smaller and
     * grow as entries arrive).
     */
    static final long MAX_INITIAL_SLOT_BYTES = 16L << 20;

    /**
     * The bytes of slot and tag arrays, with cells of {@code cellBytes} bytes, a table of {@code segments}
     * segments has when it holds {@code expectedSize} entries at 3/4 load (each segment's arrays a power of two);
     * {@link Long#MAX_VALUE} if that does not fit a {@code long}.
     */
    static long slotBytesAt(long expectedSize, int segments, int cellBytes) {
        long perSegment = slotsPerSegment(expectedSize, segments);
        int bits = Math.max(SegmentGrowth.MIN_SLOT_BITS, 64 - Long.numberOfLeadingZeros(perSegment - 1));
        if (bits >= 62) {
            return Long.MAX_VALUE;
        }
        try {
            return Math.multiplyExact(Math.multiplyExact(1L << bits, segments), cellBytes + Byte.BYTES);
        } catch (ArithmeticException tooMany) {
            return Long.MAX_VALUE;
        }
    }

    // ---- structure, for the classes that work on it (growth, eviction, the bound) ------------------------------

    MemorySegment block(int s) {
        return segmentBlocks[s];
    }

    long offset(int s) {
        return segmentOffsets[s];
    }

    SegmentGrowth growth() {
        return growth;
    }

    MemorySegment directoryBlock() {
        return pool.segment(directory);
    }

    long directoryOffset() {
        return pool.payloadOffset(directory);
    }

    int segmentCount() {
        return segmentBlocks.length;
    }

    /** The bytes of each cell of the slot arrays ({@link SlotLayout}). */
    int cellBytes() {
        return cellBytes;
    }

    int segmentOf(long hash) {
        return segmentOf(hash, segmentBlocks.length);
    }

    /**
     * The segment of a key with this hash in a table of {@code segments} segments (at most {@value #MAX_SEGMENTS}):
     * the hash's top 24 bits scaled to the segment count (multiplied, then shifted: each segment gets
     * {@code 2^24 / segments} of their values, rounded down or up), bits that neither the slots' tags (bits 0-28,
     * {@link SlotLayout}) nor the tag array (bits 29-35, {@link TagLayout}) use.
     */
    static int segmentOf(long hash, int segments) {
        return (int) (((hash >>> 40) * segments) >>> 24);
    }

    // ---- lock-free reads ---------------------------------------------------------------------------------------

    /**
     * The segment's version once it is even (no mutation in progress). Throws {@link IllegalStateException} if the
     * map was closed ({@link #close}).
     */
    long awaitStable(int s) {
        MemorySegment sb = segmentBlocks[s];
        long so = segmentOffsets[s];
        long since = 0;
        for (int spins = 0; ; spins++) {
            long v = SegmentLayout.versionAcquire(sb, so);
            if ((v & 1) == 0) {
                return v;
            }
            if (SegmentLayout.isClosed(sb, so) || (sharedPool && !pool.isLive(segmentRefs[s]))) {
                throw closed();
            }
            since = watchHolder(s, spins, since);
            Backoff.pause(spins);
        }
    }

    /**
     * For a thread that has waited {@code spins} times for what segment {@code s}'s lock holder does (its lock, a
     * mutation, an in-place update), in a table in a file: every {@link #WATCH_EVERY} waits, if the holder is another
     * process, looks at it. If it ended without closing the file, repairs every segment it left locked
     * ({@link #repairLeftBy}), unless another thread does, and the wait goes on (for the lock, free now, or for that
     * thread's repair); if it lives, throws {@link IllegalStateException} naming it once this thread has waited on it
     * for longer than {@link Pool.ProcessWatch#waitLimitNanos} (stopped, or in a long operation: never robbed of its
     * lock). Returns when the watch began ({@code since}, 0 before the first look).
     *
     * @throws IllegalStateException also if the holder ended and its segments cannot be repaired now (this map is
     *     closing, or a segment is damaged beyond what a kill leaves)
     */
    long watchHolder(int s, int spins, long since) {
        if (processes == null || (spins & (WATCH_EVERY - 1)) != WATCH_EVERY - 1) {
            return since;
        }
        return lookAtHolder(s, since);
    }

    /** {@link #watchHolder}'s look at segment {@code s}'s holder, in a table in a file, now. */
    private long lookAtHolder(int s, long since) {
        long now = System.nanoTime();
        int value = SegmentLayout.lockValue(segmentBlocks[s], segmentOffsets[s]);
        if (value <= 0 || value == holder) {
            return since == 0 ? now : since;
        }
        int record = value - 1;
        if (processes.ended(record)) {
            if (!repairLeftBy(record)) {
                throw new IllegalStateException("segment " + s + " is locked by " + processes.describe(record)
                        + ", which ended without closing the file, and this map is closing: the next open of the"
                        + " file recovers it");
            }
            return since;
        }
        if (since != 0 && now - since > processes.waitLimitNanos()) {
            throw new IllegalStateException("waited " + (now - since) / 1_000_000 + " ms for segment " + s
                    + ", locked by " + processes.describe(record) + ", which is alive (stopped, or in a long"
                    + " operation)");
        }
        return since == 0 ? now : since;
    }

    /**
     * In a table in a file: salvages every process that had the file open and ended without closing it that no other
     * thread salvages now ({@link #repairLeftBy}); for an opener that joins processes that have the file open, and
     * for an allocation that would fail for want of memory. Returns whether there was one.
     *
     * @throws IllegalStateException as {@link #repairLeftBy}
     */
    boolean salvageEnded() {
        int[] ended = processes.endedRecords();
        for (int record : ended) {
            repairLeftBy(record);
        }
        return ended.length > 0;
    }

    /**
     * Salvages what the process in record {@code record}, which ended without closing the file, left: repairs every
     * segment it left locked while the other segments stay in use ({@link TableRecovery#whileInUse}), empties the
     * hazard slots it left filled and reclaims the deleted slices of its release stripes ({@link Pool#salvage}), then
     * frees its record for another process; logs what it did. Only one thread of all processes does so at a time:
     * the one that takes the record over ({@link Pool.ProcessWatch#takeOver}); for the others this does nothing.
     * Counts as an operation of this process that holds locks ({@link #lockedOperations}), so that a close of this
     * map waits for it; returns {@code false}, doing nothing, if the close began.
     *
     * @throws IllegalStateException if a segment is damaged beyond what a kill leaves: it is left locked by the
     *     ended process, and its record taken, for the recovery of the whole file
     */
    private boolean repairLeftBy(int record) {
        if (!enterLocked()) {
            return false;
        }
        try (Pool.HeldLock takenOver = processes.takeOver(record)) {
            if (takenOver == null) {
                return true;
            }
            long started = System.nanoTime();
            String ended = processes.describe(record);
            String segments = repairSegmentsLeftBy(record, ended);
            Pool.Salvage salvaged = pool.salvage(record);
            processes.free(record);
            System.getLogger(OffHeapHashMap.class.getName()).log(System.Logger.Level.WARNING, () -> processes.file()
                    + ": " + ended + " ended without closing the file; salvaged in "
                    + (System.nanoTime() - started) / 1_000_000 + " ms: " + segments + ", "
                    + salvaged.hazardSlots() + " hazard slots emptied, " + salvaged.deletedSlices()
                    + " deleted slices of its release stripes reclaimed, its record freed");
            return true;
        } finally {
            exitLocked();
        }
    }

    /**
     * In a table in a file whose process record this process took over from {@code ended}, a process that ended
     * without closing the file ({@link Pool#inherited}): repairs every segment that process left locked, whose lock
     * names this process's record now. For the open, before any thread of this process takes a lock (a thread would
     * take such a lock for its own process's and wait for it for ever). Returns what it repaired, for the log.
     *
     * @throws IllegalStateException as {@link #repairLeftBy}
     */
    String repairInherited(String ended) {
        return repairSegmentsLeftBy(pool.processRecord(), ended);
    }

    /**
     * Repairs every segment that the process in record {@code record}, {@code ended}, which ended without closing
     * the file, left locked ({@link TableRecovery#whileInUse}), taking each lock over for the calling thread and
     * freeing it; the caller holds the record ({@link Pool.ProcessWatch#takeOver}, or the record is this process's).
     * Returns what it did, for the log.
     *
     * @throws IllegalStateException if a segment is damaged beyond what a kill leaves: it is left locked by the
     *     ended process's record
     */
    private String repairSegmentsLeftBy(int record, String ended) {
        TableRecovery repair = TableRecovery.whileInUse(pool, cellBytes);
        StringBuilder repaired = new StringBuilder();
        int count = 0;
        for (int s = 0; s < segmentCount(); s++) {
            MemorySegment sb = segmentBlocks[s];
            long so = segmentOffsets[s];
            if (!SegmentLayout.takeOver(sb, so, record + 1, holder, Thread.currentThread().threadId())) {
                continue;
            }
            try {
                repair.repairAbandoned(s, segmentCount(), sb, so);
                lockWaiters.wakeOne(s); // it freed the lock
            } catch (RuntimeException damaged) {
                SegmentLayout.giveBack(sb, so, holder, record + 1);
                lockWaiters.wakeAll(s);
                throw new IllegalStateException("segment " + s + " is locked by " + ended + ", which ended without"
                        + " closing the file, and cannot be repaired while the file is open (" + damaged.getMessage()
                        + "): close every map on the file and open it again, whose recovery of the whole file repairs"
                        + " it or, if the segment is damaged beyond what a kill leaves, refuses the file saying why",
                        damaged);
            }
            repaired.append(count++ == 0 ? "" : ", ").append(s);
        }
        return "segments [" + repaired + "] it left locked (" + repair.result(count).describe() + ")";
    }

    /**
     * Makes every operation that has not taken its segment's lock yet fail as closed, and waits for those that hold
     * one to finish: for a map that owns its pool, before the pool records its state and unmaps (a file's) or frees
     * its memory. Every allocation and deletion of a map happens under a segment lock, so none follows this.
     * Linearization: an operation that took a lock before this method reached its segment runs to its end, which this
     * method waits for; this method then marks the segment closed while holding its lock
     * ({@link SegmentLayout#markClosed}), so no later compare-and-set takes the lock and nothing writes the segment
     * record again: a writer spinning on it sees the mark and fails as closed. (Giving the lock back instead let a
     * writer that came later take it for an instant to see {@link #quiescing}, and if the pool unmapped its file in
     * that instant the file kept the lock taken: it reopened cleanly with a segment no writer could ever lock.) A
     * map that takes the table up again frees the marks ({@link #reopen}). Lock-free reads are not held back.
     *
     * <p>{@code beginClose} says, once the callback check passed, whether this process is the last to have the
     * table's file open (always for a table in memory). A process that closes a file other processes keep open must
     * leave every lock free:
     * it waits instead until no operation of its own is between its lock and its unlock ({@link #lockedOperations});
     * one that starts after {@link #quiescing} was set fails before it touches a lock (both are sequentially
     * consistent accesses: either the operation sees the flag or this method sees the operation).
     *
     * <p>Returns {@code false} if a segment is locked by a process that ended without closing the file (found by the
     * last process to close it), or already marked closed (which only a last close does: a close that took itself for
     * the last while this process had the file open): the file must then be left to the recovery of its next open,
     * which frees the marks; waiting for such a segment would wait for ever.
     *
     * @throws IllegalStateException if the calling thread holds a segment's lock (a map's callback closing it)
     */
    boolean quiesce(BooleanSupplier beginClose) {
        long self = Thread.currentThread().threadId();
        for (int s = 0; s < segmentCount(); s++) {
            if (SegmentLayout.heldBy(segmentBlocks[s], segmentOffsets[s], holder, self)) {
                throw new IllegalStateException("the map cannot be closed by one of its own operations (a callback)");
            }
        }
        boolean last = beginClose.getAsBoolean();
        quiescing = true;
        if (!last) {
            for (int spins = 0; !lockedOperations.none(); spins++) {
                Backoff.pause(spins);
            }
            quiesced = true;
            return true;
        }
        boolean sound = true;
        for (int s = 0; s < segmentCount(); s++) {
            MemorySegment sb = segmentBlocks[s];
            long so = segmentOffsets[s];
            long since = 0;
            for (int spins = 0; !SegmentLayout.tryLock(sb, so, holder); spins++) {
                if (SegmentLayout.isClosed(sb, so)) { // closed by another close while this one had the file open
                    sound = false;
                    break;
                }
                try {
                    since = watchHolder(s, spins, since);
                } catch (IllegalStateException holderEnded) { // (no other process is alive: this one is the last)
                    sound = false;
                    break;
                }
                Backoff.pause(spins);
            }
            if (SegmentLayout.lockValue(sb, so) == holder) {
                SegmentLayout.markClosed(sb, so);
                lockWaiters.wakeAll(s);
            }
        }
        quiesced = true;
        return sound;
    }

    /**
     * Frees the segments the last close marked closed ({@link #quiesce}), for a map that takes the table up again
     * (also those of a close a kill cut short, after the recovery); a lock a killed process left taken is the
     * recovery's ({@code TableRecovery}).
     */
    void reopen() {
        for (int s = 0; s < segmentCount(); s++) {
            if (SegmentLayout.isClosed(segmentBlocks[s], segmentOffsets[s])) {
                SegmentLayout.unlock(segmentBlocks[s], segmentOffsets[s]);
            }
        }
    }

    /**
     * Every this many waits ({@link #watchHolder}): with {@link Backoff}'s parks (50 us asked, 100-110 us slept here),
     * about every 30 ms; the first look after about 15 ms. A look is one system call.
     */
    private static final int WATCH_EVERY = 1 << 8;

    private static IllegalStateException closed() {
        return new IllegalStateException("the map is closed");
    }

    /**
     * Whether no mutation began since {@code version} was read; orders the reads before it first. Throws
     * {@link IllegalStateException} if the segment record was deleted: only {@link #close} does that, and the
     * version just read may then be another map's bytes.
     */
    boolean isStable(int s, long version) {
        VarHandle.loadLoadFence();
        if (SegmentLayout.versionAcquire(segmentBlocks[s], segmentOffsets[s]) != version) {
            return false;
        }
        if (sharedPool && !pool.isLive(segmentRefs[s])) { // after the version: a live record means it was its own
            throw closed();
        }
        return true;
    }

    /**
     * Searches segment {@code s} for the key in {@code scratch} without the lock: the entry, 0 if absent, or
     * {@link #RETRY} if the probe passed every slot of the array (no real array is full). The result means something
     * only if {@link #isStable} holds afterwards.
     */
    long findLockFree(int s, Scratch scratch) {
        MemorySegment sb = segmentBlocks[s];
        long so = segmentOffsets[s];
        long slots = SegmentLayout.slots(sb, so);
        long tags = SegmentLayout.tags(sb, so);
        long mask = (1L << SegmentLayout.slotBits(sb, so)) - 1;
        MemorySegment ab = pool.segment(slots);
        long ao = pool.payloadOffset(slots);
        MemorySegment tb = pool.segment(tags);
        long to = pool.payloadOffset(tags);
        long hash = scratch.keyHash();
        byte tag = TagLayout.tagOf(hash);
        long slotTag = SlotLayout.tagBits(hash);
        long i = SlotLayout.homeOf(hash, mask);
        for (long steps = 0; steps <= mask; steps++, i = (i + 1) & mask) {
            byte t = TagLayout.get(tb, to, i);
            if (t == TagLayout.EMPTY) {
                return 0;
            }
            if (t == tag) {
                long slot = SlotLayout.get(ab, ao, i, cellBytes);
                if (SlotLayout.tagOf(slot) == slotTag) {
                    boolean inline = SlotLayout.isInline(slot);
                    long granule = inline ? inlineReference(slots, i) : SlotLayout.granule(slot);
                    if (matches(granule, scratch)) {
                        return inline ? granule : pool.currentReference(granule);
                    }
                }
            }
            if (recordGone(s, steps)) {
                return RETRY;
            }
        }
        return RETRY;
    }

    /**
     * Checked now and then by lock-free walks: whether segment {@code s}'s record was deleted by {@link #close}, so
     * that the array the walk read from it may be another map's bytes; the walk then gives up and its validation
     * throws.
     */
    private boolean recordGone(int s, long steps) {
        return sharedPool && (steps & 63) == 63 && !pool.isLive(segmentRefs[s]);
    }

    /**
     * Whether the bytes of entry {@code e}, found linked in segment {@code s} at {@code version}, that a lock-free
     * reader read since are still {@code e}'s own: no mutation began in the segment since (the common case, which
     * reads only the segment record), or else {@code e} lies apart and its slice is still live (it may have been
     * unlinked, but then its bytes have not changed since: only a linked entry is updated in place). An entry lying
     * in its cell is intact only while the segment did not mutate: any mutation may have moved another entry into
     * the cell, or freed the array. Orders the reads before it.
     */
    boolean isIntact(int s, long version, long e) {
        return isStable(s, version) || (!isInline(e) && pool.isLive(e));
    }

    /**
     * Whether entry reference {@code e} (0 for none: not inline) names an entry lying in its cell: such a reference is
     * the granule of the cell ({@link #inlineReference}) with version 0, which no slice's reference has (Nova's
     * versions run from 1). {@link Pool#segment} and {@link Pool#payloadOffset} resolve it to the entry,
     * {@link Pool#lengthUnchecked} to its length, as for a slice; nothing that validates a slice ({@link Pool#isLive},
     * {@link Pool#length}, a deletion, a handle) may see it.
     */
    static boolean isInline(long e) {
        return e != 0 && Reference.version(e) == 0;
    }

    /**
     * The reference of the entry lying in cell {@code i} of slot array {@code slotsRef}: the granule where the cell
     * starts, so that its slot and length words stand where a slice's header would, the entry where its payload
     * would.
     */
    private long inlineReference(long slotsRef, long i) {
        return inlineReference(slotsRef, i, cellGranules);
    }

    /** As {@link #inlineReference(long, long)}, for cells of {@code cellGranules} 16-byte granules. */
    private static long inlineReference(long slotsRef, long i, long cellGranules) {
        return Pool.granuleOf(slotsRef) + SliceHeader.SIZE / CELL_ALIGNMENT + i * cellGranules;
    }

    /**
     * At rest (a check or a repair): the entry that cell {@code i} of slot array {@code slotsRef} (cells of
     * {@code cellBytes} bytes), whose slot is the occupied {@code slot}, links: the cell's own entry or the slice
     * the slot names.
     */
    static long entryAt(Pool pool, long slotsRef, long i, long slot, int cellBytes) {
        return SlotLayout.isInline(slot) ? inlineReference(slotsRef, i, cellBytes / CELL_ALIGNMENT)
                : pool.currentReference(SlotLayout.granule(slot));
    }

    /**
     * At rest: the payload length of entry {@code e} of a table whose cells have {@code cellBytes} bytes, or -1 if
     * it is not an entry: an inline entry whose length does not fit its cell, or a slice that is not live. Does
     * not look at the fields inside.
     */
    static int lengthAtRest(Pool pool, long e, int cellBytes) {
        if (isInline(e)) {
            int length = pool.lengthUnchecked(e);
            return length >= 0 && length <= cellBytes - SlotLayout.INLINE_ENTRY ? length : -1;
        }
        return pool.liveLength(e);
    }

    /** Lock-free: the reference of segment {@code s}'s slot array now. */
    long slotsRef(int s) {
        return SegmentLayout.slots(segmentBlocks[s], segmentOffsets[s]);
    }

    /**
     * Whether the inline entry {@code e} lies in a cell of slot array {@code slotsRef}, which the caller keeps from
     * deletion (Nova's write protocol), so that its length is its own.
     */
    boolean holdsCell(long slotsRef, long e) {
        long offset = (Pool.granuleOf(e) - inlineReference(slotsRef, 0)) * CELL_ALIGNMENT;
        return offset >= 0 && offset % cellBytes == 0 && offset + cellBytes <= pool.lengthUnchecked(slotsRef);
    }

    /** The cell of slot array {@code slotsRef} whose entry is the inline entry {@code e}. */
    private long cellIndexOf(long slotsRef, long e) {
        return (Pool.granuleOf(e) - Pool.granuleOf(slotsRef) - SliceHeader.SIZE / CELL_ALIGNMENT) / cellGranules;
    }

    /** Whether an entry of {@code length} payload bytes lies in its cell when linked. */
    private boolean fitsInline(int length) {
        return cellBytes != SlotLayout.SLOT_CELL && length <= cellBytes - SlotLayout.INLINE_ENTRY;
    }

    /** Entry {@code e}'s stamp ({@link EntryLayout}): odd while an in-place update writes its value. */
    long stampAcquire(long e) {
        return SliceStamp.acquire(pool.segment(e), EntryLayout.stampAt(pool.payloadOffset(e)));
    }

    /** Whether entry {@code e}'s stamp is still {@code stamp}; orders the reads before it. */
    boolean stampUnchanged(long e, long stamp) {
        return SliceStamp.unchanged(pool.segment(e), EntryLayout.stampAt(pool.payloadOffset(e)), stamp);
    }

    /**
     * Throws {@link IllegalStateException} if the calling thread holds segment {@code s}'s lock: called by a thread
     * about to wait for something only that lock's holder can end (a user function of the map, running under the
     * lock, used the map again), which would wait for ever.
     */
    void checkNotHeldByCaller(int s) {
        if (SegmentLayout.heldBy(segmentBlocks[s], segmentOffsets[s], holder, Thread.currentThread().threadId())) {
            throw recursiveUpdate();
        }
    }

    private static IllegalStateException recursiveUpdate() {
        return new IllegalStateException("Recursive update: a function passed to the map, running under the lock of a"
                + " segment, used the map on a key of that segment");
    }

    /**
     * For a handle waiting on entry {@code e}'s odd stamp since {@code waitingSince} ({@link SliceHandle.WriterCheck}):
     * throws if the calling thread holds the lock of {@code e}'s segment, since only that lock's holder writes the
     * value in place; in a table in a file, looks at the holder as {@link #watchHolder} does (repairs what it left if
     * it ended; throws once the wait for a live one is over). The entry is live while its stamp is odd, so its key,
     * which names the segment, is its own.
     */
    void checkValueWriter(long e, long waitingSince) {
        int s = segmentOf(KeyHash.of(pool.segment(e), keyOffset(e), keyLength(e)));
        checkNotHeldByCaller(s);
        if (processes != null) {
            lookAtHolder(s, waitingSince);
        }
    }

    /** Whether the entry whose slice header is at {@code granule} holds the key in {@code scratch}. */
    private boolean matches(long granule, Scratch scratch) {
        MemorySegment eb = pool.segment(granule);
        long eo = pool.payloadOffset(granule);
        int length = scratch.keyLength();
        return EntryLayout.keyLength(eb, eo) == length
                && MemorySegment.mismatch(eb, eo + EntryLayout.KEY, eo + EntryLayout.KEY + length,
                        scratch.key(), 0, length) == -1;
    }

    // ---- locked updates ----------------------------------------------------------------------------------------

    /**
     * Takes segment {@code s}'s lock and returns the token to {@link #unlock} it with. On a shared pool the segment
     * record is written under Nova's write protocol, announced before the first attempt and ended by
     * {@code unlock}: so a {@link #close} cannot hand the record to another map while this thread spins on it or
     * holds it. Throws {@link IllegalStateException} if the map was closed.
     */
    long lock(int s) {
        if (!enterLocked()) {
            throw closed();
        }
        long token = sharedPool ? pool.beginWrite(segmentRefs[s]) : 0;
        if (token < 0) {
            exitLocked();
            throw closed();
        }
        try {
            MemorySegment sb = segmentBlocks[s];
            long so = segmentOffsets[s];
            long since = 0;
            long parkLimit = LockWaiters.FIRST_PARK_NANOS;
            for (int spins = 0; !SegmentLayout.tryLock(sb, so, holder); spins++) {
                if (SegmentLayout.isClosed(sb, so)) {
                    throw closed();
                }
                if (spins > 0 && SegmentLayout.heldBy(sb, so, holder, Thread.currentThread().threadId())) {
                    throw recursiveUpdate();
                }
                since = watchHolder(s, spins, since); // throws if the holder is gone or the wait is over
                if (spins >= Backoff.SPINS_BEFORE_YIELD && LockWaiters.parksHere()
                        && SegmentLayout.lockValue(sb, so) == holder) {
                    parkLimit = lockWaiters.await(s, parkLimit, () -> SegmentLayout.lockValue(sb, so) == holder);
                } else {
                    Backoff.pause(spins);
                }
            }
            if (quiescing) {
                freeLock(s);
                throw closed();
            }
            SegmentLayout.setOwner(sb, so, holder, Thread.currentThread().threadId());
            return token;
        } catch (RuntimeException | Error e) { // whatever ends the wait (a file's lock probe may fail too) undoes it
            endWrite(token);
            exitLocked();
            throw e;
        }
    }

    /**
     * Takes segment {@code s}'s lock if it is free right now: the token to {@link #unlock} it with, or -1 (held by
     * someone, or the map closed). Never waits, so a thread holding one lock may take another without deadlock.
     */
    long tryLock(int s) {
        if (!enterLocked()) {
            return -1;
        }
        long token = sharedPool ? pool.beginWrite(segmentRefs[s]) : 0;
        if (token < 0) {
            exitLocked();
            return -1;
        }
        MemorySegment sb = segmentBlocks[s];
        long so = segmentOffsets[s];
        if (!SegmentLayout.tryLock(sb, so, holder)) {
            endWrite(token);
            exitLocked();
            return -1;
        }
        if (quiescing) {
            freeLock(s);
            endWrite(token);
            exitLocked();
            return -1;
        }
        SegmentLayout.setOwner(sb, so, holder, Thread.currentThread().threadId());
        return token;
    }

    /**
     * Gives segment {@code s}'s lock back: the locked operation's last access to the table's memory, after its
     * linearization point. A close of the map's own pool waits for this store ({@link #quiesce}) before it unmaps or
     * frees the memory, so the store lands; yet the JDK may raise the close's {@link IllegalStateException}
     * ("Already closed") in this thread after the store ran: a shared arena's close makes every thread it finds still
     * inside an access to its memory throw, and a thread can be inside the access past its store (descheduled before
     * the accessor returned). Thrown on, that exception would report as failed an operation that completed, whose
     * write a file then keeps (what {@code FileCloseRaceTest} saw, rarely; this is the one path to it found, not
     * reproduced in that test alone); so it is dropped when {@link #quiesced}
     * says the close waited for this lock. It is thrown on otherwise: the memory went without that wait (a
     * {@link io.grove.MemoryPool} shared by several maps closed by its user, a close that found the file cut short
     * under the map), and the store may not have run.
     */
    void unlock(int s, long token) {
        MemorySegment sb = segmentBlocks[s];
        long so = segmentOffsets[s];
        SegmentLayout.clearOwner(sb, so);
        try {
            freeLock(s);
        } catch (IllegalStateException closed) {
            if (!quiesced) {
                throw closed;
            }
        }
        endWrite(token);
        exitLocked();
    }

    /**
     * Frees segment {@code s}'s lock, which the calling thread holds, and wakes a virtual thread of this process that
     * waits for it ({@link LockWaiters}): every release of a lock by this process goes through here.
     */
    private void freeLock(int s) {
        SegmentLayout.unlock(segmentBlocks[s], segmentOffsets[s]);
        lockWaiters.wakeOne(s);
    }

    /**
     * Counts a locked operation of this process in a table in a file ({@link #lockedOperations}); {@code false},
     * counting nothing, if a close began.
     */
    private boolean enterLocked() {
        if (lockedOperations != null) {
            lockedOperations.begin();
            if (quiescing) {
                lockedOperations.end();
                return false;
            }
        }
        return true;
    }

    private void exitLocked() {
        if (lockedOperations != null) {
            lockedOperations.end();
        }
    }

    private void endWrite(long token) {
        if (sharedPool) {
            pool.endWrite(token);
        }
    }


    /**
     * Under the lock: the entry holding the key in {@code scratch}, or 0. The lock-free search, which under the lock
     * always meets an empty slot (every array keeps one) in a live record, so never returns {@link #RETRY}.
     */
    long findLocked(int s, Scratch scratch) {
        return findLockFree(s, scratch);
    }

    /**
     * Under the lock, before a new entry for a key {@link #findLocked} did not find is made: grows the segment if
     * the insertion would take it past 3/4 full ({@link SegmentGrowth}). Throws {@link GroveOutOfMemoryException}
     * if the segment is full and cannot grow.
     */
    void makeRoomForOne(int s) {
        growth.makeRoomForOne(s, segmentBlocks[s], segmentOffsets[s]);
    }

    /**
     * Under the lock of the key's segment {@code s}: a new private entry for the key in {@code scratch} with room for a
     * value of {@code valueLength} bytes, which the caller writes at {@link #valueOffset} and then {@link #seal}s
     * before linking the entry ({@link #insert}, {@link #replace}) or {@link #discard}s. In a table in a file the
     * segment's intent names it until then ({@link SegmentLayout}: adding). Throws {@link GroveOutOfMemoryException} if
     * it cannot be allocated.
     */
    long newEntry(int s, Scratch scratch, int valueLength) {
        int length = scratch.keyLength();
        long size = (long) EntryLayout.valueOffset(length) + valueLength;
        if (size > pool.maxSliceSize()) {
            throw new IllegalArgumentException("an entry with a " + length + "-byte key and a " + valueLength
                    + "-byte value takes " + size + " bytes, more than the largest slice of the pool ("
                    + pool.maxSliceSize() + " bytes); with this key a value may take at most "
                    + Math.max(0, pool.maxSliceSize() - EntryLayout.valueOffset(length)) + " bytes");
        }
        long e = pool.allocate((int) size);
        intendAdding(s, e);
        EntryLayout.initialize(pool.segment(e), pool.payloadOffset(e),
                SegmentLayout.takeIdentity(segmentBlocks[s], segmentOffsets[s]), scratch.key(), length, 1);
        return e;
    }

    /** Under the lock: deletes the private entry {@code e} that {@link #newEntry} made for segment {@code s}. */
    void discard(int s, long e) {
        intendAdding(s, 0);
        pool.deletePrivate(e);
    }

    /**
     * Under the lock, in a table in a file: names (or with 0, forgets) the private entry slice being made for segment
     * {@code s}, as {@link #newEntry} does, for one an in-place update's resize made.
     */
    void intendAdding(int s, long e) {
        if (checked) {
            SegmentLayout.setAdding(segmentBlocks[s], segmentOffsets[s], e);
        }
    }

    /** Under the lock, in a table in a file: names (or with 0, forgets) the entry slice being unlinked. */
    private void intendRemoving(int s, long e) {
        if (checked) {
            SegmentLayout.setRemoving(segmentBlocks[s], segmentOffsets[s], e);
        }
    }

    /**
     * Records the check word of entry {@code e}, private or under the lock with its stamp odd, once its key and
     * value are written: in a table in a file ({@link EntryLayout}); nothing in memory.
     */
    void seal(long e) {
        if (checked) {
            EntryLayout.seal(pool.segment(e), pool.payloadOffset(e), (int) entryBytes(e));
        }
    }

    /**
     * Under the lock, after {@link #findLocked} found nothing and {@link #makeRoomForOne} made room: links the private
     * entry {@code e} (made by {@link #newEntry} for the same key, sealed) in the first empty cell from the key's
     * home: copied into the cell where it fits, {@code e} then deleted.
     */
    void insert(int s, Scratch scratch, long e) {
        MemorySegment sb = segmentBlocks[s];
        long so = segmentOffsets[s];
        long tags = SegmentLayout.tags(sb, so);
        long mask = (1L << SegmentLayout.slotBits(sb, so)) - 1;
        MemorySegment tb = pool.segment(tags);
        long to = pool.payloadOffset(tags);
        long i = TagLayout.firstEmptyFrom(tb, to, mask, SlotLayout.homeOf(scratch.keyHash(), mask));
        long count = SegmentLayout.count(sb, so) + 1;
        long bytes = SegmentLayout.bytes(sb, so) + pool.length(e);
        SegmentLayout.beginMutation(sb, so);
        long linked = link(sb, so, i, SlotLayout.tagBits(scratch.keyHash()), e, true);
        TagLayout.set(tb, to, i, TagLayout.tagOf(scratch.keyHash()));
        SegmentLayout.setCount(sb, so, count);
        SegmentLayout.setBytes(sb, so, bytes);
        SegmentLayout.endMutation(sb, so);
        if (linked != e) {
            discard(s, e);
        } else {
            intendAdding(s, 0);
        }
    }

    /**
     * Under the lock, inside a mutation: makes cell {@code i} of the segment's slot array link the private, sealed
     * entry {@code e}, whose key's slot tag bits are {@code tagBits}: copied into the cell if it fits
     * ({@link #fitsInline}) and {@code intoCell}, else by a slot naming its slice. Returns the reference of the
     * linked entry. The cell's slot is stored last (release), so a process killed in the copy leaves the cell's
     * previous link whole: {@code intoCell} must be false where that link is an entry in this very cell that a
     * reopen must find (a replacement in a table in a file).
     */
    private long link(MemorySegment sb, long so, long i, long tagBits, long e, boolean intoCell) {
        long slots = SegmentLayout.slots(sb, so);
        MemorySegment ab = pool.segment(slots);
        long ao = pool.payloadOffset(slots);
        int length = pool.length(e);
        if (!intoCell || !fitsInline(length)) {
            SlotLayout.setRelease(ab, ao, i, cellBytes, tagBits | Pool.granuleOf(e));
            return e;
        }
        long cell = SlotLayout.cellAt(ao, i, cellBytes);
        MemorySegment.copy(pool.segment(e), pool.payloadOffset(e), ab, cell + SlotLayout.INLINE_ENTRY, length);
        SlotLayout.setInlineLength(ab, cell, length);
        SlotLayout.setRelease(ab, ao, i, cellBytes, SlotLayout.inlineSlot(tagBits));
        return inlineReference(slots, i);
    }

    /**
     * Under the lock: puts the private, sealed entry {@code fresh} (same key, of hash {@code hash}, new value) in
     * the place of entry {@code old} (copied into the cell where it fits, {@code fresh} then deleted) and deletes
     * {@code old}. Handles on {@code old}'s key or value fail from then on. In a table in a file, an {@code old}
     * lying in its cell is not overwritten (a process killed in the copy would leave neither entry whole): the
     * cell's slot names {@code fresh}'s slice instead, and the next replacement of another size moves the entry
     * back into the cell.
     */
    void replace(int s, long hash, long old, long fresh) {
        MemorySegment sb = segmentBlocks[s];
        long so = segmentOffsets[s];
        long i = slotOf(s, hash, old);
        MemorySegment ob = pool.segment(old);
        long oo = pool.payloadOffset(old);
        EntryLayout.setUses(pool.segment(fresh), pool.payloadOffset(fresh), EntryLayout.uses(ob, oo));
        long bytes = SegmentLayout.bytes(sb, so) + pool.length(fresh) - entryBytes(old);
        boolean oldApart = !isInline(old);
        if (oldApart) {
            intendRemoving(s, old);
        }
        SegmentLayout.beginMutation(sb, so);
        long linked = link(sb, so, i, SlotLayout.tagBits(hash), fresh, oldApart || !checked);
        SegmentLayout.setBytes(sb, so, bytes);
        SegmentLayout.endMutation(sb, so);
        if (oldApart) {
            intendRemoving(s, 0);
            pool.delete(old);
        }
        if (linked != fresh) {
            discard(s, fresh);
        } else {
            intendAdding(s, 0);
        }
    }

    /** Under the lock: the index of the cell that links entry {@code e}, whose key has hash {@code hash}. */
    private long slotOf(int s, long hash, long e) {
        MemorySegment sb = segmentBlocks[s];
        long so = segmentOffsets[s];
        long slots = SegmentLayout.slots(sb, so);
        long mask = (1L << SegmentLayout.slotBits(sb, so)) - 1;
        if (isInline(e)) {
            long i = cellIndexOf(slots, e);
            if (i < 0 || i > mask) {
                throw new IllegalStateException("segment " + s + " has no cell holding entry " + e);
            }
            return i;
        }
        MemorySegment ab = pool.segment(slots);
        long ao = pool.payloadOffset(slots);
        long wanted = SlotLayout.slot(hash, Pool.granuleOf(e));
        long i = SlotLayout.homeOf(hash, mask);
        for (long steps = 0; steps <= mask; steps++, i = (i + 1) & mask) {
            if (SlotLayout.get(ab, ao, i, cellBytes) == wanted) {
                return i;
            }
        }
        throw new IllegalStateException("segment " + s + " does not link entry " + e + " from its home slot");
    }

    /**
     * Under the lock, after {@link #findLocked} found {@code e}: the entry in a slice of its own, for a zero-copy
     * handle, which must not move with a cell. An entry lying in its cell is copied to a new slice (the same entry:
     * its identity, stamp and uses go with it) that its cell's slot then names, in one mutation; an entry apart is
     * returned as it is. Throws {@link GroveOutOfMemoryException} if the slice cannot be allocated.
     */
    long spill(int s, long e) {
        if (!isInline(e)) {
            return e;
        }
        MemorySegment sb = segmentBlocks[s];
        long so = segmentOffsets[s];
        long slots = SegmentLayout.slots(sb, so);
        MemorySegment ab = pool.segment(slots);
        long ao = pool.payloadOffset(slots);
        long i = cellIndexOf(slots, e);
        int length = pool.lengthUnchecked(e);
        long slice = pool.allocate(length);
        intendAdding(s, slice);
        MemorySegment.copy(ab, pool.payloadOffset(e), pool.segment(slice), pool.payloadOffset(slice), length);
        long slot = SlotLayout.get(ab, ao, i, cellBytes);
        SegmentLayout.beginMutation(sb, so);
        SlotLayout.setRelease(ab, ao, i, cellBytes, SlotLayout.tagOf(slot) | Pool.granuleOf(slice));
        SegmentLayout.endMutation(sb, so);
        intendAdding(s, 0);
        return slice;
    }

    /**
     * Under the lock: whether a put may replace entry {@code e}'s value by one of {@code length} bytes in place
     * ({@link #replaceValue}): the lengths are equal, and {@code e} is not an entry apart that fits a cell (one a
     * zero-copy handle moved out of its cell: replaced by a new entry, it goes back into the cell).
     */
    boolean replacesValueInPlace(long e, int length) {
        return length == valueLength(e) && (isInline(e) || !fitsInline((int) entryBytes(e)));
    }

    /**
     * Under the lock: replaces the value of entry {@code e} of segment {@code s} by the first {@code length} bytes of
     * {@code value}, as long as the value they replace, in place: with the entry's stamp odd, it takes a new identity
     * (so handles on the old value fail, as the zero-copy API promises for a put) and copies the bytes. No mutation
     * of the segment: its readers of other keys, and of this key's slot, go on; readers of this entry's value wait
     * for the stamp. In a table in a file the old value is saved first ({@link #saveBeforeImage}: a process killed
     * while the stamp is odd leaves an image the reopen puts back, as for the zero-copy API's in-place updates) and
     * the entry's check word is recomputed before the stamp turns even.
     */
    void replaceValue(int s, long e, MemorySegment value, int length) {
        assert replacesValueInPlace(e, length);
        MemorySegment eb = pool.segment(e);
        long eo = pool.payloadOffset(e);
        int start = EntryLayout.valueOffset(EntryLayout.keyLength(eb, eo));
        long image = checked ? saveBeforeImage(s, e, start) : 0;
        long odd = beginValueWrite(e);
        EntryLayout.setIdentity(eb, eo, SegmentLayout.takeIdentity(segmentBlocks[s], segmentOffsets[s]));
        MemorySegment.copy(value, 0, eb, eo + start, length);
        seal(e);
        endValueWrite(e, odd);
        if (image != 0) {
            forgetBeforeImage(s, image);
        }
    }

    /**
     * Copies the fixed fields and key of entry {@code from} into the private slice {@code to}, whose value an
     * in-place update that resized it has already written; the caller seals it.
     */
    void copyKeyAndFields(long from, long to) {
        MemorySegment fromBlock = pool.segment(from);
        long fromOffset = pool.payloadOffset(from);
        MemorySegment toBlock = pool.segment(to);
        long toOffset = pool.payloadOffset(to);
        MemorySegment.copy(fromBlock, fromOffset, toBlock, toOffset,
                EntryLayout.valueOffset(EntryLayout.keyLength(fromBlock, fromOffset)));
        EntryLayout.resetStamp(toBlock, toOffset); // the copied stamp is odd: the update is still running
    }

    /** Under the lock, after {@link #findLocked} found {@code e} (its key has hash {@code hash}): unlinks it. */
    void unlink(int s, long hash, long e) {
        unlinkAt(s, slotOf(s, hash, e), e);
    }

    /**
     * Under the lock: unlinks entry {@code e}, linked by slot {@code i}, and deletes its slice. The slot is emptied
     * and the rest of its run shifted back: each later entry of the run whose home is not between the hole and
     * itself moves into the hole, which moves to its slot, until the run ends; so every entry stays in the run
     * from its home (the invariant of {@link SlotLayout}). A process killed in the middle leaves one entry in two
     * slots, both in its run (and with cells, perhaps one torn cell: {@link #shiftBack}), which a reopen's repair
     * ({@code TableRecovery}) removes.
     */
    void unlinkAt(int s, long i, long e) {
        MemorySegment sb = segmentBlocks[s];
        long so = segmentOffsets[s];
        long slots = SegmentLayout.slots(sb, so);
        long tags = SegmentLayout.tags(sb, so);
        long mask = (1L << SegmentLayout.slotBits(sb, so)) - 1;
        long count = SegmentLayout.count(sb, so) - 1;
        long bytes = SegmentLayout.bytes(sb, so) - entryBytes(e);
        boolean apart = !isInline(e);
        if (apart) {
            intendRemoving(s, e);
        }
        SegmentLayout.beginMutation(sb, so);
        shiftBack(pool.segment(slots), pool.payloadOffset(slots), pool.segment(tags), pool.payloadOffset(tags), mask,
                i, cellBytes);
        SegmentLayout.setCount(sb, so, count);
        SegmentLayout.setBytes(sb, so, bytes);
        SegmentLayout.endMutation(sb, so);
        if (apart) {
            intendRemoving(s, 0);
            pool.delete(e);
        }
    }

    /**
     * Empties cell {@code hole} of an array of {@code mask + 1} cells of {@code cellBytes} bytes and shifts the rest
     * of its run back, each tag with its cell (an inline entry moves with its slot: its handles, made only on entries
     * apart, do not see it); with {@code tb} {@code null}, the slots alone (a repair, which rebuilds the tags after).
     * Looks at each other cell at most once, so it ends even on an array whose only empty cell is the hole (a
     * repair's).
     */
    static void shiftBack(MemorySegment ab, long ao, MemorySegment tb, long to, long mask, long hole, int cellBytes) {
        // Each copy lands before the next one overwrites its source, even in a process killed here (copyCell), so
        // a kill leaves every entry of the run whole in one cell at least: the cell being written may be torn (a
        // mix of what it held, an entry copied earlier or the one removed, and its new entry, which is whole in
        // its old cell still); the reopen drops torn cells by their check words and second copies by their keys.
        long j = (hole + 1) & mask;
        for (long steps = 0; steps < mask; steps++, j = (j + 1) & mask) {
            long slot = SlotLayout.get(ab, ao, j, cellBytes);
            if (slot == SlotLayout.EMPTY) {
                break;
            }
            long home = SlotLayout.home(slot, mask);
            if (SlotLayout.distance(home, j, mask) >= SlotLayout.distance(hole, j, mask)) {
                copyCell(ab, ao, j, hole, cellBytes);
                if (tb != null) {
                    TagLayout.set(tb, to, hole, TagLayout.get(tb, to, j));
                }
                hole = j;
            }
        }
        SlotLayout.setRelease(ab, ao, hole, cellBytes, SlotLayout.EMPTY);
        if (tb != null) {
            TagLayout.set(tb, to, hole, TagLayout.EMPTY);
        }
    }

    /**
     * Copies cell {@code from} of an array of cells of {@code cellBytes} bytes over cell {@code to}: the slot, and an
     * inline entry's length and payload. In order with the stores that follow, even in a process killed here: a
     * slot is one release store, a longer cell a copy followed by a store-store fence.
     */
    static void copyCell(MemorySegment ab, long ao, long from, long to, int cellBytes) {
        if (cellBytes == SlotLayout.SLOT_CELL) {
            SlotLayout.setRelease(ab, ao, to, cellBytes, SlotLayout.get(ab, ao, from, cellBytes));
            return;
        }
        long cell = SlotLayout.cellAt(ao, from, cellBytes);
        MemorySegment.copy(ab, cell, ab, SlotLayout.cellAt(ao, to, cellBytes), SlotLayout.usedBytes(ab, cell));
        VarHandle.storeStoreFence();
    }

    /**
     * At rest (a check or a repair): the first slot from {@code home} up to slot {@code i} of slot array
     * {@code slotsRef} (cells of {@code cellBytes} bytes) that links another entry with the key of slot {@code i}'s
     * entry, or -1. Entries of one key share a tag and a home, so a second link of a key lies in that stretch; only
     * an operating-system crash (slots from pages of different ages) can make one, or, with cells, a removal's shift
     * cut off by a kill (two copies of one entry). Two slots naming one slice are not two entries; entries whose
     * fields do not fit their slices or cells never match.
     */
    static long earlierLinkOfKey(Pool pool, long slotsRef, long mask, long home, long i, int cellBytes) {
        MemorySegment ab = pool.segment(slotsRef);
        long ao = pool.payloadOffset(slotsRef);
        long slot = SlotLayout.get(ab, ao, i, cellBytes);
        for (long j = home; j != i; j = (j + 1) & mask) {
            long other = SlotLayout.get(ab, ao, j, cellBytes);
            if (other != SlotLayout.EMPTY && SlotLayout.tagOf(other) == SlotLayout.tagOf(slot)
                    && (SlotLayout.isInline(slot) || SlotLayout.granule(other) != SlotLayout.granule(slot))
                    && sameKey(pool, entryAt(pool, slotsRef, j, other, cellBytes),
                            entryAt(pool, slotsRef, i, slot, cellBytes), cellBytes)) {
                return j;
            }
        }
        return -1;
    }

    private static boolean sameKey(Pool pool, long e, long o, int cellBytes) {
        try {
            int eLength = lengthAtRest(pool, e, cellBytes);
            int oLength = lengthAtRest(pool, o, cellBytes);
            MemorySegment eb = pool.segment(e);
            long eo = pool.payloadOffset(e);
            MemorySegment ob = pool.segment(o);
            long oo = pool.payloadOffset(o);
            int length = EntryLayout.keyLength(eb, eo);
            return eLength >= 0 && oLength >= 0 && EntryLayout.keyLength(ob, oo) == length
                    && EntryLayout.valueOffset(length) <= eLength && EntryLayout.valueOffset(length) <= oLength
                    && MemorySegment.mismatch(eb, eo + EntryLayout.KEY, eo + EntryLayout.KEY + length, ob,
                            oo + EntryLayout.KEY, oo + EntryLayout.KEY + length) == -1;
        } catch (RuntimeException outsideThePool) {
            return false;
        }
    }

    /**
     * What entry {@code e} counts against a byte bound: its whole payload (fields, key and value). Under the lock;
     * validated for an entry apart.
     */
    long entryBytes(long e) {
        return isInline(e) ? pool.lengthUnchecked(e) : pool.length(e);
    }

    /**
     * Under the lock: makes entry {@code e}'s stamp odd around an in-place change of its value's bytes and returns
     * it for {@link #endValueWrite}; only readers of {@code e}'s value wait for it, not readers of the segment.
     */
    long beginValueWrite(long e) {
        return SliceStamp.beginWrite(pool.segment(e), EntryLayout.stampAt(pool.payloadOffset(e)));
    }

    /**
     * Under the lock, before an in-place update of entry {@code e}'s value (from payload offset {@code start}) in a
     * table in a file: saves the value in the file and records it in segment {@code s} ({@link BeforeImage}).
     * Returns the image for {@link #forgetBeforeImage}.
     */
    long saveBeforeImage(int s, long e, int start) {
        long image = BeforeImage.save(pool, e, start, (int) entryBytes(e));
        SegmentLayout.setJournal(segmentBlocks[s], segmentOffsets[s], image);
        return image;
    }

    /** Under the lock, once the update's value is whole again (stamp even, or the entry replaced). */
    void forgetBeforeImage(int s, long image) {
        SegmentLayout.setJournal(segmentBlocks[s], segmentOffsets[s], 0);
        pool.deletePrivate(image);
    }

    /** Under the lock: ends the value write begun as {@code odd}. */
    void endValueWrite(long e, long odd) {
        SliceStamp.endWrite(pool.segment(e), EntryLayout.stampAt(pool.payloadOffset(e)), odd);
    }

    /** Under the lock: unlinks and deletes every entry of the segment. */
    void clear(int s) {
        MemorySegment sb = segmentBlocks[s];
        long so = segmentOffsets[s];
        SegmentLayout.beginMutation(sb, so);
        deleteEntries(sb, so);
        SegmentLayout.endMutation(sb, so);
    }

    /** Under the lock, inside a mutation: empties every slot and tag and deletes its entry. */
    private void deleteEntries(MemorySegment sb, long so) {
        long slots = SegmentLayout.slots(sb, so);
        long tags = SegmentLayout.tags(sb, so);
        MemorySegment ab = pool.segment(slots);
        long ao = pool.payloadOffset(slots);
        MemorySegment tb = pool.segment(tags);
        long to = pool.payloadOffset(tags);
        long n = 1L << SegmentLayout.slotBits(sb, so);
        for (long i = 0; i < n; i++) {
            long slot = SlotLayout.get(ab, ao, i, cellBytes);
            if (slot != SlotLayout.EMPTY) {
                SlotLayout.set(ab, ao, i, cellBytes, SlotLayout.EMPTY);
                TagLayout.set(tb, to, i, TagLayout.EMPTY);
                if (!SlotLayout.isInline(slot)) {
                    pool.delete(pool.currentReference(SlotLayout.granule(slot)));
                }
            }
        }
        SegmentLayout.setCount(sb, so, 0);
        SegmentLayout.setBytes(sb, so, 0);
    }

    /**
     * Closes the table in a pool that stays open, while operations may still run: locks every segment for good
     * with its version odd ({@link SegmentLayout#markClosed}) and deletes its entries and slot array, then deletes
     * the segment records and the directory. An operation that raced with the close fails with
     * {@link IllegalStateException}: a writer waiting for a lock announced its write to the record ({@link #lock}),
     * so Nova keeps the record from reuse until it read the closed mark; a later writer cannot announce a deleted
     * record; a reader sees the version change, or the record deleted ({@link #isStable}, {@link #awaitStable}).
     */
    void close() {
        for (int s = 0; s < segmentCount(); s++) {
            MemorySegment sb = segmentBlocks[s];
            long so = segmentOffsets[s];
            long token = lock(s);
            SegmentLayout.beginMutation(sb, so); // never ended
            deleteEntries(sb, so);
            pool.delete(SegmentLayout.slots(sb, so));
            pool.delete(SegmentLayout.tags(sb, so));
            SegmentLayout.markClosed(sb, so);
            lockWaiters.wakeAll(s);
            endWrite(token);
        }
        for (int s = 0; s < segmentCount(); s++) {
            pool.delete(segmentRefs[s]);
        }
        pool.delete(directory);
    }

    // ---- access to entries, for the map and its iterators --------------------------------------------------------

    long bytes(int s) {
        return SegmentLayout.bytes(segmentBlocks[s], segmentOffsets[s]);
    }

    long count(int s) {
        return SegmentLayout.count(segmentBlocks[s], segmentOffsets[s]);
    }

    int slotBits(int s) {
        return SegmentLayout.slotBits(segmentBlocks[s], segmentOffsets[s]);
    }

    /** Receives the entries a {@link #collectPosition} walk finds. */
    interface EntrySink {
        void accept(long e);
    }

    /**
     * Lock-free (validate afterwards): hands {@code sink} every entry of segment {@code s} whose hash is {@code p}
     * modulo {@code 2^fixedBits}, where {@code fixedBits} is at most the segment's slot bits (they only grow).
     * Such entries have their homes at {@code p, p + 2^fixedBits, ...} and lie in the runs that start there: each
     * run is probed up to its first empty slot. Returns {@code false} if a probe passed every slot (not a real
     * array).
     */
    boolean collectPosition(int s, long p, int fixedBits, EntrySink sink) {
        MemorySegment sb = segmentBlocks[s];
        long so = segmentOffsets[s];
        long slots = SegmentLayout.slots(sb, so);
        long mask = (1L << SegmentLayout.slotBits(sb, so)) - 1;
        MemorySegment ab = pool.segment(slots);
        long ao = pool.payloadOffset(slots);
        long step = 1L << fixedBits;
        for (long home = p; home <= mask; home += step) {
            long steps = 0;
            for (long i = home; ; i = (i + 1) & mask) {
                long slot = SlotLayout.get(ab, ao, i, cellBytes);
                if (slot == SlotLayout.EMPTY) {
                    break;
                }
                if (++steps > mask || recordGone(s, steps)) {
                    return false;
                }
                if (SlotLayout.home(slot, mask) == home) {
                    sink.accept(SlotLayout.isInline(slot) ? inlineReference(slots, i)
                            : pool.currentReference(SlotLayout.granule(slot)));
                }
            }
        }
        return true;
    }

    int keyLength(long e) {
        return EntryLayout.keyLength(pool.segment(e), pool.payloadOffset(e));
    }

    /** Under the lock: entry {@code e}'s identity ({@link EntryLayout}). */
    long identity(long e) {
        return EntryLayout.identity(pool.segment(e), pool.payloadOffset(e));
    }

    /** The offset of {@code e}'s value bytes in {@code pool.segment(e)}. */
    long valueOffset(long e) {
        return valueOffset(e, keyLength(e));
    }

    /**
     * The offset of the value bytes in {@code pool.segment(e)} of entry {@code e}, whose key has {@code keyLength}
     * bytes.
     */
    long valueOffset(long e, int keyLength) {
        return pool.payloadOffset(e) + EntryLayout.valueOffset(keyLength);
    }

    /**
     * The offset of {@code e}'s value bytes in its slice's payload; the value runs to the slice's end. Fenced so
     * that a validation of {@code e} that follows ({@link Pool#length}, or a handle's {@code pointAt}) covers the
     * key length this was computed from: a lock-free reader whose entry was deleted meanwhile (its fields may be
     * garbage by now) then fails the validation instead of using an offset the entry never had.
     */
    int valueStart(long e) {
        int start = EntryLayout.valueOffset(keyLength(e));
        VarHandle.loadLoadFence();
        return start;
    }

    /**
     * The length of {@code e}'s value: its slice's payload after the fields and key. Exact under the lock; a
     * lock-free reader must validate (the segment's version, or the slice) before it trusts it.
     */
    int valueLength(long e) {
        return pool.lengthUnchecked(e) - EntryLayout.valueOffset(keyLength(e));
    }

    /** The offset of {@code e}'s key bytes in {@code pool.segment(e)}. */
    long keyOffset(long e) {
        return pool.payloadOffset(e) + EntryLayout.KEY;
    }
}
