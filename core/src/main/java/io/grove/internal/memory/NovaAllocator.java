package io.grove.internal.memory;

import io.grove.GroveOutOfMemoryException;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;

/**
 * Nova (Fakhoury, Braginsky, Keidar, Zuriel, OPODIS 2023; see docs/REFERENCES.md): slices are reused while other
 * threads may still hold references to them, and every access through a stale reference fails.
 *
 * <p>Implementation notes.
 *
 * <p><b>Goal.</b> Safety: once a slice is reclaimed, no write through an older reference succeeds and no read
 * through one returns its bytes (Nova, Appendix A). Lock-free allocation, deletion and access; a stalled thread
 * delays the reuse of at most the one slice it is writing (plus, in a window of a few instructions, one release
 * stripe: {@link ReleaseLists}).
 *
 * <p><b>State.</b> The era (NovaEra, §3.2; {@link AllocatorWords#era}), a counter that only grows;
 * {@link HazardSlots} (the TAP);
 * {@link ReleaseLists} (deleted, not yet reusable); {@link FreeLists} (reusable, by size); the bump pointer of
 * {@link Blocks} (never-used memory).
 *
 * <p><b>Invariants.</b>
 * <ol>
 *   <li>A header's state word is the truth about its slice; a reference agrees with it (same version, not
 *       deleted) exactly while the incarnation it names is live.
 *   <li>A slice is on a free list only if its header is deleted, no hazard slot announced it after the era
 *       advanced past its version, and the era advanced after it was deleted.
 *   <li>Every version a header at a given place has ever carried is smaller than the current era (modulo wrap,
 *       see {@code docs/memory-layout.md}) once the slice at that place is on a free list; so the next
 *       incarnation there gets a new version. This needs the allocator to read the era <em>after</em> it
 *       obtained the memory (step A2): an era read before the pop could be older than the increment that
 *       preceded the slice's promotion, and would repeat the old version.
 * </ol>
 *
 * <p><b>Protocol.</b>
 * <ul>
 *   <li>A1 allocate: pop the exact size class; else bump fresh memory; else the slow path (below).
 *       A2 read {@code era} (volatile), write the header (magic, capacity, version, length) with plain stores.
 *       A3 unless the memory came fresh from the bump pointer (zero-filled by the block source), zero the
 *       payload's {@code length} bytes: a slice a serializer writes only partly must never show another slice's
 *       bytes (a free slice's link, a merged-away header, a removed entry of any map on the pool).
 *       The slice is private until the caller publishes the reference with a release store of its own.
 *   <li>D1 delete: CAS the header state from (v, live) to (v, deleted) — the linearization point; the first of
 *       racing deletes wins. D2 add the reference to a release stripe. A full stripe batch goes to R1.
 *   <li>R1 reclaim a batch: {@code getAndAdd} the era (volatile); R2 read every hazard slot (volatile);
 *       R3 for each slice no slot announces, set its header's freed bit with a CAS ({@link SliceStates#tryFree}:
 *       only the first reclaim of a slice named twice in release stripes frees it) and push it to its free list;
 *       return the others to the release stripes.
 *   <li>W1 write: claim a hazard slot with the reference (CAS, full fence); W2 read the header state
 *       (volatile) and check the version and magic; if not live, clear the slot and fail; W3 run the write;
 *       W4 clear the slot ({@code setRelease}). Nova's Algorithm 1, lines 9-17.
 *   <li>Reads are optimistic ({@link Pool} and the views): read the data, {@code loadLoadFence}, then check the
 *       header state (acquire) and magic; on a mismatch discard what was read. Algorithm 1, lines 1-8.
 *   <li>S slow path (S1-S3 under {@code slowPathLock}, only when the size class is empty and the bump pointer hit the
 *       memory limit): S1 retry A1; S2 help: drain every release stripe's partial batch through R1 and retry;
 *       S3 coalesce (Appendix B): take every free list, sort by place, merge neighbours within a block, clear
 *       the magic of the headers merged away, carve the request from the first run large enough and push the
 *       rest back; S4 in a file, if processes that had it open ended without closing it, take over what they
 *       left (their release stripes among it: {@link #adopt}) and run S1-S3 again; S5 otherwise throw
 *       {@link GroveOutOfMemoryException}.
 * </ul>
 *
 * <p><b>Why W and R1-R3 are safe</b> (§3.4, Appendix A): D1, W1, W2 and R2 are sequentially consistent
 * accesses. If W2 saw the slice live, W2 precedes D1, so W1 precedes D1, which precedes R2 (the batch is formed
 * after D1); R2 then sees the slot unless W4 already cleared it, and W4 releases the written data to the next
 * owner. If W2 saw it deleted, the writer touches nothing.
 *
 * <p><b>Private slices</b> ({@link #deletePrivate}): never seen by another thread, so they go straight to the
 * free list without era or hazard checks; their next incarnation may reuse the version, which no reference
 * outside the deleting caller ever carried.
 *
 * <p><b>Notation.</b> {@code g}: a header granule; {@code n}: a size in granules; {@code c}: a size class;
 * {@code ref}: a {@link Reference}.
 */
final class NovaAllocator implements SliceAllocator, ReleaseLists.BatchSink {
    /**
     * Deletions per release batch: the era advances about once per batch. The delete that fills a batch reclaims it
     * all, reading each slice's header and writing its free-list link (a cache miss per slice, as the slices were
     * deleted a while ago), so the batch size is that delete's latency: with 1,024 the 99.9th percentile of YCSB's
     * updates on the hash map (1,000,000 records, workloads B and F, 1 thread) was 146-469 us, with 64 it is 40-81 us
     * (Chronicle Map: 34-53 us), at the same throughput.
     */
    static final int BATCH_SIZE = 64;

    private final Blocks blocks;
    private final AllocatorWords words;
    private final FreeLists freeLists;
    private final HazardSlots hazards;
    private final ReleaseLists releaseLists;
    private final LongAdder releasedGranules = new LongAdder();
    private final Object slowPathLock = new Object();
    private volatile BooleanSupplier salvager = () -> false;
    /** How many deleted slices the release stripes took up from a file's release area at construction. */
    private long takenUp;

    NovaAllocator(Blocks blocks, AllocatorWords words, HazardSlots hazards) {
        this(blocks, words, hazards, new ReleaseLists(BATCH_SIZE));
    }

    /**
     * An allocator whose release stripes are also written to {@code releaseArea}, this process's part of a file's
     * release area ({@link ReleaseLists}), taking up what it holds: the deleted slices the process that used the area
     * before left there, counted as released here ({@link #takenUp}).
     */
    NovaAllocator(Blocks blocks, AllocatorWords words, HazardSlots hazards, MemorySegment releaseArea) {
        this(blocks, words, hazards, new ReleaseLists(releaseArea, BATCH_SIZE));
        takenUp = releaseLists.forEachHeld(this::countReleased);
    }

    private NovaAllocator(Blocks blocks, AllocatorWords words, HazardSlots hazards, ReleaseLists releaseLists) {
        this.blocks = blocks;
        this.words = words;
        this.hazards = hazards;
        this.freeLists = new FreeLists(blocks, words);
        this.releaseLists = releaseLists;
    }

    @Override
    public long allocate(int length) {
        long n = sliceGranules(length);
        long g = freeLists.pop(FreeLists.classOf(n));
        long capacity;
        boolean neverUsed = false;
        if (g >= 0) {
            capacity = SliceHeader.capacityGranules(blocks.block(g), blocks.offsetInBlock(g));
        } else {
            capacity = n;
            g = blocks.bump(n, this);
            neverUsed = g >= 0;
            if (!neverUsed) {
                long carved = allocateSlowly(n, length);
                g = carved & Reference.GRANULE_MASK;
                capacity = carved >>> Reference.GRANULE_BITS;
            }
        }
        return publish(g, capacity, length, neverUsed);
    }

    @Override
    public long sliceGranules(int length) {
        return FreeLists.roundedCapacity(Math.max(2, SliceHeader.granulesFor(length)));
    }

    @Override
    public long publishFresh(long g, long granules, int length) {
        return publish(g, granules, length, true);
    }

    /** A2-A4 for the {@code capacity} granules at {@code g}: the new slice's reference. */
    private long publish(long g, long capacity, int length, boolean neverUsed) {
        MemorySegment block = blocks.block(g);
        long header = blocks.offsetInBlock(g);
        if (!neverUsed) {
            SliceHeader.clearPayload(block, header, length); // A3: reused memory holds a removed slice's bytes
        }
        int version = Reference.versionOfEra(words.era()); // A2: after obtaining the memory
        SliceHeader.initialize(block, header, capacity, SliceHeader.state(version, length));
        words.addLive(1);
        return Reference.of(g, version);
    }

    /** The slow path S: returns {@code capacity << GRANULE_BITS | g}, or throws. */
    private long allocateSlowly(long n, int length) {
        long g = helpAndCoalesce(n);
        if (g < 0 && salvager.getAsBoolean()) { // S4, outside the lock: a salvage reclaims through this allocator
            g = helpAndCoalesce(n);
        }
        if (g >= 0) {
            return g;
        }
        throw new GroveOutOfMemoryException("memory limit of " + (long) blocks.maxBlocks * blocks.blockSize
                + " bytes reached: cannot allocate a slice of " + length + " bytes (reserved "
                + blocks.reservedBytes() + ", released " + releasedBytes() + ", free " + freeBytes()
                + " bytes in pieces too small)");
    }

    /** S1-S3: returns {@code capacity << GRANULE_BITS | g}, or -1. */
    private long helpAndCoalesce(long n) {
        int c = FreeLists.classOf(n);
        synchronized (slowPathLock) {
            long g = retryFast(c, n);
            if (g >= 0) {
                return g;
            }
            releaseLists.drainAll(this);
            g = retryFast(c, n);
            return g >= 0 ? g : coalesceAndCarve(n);
        }
    }

    /**
     * Sets S4: what takes over the leftovers of processes that ended without closing the pool's file, once S1-S3 found
     * no memory; returns whether it found any such process (then S1-S3 run again).
     */
    void setSalvager(BooleanSupplier salvager) {
        this.salvager = salvager;
    }

    private long retryFast(int c, long n) {
        long g = freeLists.pop(c);
        if (g >= 0) {
            return SliceHeader.capacityGranules(blocks.block(g), blocks.offsetInBlock(g)) << Reference.GRANULE_BITS | g;
        }
        g = blocks.bump(n, this);
        return g < 0 ? -1 : n << Reference.GRANULE_BITS | g;
    }

    /**
     * S3: merges neighbouring free slices (Appendix B) and carves {@code n} granules from the first run that holds
     * them. Returns {@code capacity << GRANULE_BITS | g}, or -1 if no run is large enough.
     */
    private long coalesceAndCarve(long n) {
        LongList free = new LongList();
        for (int c = 0; c < freeLists.classCount(); c++) {
            freeLists.takeAll(c, free);
        }
        free.sort();
        long carved = -1;
        int i = 0;
        while (i < free.size()) {
            long start = free.get(i);
            MemorySegment block = blocks.block(start);
            long end = start + SliceHeader.capacityGranules(block, blocks.offsetInBlock(start));
            int j = i + 1;
            while (j < free.size() && free.get(j) == end
                    && (free.get(j) >>> blocks.granuleShift) == (start >>> blocks.granuleShift)) {
                long merged = free.get(j);
                end = merged + SliceHeader.capacityGranules(block, blocks.offsetInBlock(merged));
                SliceHeader.clearMagic(block, blocks.offsetInBlock(merged));
                j++;
            }
            long run = end - start;
            if (carved < 0 && run >= n) {
                long rest = run - n;
                long capacity = rest >= 2 ? n : run; // a lone granule cannot be a slice: keep it in this one
                if (rest >= 2) {
                    SliceStates.initializeFree(blocks, start + n, rest);
                    freeLists.push(start + n, rest);
                }
                carved = capacity << Reference.GRANULE_BITS | start;
            } else {
                SliceHeader.setCapacityGranules(block, blocks.offsetInBlock(start), run);
                freeLists.push(start, run);
            }
            i = j;
        }
        return carved;
    }

    @Override
    public boolean delete(long ref) {
        long capacity = SliceStates.tryDelete(blocks, ref); // D1
        if (capacity < 0) {
            return false;
        }
        releasedGranules.add(capacity);
        words.addLive(-1);
        releaseLists.add(ref, this); // D2
        return true;
    }

    @Override
    public void deletePrivate(long ref) {
        long capacity = SliceStates.deletePrivate(blocks, ref);
        words.addLive(-1);
        freeLists.push(Reference.granule(ref), capacity);
    }

    /** R1-R3: called with a batch of deleted references, by the thread that filled or drained it. */
    @Override
    public void reclaim(long[] refs, int count) {
        words.advanceEra(); // R1
        long[] announced = hazards.announcedGranules(); // R2
        long[] kept = null;
        int keptCount = 0;
        for (int i = 0; i < count; i++) {
            long g = Reference.granule(refs[i]);
            if (announced.length > 0 && Arrays.binarySearch(announced, g) >= 0) {
                if (kept == null) {
                    kept = new long[Math.min(count, announced.length)];
                }
                kept[keptCount++] = refs[i];
                continue;
            }
            long capacity = SliceStates.tryFree(blocks, refs[i]); // R3
            if (capacity >= 0) {
                releasedGranules.add(-capacity);
                freeLists.push(g, capacity);
            }
        }
        for (int i = 0; i < keptCount; i++) {
            releaseLists.add(kept[i], this);
        }
    }

    @Override
    public long beginWrite(long ref) {
        if (Reference.isDeleted(ref) || ref == Reference.NULL) {
            return -1;
        }
        long token = hazards.announce(ref); // W1
        long g = Reference.granule(ref);
        MemorySegment block = blocks.block(g);
        long header = blocks.offsetInBlock(g);
        if (Reference.sameIncarnation(SliceHeader.stateVolatile(block, header), ref) // W2
                && SliceHeader.magic(block, header) == SliceHeader.MAGIC) {
            return token;
        }
        hazards.clear(token);
        return -1;
    }

    @Override
    public void endWrite(long token) {
        hazards.clear(token); // W4
    }

    @Override
    public boolean acceptTail(long granule, long granules) {
        if (granules < 2) {
            return false; // a lone granule cannot hold a header and a link
        }
        SliceStates.initializeFree(blocks, granule, granules);
        freeLists.push(granule, granules);
        return true;
    }

    @Override
    public long releasedBytes() {
        return releasedGranules.sum() << SliceHeader.GRANULE_SHIFT;
    }

    @Override
    public long freeBytes() {
        return freeLists.freeBytes();
    }

    @Override
    public long liveSlices() {
        return words.liveSlices();
    }

    /** Runs R1-R3 on every release stripe's partial batch now; for tests and for {@link Pool#reclaimNow()}. */
    void reclaimAll() {
        releaseLists.drainAll(this);
    }

    FreeLists freeLists() {
        return freeLists;
    }

    long era() {
        return words.era();
    }

    /**
     * Takes over the deleted slices that the release stripes in {@code other} hold, the area of a process that ended
     * without closing the file (or of one that closed it while a writer of another process held some of them), and
     * reclaims them with this process's at once (those a writer announces stay in this process's stripes). Returns
     * how many references it found.
     */
    long adopt(MemorySegment other) {
        long adopted = releaseLists.adopt(other, this, this::countReleased);
        releaseLists.drainAll(this);
        return adopted;
    }

    /** How many deleted slices this allocator took up from its file's release area when it was made. */
    long takenUp() {
        return takenUp;
    }

    /** Counts an adopted slice as released here (until freed), unless it was freed already. */
    private void countReleased(long ref) {
        long g = Reference.granule(ref);
        MemorySegment block = blocks.block(g);
        long header = blocks.offsetInBlock(g);
        if (SliceStates.awaitsFree(block, header, SliceHeader.stateVolatile(block, header), ref)) {
            releasedGranules.add(SliceHeader.capacityGranules(block, header));
        }
    }

    /**
     * Leaves the allocator's state whole in its words, for a later pool over the same memory or another process's:
     * reclaims every release stripe's batch (a slice a writer of another process announces stays in this process's
     * stripes in the file, for the next process to take up the area). With no operation of this process running.
     */
    void save() {
        reclaimAll();
    }

    /**
     * After a killed process ({@link PoolSweep}): reserves the blocks below {@code reservedGranules}, frees every
     * granule of them outside the slices at {@code live} (header granules, sorted) and continues the bump pointer
     * where the sweep says, in era {@code era}. Before any use.
     */
    PoolSweep.Result recover(long[] live, long reservedGranules, long era) {
        blocks.restore(reservedGranules, 0);
        releaseLists.clear(); // the sweep frees every granule outside the live slices: those the stripes name,
        releasedGranules.reset(); // (counted when taken up)
        words.clearHeads(); // those on the lists
        words.clearCounts(); // and counts them
        PoolSweep.Result result = PoolSweep.sweep(blocks, freeLists, live, reservedGranules);
        blocks.restore(result.bump(), result.wastedGranules());
        words.setEra(era);
        words.addLive(live.length);
        return result;
    }

    /**
     * Continues from the words a clean close left or another process that has the file open keeps: reserves, for
     * this process, every block below the bump pointer. Before any use.
     */
    void restore() {
        blocks.reserveBelow(words.bump());
    }
}
