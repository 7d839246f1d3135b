package io.grove.internal.memory;

import io.grove.GroveOutOfMemoryException;
import io.grove.MemoryFootprint;
import io.grove.MemoryPool;
import io.grove.Reclamation;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The memory layer as the maps see it: slices named by {@link Reference}s, allocated and deleted through the
 * chosen {@link SliceAllocator}, read optimistically and written under a hazard announcement.
 *
 * <p>Access protocol for callers (Nova, Algorithm 1):
 * <ul>
 *   <li>Optimistic read: locate with {@link #segment}/{@link #payloadOffset}, read, then {@link #validate}. A
 *       read whose validation fails must be discarded: the bytes may belong to another slice.
 *   <li>Write to a shared slice: {@link #beginWrite} (fails with {@code -1} if the slice is gone), write,
 *       {@link #endWrite}. A private slice (just allocated, reference not yet published) is written directly.
 * </ul>
 * Accesses after {@link #close()} throw {@link IllegalStateException}, either from the checks here or from the
 * closed arena, which never lets a freed block be read.
 */
public final class Pool implements MemoryPool {
    /** 2<sup>34</sup> granules of 16 bytes: the most one pool can address (256 GiB). */
    public static final long MAX_ADDRESSABLE_BYTES = (Reference.GRANULE_MASK + 1) << SliceHeader.GRANULE_SHIFT;
    /** The bytes of one process's release stripes in a file's release area ({@link FileRegion#releases}). */
    public static final long RELEASE_AREA_BYTES =
            ReleaseLists.FILE_STRIPES * ReleaseLists.stripeBytes(NovaAllocator.BATCH_SIZE);
    /** The bytes of one process's counts in a file's count area ({@link FileRegion#counts}). */
    public static final long COUNT_AREA_BYTES = AllocatorWords.InFile.AREA_BYTES;
    /** The most bytes {@link #allocateFresh} takes from the bump pointer at once. */
    private static final int FRESH_RUN_BYTES = 64 * 1024;

    private final Blocks blocks;
    private final SliceAllocator allocator;
    private final Reclamation reclamation;
    private final long memoryLimit;
    /** The state record of a pool over a file ({@link PoolStateLayout}), else {@code null}. */
    private final MemorySegment state;
    /** Whether this pool only reads its file ({@link #forReading}): its close records nothing. */
    private final boolean readOnly;
    /** The record of this process in the file's process table; 0 for a pool in memory. */
    private final int processRecord;
    /** What to do with the file of a pool over one ({@link #overRegion}), else {@code null}. */
    private final FileHooks file;
    /** The hazard slots of every process that has the file open, for a pool over one; else {@code null}. */
    private final HazardSlots.InFile fileHazards;
    /** The release stripes of every process that has the file open, for a pool over one; else {@code null}. */
    private final MemorySegment fileReleases;
    /** Whether the file cannot be continued as recorded ({@link #recoveryCause}) and {@link #recover} has not run. */
    private boolean needsRecovery;
    /** Why the file could not be continued as recorded when opened; {@code null} if it could, or not a file. */
    private String recoveryCause;
    /** Whether no other process has this pool's file open: its close records the allocator state as closed. */
    private boolean lastToClose;
    /** What {@link #overRegion} salvaged of the process that ended in this process's record ({@link #inherited()}). */
    private Salvage inherited;
    /** Whether the close leaves the file marked open for its next open to recover ({@link #leaveForRecovery}). */
    private boolean leaveMarkedOpen;
    private volatile boolean closed;

    /**
     * The memory limit of a pool built without one (see {@link MemoryPool.Builder#memoryLimit}): half of what the
     * process may use ({@link PhysicalMemory}) beyond the Java heap's maximum, or the heap's maximum where the
     * physical memory is unknown; at least one block, at most {@link #MAX_ADDRESSABLE_BYTES}, in whole blocks.
     */
    public static long defaultMemoryLimit(int blockSize) {
        return defaultMemoryLimit(blockSize, PhysicalMemory.bytes(), Runtime.getRuntime().maxMemory());
    }

    static long defaultMemoryLimit(int blockSize, long physical, long maxHeap) {
        long heap = maxHeap == Long.MAX_VALUE ? 0 : maxHeap;
        long budget = physical > 0 ? (physical - heap) / 2 : heap;
        long limit = Math.min(MAX_ADDRESSABLE_BYTES, Math.max(blockSize, budget));
        return limit / blockSize * blockSize;
    }

    public Pool(int blockSize, long memoryLimit, Reclamation reclamation) {
        this(blockSize, memoryLimit, reclamation, new ArenaBlockSource());
    }

    /**
     * A pool whose blocks are mapped for transparent huge pages ({@link HugePageBlockSource}) where that works
     * (Linux on x86-64 or AArch64), from an arena elsewhere.
     *
     * @throws IllegalStateException where it works but Grove's module may not call native code: the JDK would
     *     print a warning at the first call, and Grove prints none
     */
    public static Pool withHugePages(int blockSize, long memoryLimit, Reclamation reclamation) {
        if (!HugePageBlockSource.supported()) {
            return new Pool(blockSize, memoryLimit, reclamation, new ArenaBlockSource());
        }
        Module grove = Pool.class.getModule();
        if (!grove.isNativeAccessEnabled()) {
            throw new IllegalStateException("huge pages are asked for with mmap and madvise, which Grove calls"
                    + " through the JDK's foreign linker: run the JVM with --enable-native-access="
                    + (grove.isNamed() ? grove.getName() : "ALL-UNNAMED"));
        }
        return new Pool(blockSize, memoryLimit, reclamation, new HugePageBlockSource());
    }

    Pool(int blockSize, long memoryLimit, Reclamation reclamation, BlockSource source) {
        this(blockSize, memoryLimit, reclamation, source, new AllocatorWords.OnHeap(classCount(blockSize)),
                new HazardSlots.OnHeap(), null, 0, null, null, false);
    }

    private Pool(int blockSize, long memoryLimit, Reclamation reclamation, BlockSource source, AllocatorWords words,
            HazardSlots hazards, MemorySegment releases, int processRecord, MemorySegment state, FileHooks file,
            boolean readOnly) {
        this.readOnly = readOnly;
        this.processRecord = processRecord;
        this.file = file;
        this.fileHazards = hazards instanceof HazardSlots.InFile inFile ? inFile : null;
        this.fileReleases = releases;
        this.blocks = new Blocks(blockSize, memoryLimit, source, words);
        this.memoryLimit = (long) blocks.maxBlocks * blockSize;
        this.reclamation = reclamation;
        this.state = state;
        this.allocator = switch (reclamation) {
            case NOVA -> releases == null ? new NovaAllocator(blocks, words, hazards)
                    : new NovaAllocator(blocks, words, hazards, releaseArea(releases, processRecord));
            case GROW_ONLY -> new GrowOnlyAllocator(blocks);
        };
    }

    /** The release stripes of the process in record {@code record} in a file's release area. */
    private static MemorySegment releaseArea(MemorySegment releases, int record) {
        return releases.asSlice(record * RELEASE_AREA_BYTES, RELEASE_AREA_BYTES);
    }

    /** The number of free-list size classes of a pool of blocks of {@code blockSize} bytes. */
    private static int classCount(int blockSize) {
        return FreeLists.classCount((long) blockSize >>> SliceHeader.GRANULE_SHIFT);
    }

    /**
     * The parts of a mapped file a pool over it uses: its block area ({@code blocks}), its allocator state record
     * ({@code state}), the hazard slots of every process that has it open ({@code hazards}), their release stripes
     * ({@code releases}: {@link #RELEASE_AREA_BYTES} per record of the process table), their counts of live slices
     * and free granules ({@code counts}: {@link #COUNT_AREA_BYTES} per record, whose sums are the counts),
     * this process's record in its process table ({@code processRecord}), whether this process opened it with no
     * other process having it open ({@code alone}), and whether it took that record over from a process that ended
     * without closing the file ({@code inherited}).
     */
    public record FileRegion(MemorySegment blocks, MemorySegment state, MemorySegment hazards,
            MemorySegment releases, MemorySegment counts, int processRecord, boolean alone, boolean inherited) {}

    /**
     * A Nova pool over a mapped file's {@code region}, whose allocator state is kept in the file for the processes
     * that have it open. Opened {@link FileRegion#alone() alone}: a record left by a clean {@link #close()} is
     * continued (same bump pointer, free lists and era, so every slice and reference of the earlier pool is valid
     * again), a zero one starts empty, and one that says the pool is open (its processes ended without closing it)
     * gives a pool that {@link #needsRecovery() needs recovery}; the hazard slots, which only processes that ended
     * filled, are emptied. Opened beside other processes: the pool goes on with what they keep in the file; in a
     * record {@link FileRegion#inherited() inherited} from a process that ended, it empties the hazard slots that
     * process left and takes up the deleted slices of its release stripes as its own ({@link #inherited}). Closing
     * records the state if this process is the last to close the file ({@link #beginClose}), forces the file if
     * {@code file} says so, and then runs its {@code close}.
     *
     * @throws IllegalStateException if the record is damaged
     */
    public static Pool overRegion(int blockSize, FileRegion region, FileHooks file) {
        MemorySegment state = region.state();
        long status = PoolStateLayout.status(state);
        if (status != PoolStateLayout.NEVER_USED && status != PoolStateLayout.OPEN
                && !PoolStateLayout.isClosed(status)) {
            throw new IllegalStateException("has a damaged pool state (status " + status + ")");
        }
        if (!region.alone() && status != PoolStateLayout.OPEN) {
            throw new IllegalStateException("is open in another process, and its pool state says it is not ("
                    + "status " + status + ")");
        }
        long limit = Math.min(MAX_ADDRESSABLE_BYTES, region.blocks().byteSize()) / blockSize * blockSize;
        BlockSource source = new RegionBlockSource(region.blocks(), state, file.takeSpace(), file.lockGrowth(),
                file.close());
        HazardSlots.InFile slots = new HazardSlots.InFile(region.hazards(), region.processRecord());
        if (region.alone()) {
            slots.clearAll(); // filled by processes that ended
        }
        int inheritedSlots = region.inherited() ? slots.clearOf(region.processRecord()) : 0;
        Pool pool = new Pool(blockSize, limit, Reclamation.NOVA, source,
                new AllocatorWords.InFile(state, region.counts(), region.processRecord(), classCount(blockSize)), slots,
                region.releases(), region.processRecord(), state, file, false);
        if (region.inherited()) {
            pool.inherited = new Salvage(inheritedSlots, ((NovaAllocator) pool.allocator).takenUp());
            PoolStateLayout.addSalvaged(state);
        }
        pool.lastToClose = region.alone();
        pool.recoveryCause = region.alone() ? recoveryCause(state) : null;
        pool.needsRecovery = pool.recoveryCause != null;
        if (pool.needsRecovery) {
            pool.blocks.reserveBelow(PoolStateLayout.reservedBytes(state) >> SliceHeader.GRANULE_SHIFT);
        } else {
            NovaAllocator nova = (NovaAllocator) pool.allocator;
            nova.restore();
            for (int r = 0; region.alone() && r < region.releases().byteSize() / RELEASE_AREA_BYTES; r++) {
                if (r != region.processRecord()) { // slices processes that closed kept for a writer of another
                    nova.adopt(releaseArea(region.releases(), r));
                }
            }
        }
        if (region.alone()) {
            PoolStateLayout.setBootId(state, BootId.CURRENT);
            PoolStateLayout.setStatus(state, PoolStateLayout.OPEN);
        }
        return pool;
    }

    /**
     * Why the pool in {@code state} cannot be continued as recorded, {@code null} if it can: its process did not
     * close it (killed, or the operating system stopped), or it was closed without being forced and the operating
     * system restarted since ({@link BootId}), so that its pages, written to the device in no order, may have
     * reached it in part, the record of the close among them.
     */
    private static String recoveryCause(MemorySegment state) {
        long status = PoolStateLayout.status(state);
        boolean restarted = PoolStateLayout.bootId(state).differsFrom(BootId.CURRENT);
        if (status == PoolStateLayout.OPEN) {
            return restarted
                    ? "was open when its process or the operating system stopped, and the system restarted since"
                            + " (what was not forced may have reached the disk in part)"
                    : "was not closed cleanly (its process was killed)";
        }
        return status == PoolStateLayout.CLOSED && restarted
                ? "was closed without being forced, and the operating system restarted since (its last changes may"
                        + " have reached the disk in part)"
                : null;
    }

    /**
     * Whether this pool's file was not closed cleanly, or not forced at its close before the operating system
     * restarted ({@link #recoveryCause()}): until {@link #recover} it may be read (every reserved block is), but
     * nothing may be allocated or deleted.
     */
    public boolean needsRecovery() {
        return needsRecovery;
    }

    /**
     * Why this pool's file needs recovery, as found when it was opened (a phrase to follow the file's name), or
     * {@code null} if it does not.
     */
    public String recoveryCause() {
        return recoveryCause;
    }

    /** What {@link #recover} did. */
    public record Recovery(long liveSlices, long sweptSlices, long sweptBytes, long freeBytes) {}

    /**
     * Completes the reopening of a pool whose process was killed ({@link #needsRecovery}): {@code live} holds the
     * reference of every slice its map can reach, all others are freed ({@link PoolSweep}).
     *
     * @throws IllegalStateException if the pool needs no recovery, or a reference in {@code live} is not a live
     *     slice of it or overlaps another one
     */
    public Recovery recover(long[] live) {
        if (!needsRecovery) {
            throw new IllegalStateException("the pool needs no recovery");
        }
        long[] granules = new long[live.length];
        for (int i = 0; i < live.length; i++) {
            if (!isLive(live[i])) {
                throw new IllegalStateException("not a live slice: " + Reference.toString(live[i]));
            }
            granules[i] = Reference.granule(live[i]);
        }
        Arrays.sort(granules);
        fileReleases.fill((byte) 0); // the sweep frees what every process's stripes name
        PoolStateLayout.clearSalvaged(state); // and counts anew
        PoolSweep.Result result = ((NovaAllocator) allocator).recover(granules,
                PoolStateLayout.reservedBytes(state) >> SliceHeader.GRANULE_SHIFT, eraAfter(live));
        needsRecovery = false;
        int shift = SliceHeader.GRANULE_SHIFT;
        return new Recovery(result.liveSlices(), result.sweptSlices(), result.sweptGranules() << shift,
                result.freeGranules() << shift);
    }

    /**
     * A pool that reads what other pools over {@code blockArea}, {@code state} and {@code counts} (a file's count
     * area, {@link FileRegion#counts}) left, for tools: it writes nothing, not even at close. If the file was closed
     * cleanly, its allocator state is continued; otherwise every block of the area is readable. The figures of
     * {@link #footprint()} are the file's counts when the pool was made.
     */
    public static Pool forReading(int blockSize, MemorySegment blockArea, MemorySegment state, MemorySegment counts,
            Runnable onClose) {
        long limit = Math.min(MAX_ADDRESSABLE_BYTES, blockArea.byteSize()) / blockSize * blockSize;
        BlockSource source = new RegionBlockSource(blockArea, null, null, null, onClose);
        Pool pool = new Pool(blockSize, limit, Reclamation.NOVA, source,
                AllocatorWords.OnHeap.copyOf(state, counts, classCount(blockSize)), new HazardSlots.OnHeap(), null, 0,
                state, null, true);
        NovaAllocator nova = (NovaAllocator) pool.allocator;
        pool.recoveryCause = recoveryCause(state);
        if (pool.closedCleanly()) {
            nova.restore();
        } else {
            pool.blocks.restore(limit >> SliceHeader.GRANULE_SHIFT, 0);
        }
        return pool;
    }

    /**
     * An era past the versions of {@code live}, so that Nova's invariant 3 holds again: the dead process's era went
     * on from the one its last clean close recorded, by less than a full turn of the versions (modulo their wrap).
     */
    private long eraAfter(long[] live) {
        long saved = Math.max(1, PoolStateLayout.era(state));
        int base = Reference.versionOfEra(saved);
        long ahead = 0;
        for (long ref : live) {
            ahead = Math.max(ahead, Math.floorMod(Reference.version(ref) - base, (long) Reference.VERSION_COUNT));
        }
        return saved + ahead + 1;
    }

    /**
     * What a pool over a file's mapping does with the file: {@code force} writes every changed page of the mapping
     * to the storage device and waits for it ({@link #force()}), {@code close} unmaps and closes the file after the
     * pool closed, {@code forceOnClose} says whether the close forces first, {@code takeSpace} makes the device
     * hold a range of the block area before a block there is first used, {@code lockGrowth} takes the lock
     * under which a process does so and records it (several processes may reserve blocks of one file), and
     * {@code beginClose} keeps other processes from opening or closing the file until it is closed and says whether
     * this process is the last to have it open, and {@code processes} tells a waiter about the process it waits for.
     */
    public record FileHooks(Runnable force, Runnable close, boolean forceOnClose, SpaceTaker takeSpace,
            Supplier<HeldLock> lockGrowth, BooleanSupplier beginClose, ProcessWatch processes) {}

    /** The processes that have a pool's file open, as a thread waiting for one of them sees them. */
    public interface ProcessWatch {
        /**
         * Whether the process in record {@code record} of the file's process table ended without closing the file
         * (its record's lock is free); a system call, for a thread that has waited a while.
         */
        boolean ended(int record);

        /** The process in record {@code record}, for a message: its id, start and when it opened the file. */
        String describe(int record);

        /**
         * Takes over record {@code record}, whose process ended without closing the file, for the calling thread to
         * repair what that process left: the lock to close once done, or {@code null} if another thread, of any
         * process, repairs it now.
         */
        HeldLock takeOver(int record);

        /** The file's name, for a message. */
        String file();

        /**
         * The records of the processes that had the file open and ended without closing it, and that no thread has
         * taken over and freed ({@link #free}); a system call per record taken.
         */
        int[] endedRecords();

        /**
         * Frees record {@code record}, which the calling thread took over ({@link #takeOver}) and whose process's
         * leftovers it salvaged: a process that opens the file may take it again.
         */
        void free(int record);

        /** How long a thread waits for a live process before it gives up. */
        long waitLimitNanos();
    }

    /** A lock of the file's (between processes), held until closed. */
    public interface HeldLock extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Makes the storage device hold bytes {@code [offset, offset + length)} of a file's block area, unused so
     * far, so that a full device is reported here and never by a store into the mapping (which raises SIGBUS).
     */
    @FunctionalInterface
    public interface SpaceTaker {
        /**
         * @throws io.grove.GroveOutOfMemoryException if the device has no room for them
         */
        void take(long offset, long length);
    }

    /**
     * Writes every change made so far to a pool over a file to the storage device and waits until it is written
     * (the file's {@code force}); nothing for a pool in memory.
     *
     * @throws IllegalStateException if the pool is closed
     */
    public void force() {
        checkOpen();
        if (file != null) {
            file.force().run();
        }
    }

    /**
     * The record of this process in the process table of the pool's file ({@link #overRegion}); 0 for a pool in
     * memory.
     */
    public int processRecord() {
        return processRecord;
    }

    /**
     * Sets what takes over the leftovers of processes that ended without closing this pool's file (its map's
     * {@code salvageEnded}) when an allocation finds no memory otherwise: it returns whether it found such a process,
     * and the allocation then tries again.
     */
    public void setSalvager(BooleanSupplier salvager) {
        ((NovaAllocator) allocator).setSalvager(salvager);
    }

    /** What {@link #salvage} found: hazard slots emptied, deleted slices taken from release stripes. */
    public record Salvage(int hazardSlots, long deletedSlices) {}

    /**
     * What this pool salvaged of the process that ended in the record it took over ({@link FileRegion#inherited()}),
     * when it was made; {@code null} if it took a free record, or is not over a file.
     */
    public Salvage inherited() {
        return inherited;
    }

    /**
     * Takes over what the process in record {@code record} of the pool's file left in the allocator when it ended
     * without closing the file, for the thread that took that record over ({@link ProcessWatch#takeOver}): empties the
     * hazard slots it left filled and reclaims the deleted slices of its release stripes with this process's
     * ({@link NovaAllocator#adopt}), so that their memory is reused (its counts stay in the file, where every process
     * reads them); counts it as salvaged in the file, since what it may have left outside the structures a salvage
     * reads (slices allocated and not linked yet) is found only by a recovery, to which the last close then leaves the
     * file.
     */
    public Salvage salvage(int record) {
        int hazards = fileHazards.clearOf(record);
        long slices = ((NovaAllocator) allocator).adopt(releaseArea(fileReleases, record));
        PoolStateLayout.addSalvaged(state);
        return new Salvage(hazards, slices);
    }

    /**
     * Begins the close of a pool over a file that is, or may be, open in other processes too: from now on no other
     * process opens or closes the file until this pool's {@link #close()} ends. Returns whether this process is the
     * last to have the file open, so that the close records the allocator state as closed (the caller first makes
     * every operation of its map end, and takes every segment's lock for good only if so); {@code true} for a pool
     * in memory. If another process ended without closing the file, salvaged or not ({@link #salvage}), the last close
     * leaves it marked open instead: slices that process allocated and had not linked, and the counts of the
     * allocations it was inside of, are known to no structure, and the next open's recovery sweeps and counts anew.
     */
    public synchronized boolean beginClose() {
        if (file != null) {
            lastToClose = file.beginClose().getAsBoolean();
            if (lastToClose && (file.processes().endedRecords().length > 0 || PoolStateLayout.salvaged(state) > 0)) {
                leaveMarkedOpen = true; // what they were inside of is named nowhere: the next open sweeps
            }
        }
        return file == null || lastToClose;
    }

    /**
     * Makes the close leave the file marked open, for the recovery of its next open: the map found it unsound (a
     * segment locked by a process that ended without closing it).
     */
    public synchronized void leaveForRecovery() {
        leaveMarkedOpen = true;
    }

    /** The processes that have this pool's file open ({@link #overRegion}); {@code null} for a pool in memory. */
    public ProcessWatch processes() {
        return file == null ? null : file.processes();
    }

    /** Whether this pool's memory is a file's ({@link #overRegion}). */
    public boolean inFile() {
        return state != null;
    }

    /**
     * Whether this pool's file was closed cleanly by its last writer and can be trusted as recorded (for a pool
     * {@link #forReading}; {@link #recoveryCause()} says why not).
     */
    public boolean closedCleanly() {
        return recoveryCause == null && PoolStateLayout.isClosed(PoolStateLayout.status(state));
    }

    /** Whether this pool's file was forced to its device at its last close (for a pool {@link #forReading}). */
    public boolean closedForced() {
        return PoolStateLayout.status(state) == PoolStateLayout.CLOSED_FORCED;
    }

    /** The reference a pool over a file keeps for its map across processes (0 if none). */
    public long root() {
        return PoolStateLayout.root(state);
    }

    /** Records {@code ref} as the pool's {@link #root()}. */
    public void setRoot(long ref) {
        PoolStateLayout.setRoot(state, ref);
    }

    /**
     * A new private slice of {@code length} bytes, header written, payload all zero (never bytes a removed slice
     * held, of whichever map on this pool).
     *
     * @throws IllegalArgumentException if {@code length} is negative or above {@link #maxSliceSize()}
     * @throws io.grove.GroveOutOfMemoryException if the memory limit leaves no room
     */
    public long allocate(int length) {
        checkAllocation(length);
        return allocator.allocate(length);
    }

    /**
     * As {@link #allocate} for {@code count} slices of {@code lengths[i]} bytes, whose references go to
     * {@code refs[i]}, from memory never used before only (the free lists are not used), and lying one after another
     * in that order, whatever other threads allocate meanwhile: they are carved out of runs of up to
     * {@value #FRESH_RUN_BYTES} bytes, each taken from the bump pointer at once (a run starts a new block where the
     * current one has no room left for it). Returns how many slices were allocated, the first ones: fewer than
     * {@code count} only once no fresh memory can be had (the memory limit, or the operating system refusing a
     * block), which is not thrown, so that a caller holding locks need only handle the slices missing.
     *
     * <p>Why runs: a map that lays its pairs out for scans copies a chunk's pairs into fresh slices one after
     * another; taken slice by slice, two threads laying out two chunks at once interleaved their pairs, and scans of
     * them ran at about 0.6x the speed of scans of pairs laid out one chunk at a time
     * ({@code docs/experiments/ordered-scans.md}, section 15).
     *
     * @throws IllegalArgumentException if a length is negative or above {@link #maxSliceSize()}
     */
    public int allocateFresh(int[] lengths, int count, long[] refs) {
        for (int i = 0; i < count; i++) {
            checkAllocation(lengths[i]);
        }
        long runGranules = Math.min(FRESH_RUN_BYTES >>> SliceHeader.GRANULE_SHIFT, blocks.granulesPerBlock);
        for (int done = 0; done < count; ) {
            int end = done;
            long run = 0;
            while (end < count && (end == done || run + allocator.sliceGranules(lengths[end]) <= runGranules)) {
                run += allocator.sliceGranules(lengths[end++]);
            }
            long g;
            try {
                g = blocks.bump(run, allocator);
            } catch (GroveOutOfMemoryException refused) {
                return done;
            }
            if (g < 0) {
                return done;
            }
            for (; done < end; done++) {
                long granules = allocator.sliceGranules(lengths[done]);
                refs[done] = allocator.publishFresh(g, granules, lengths[done]);
                g += granules;
            }
        }
        return count;
    }

    private void checkAllocation(int length) {
        checkOpen();
        if (length < 0 || length > maxSliceSize()) {
            throw new IllegalArgumentException("cannot allocate " + length + " bytes: a slice holds 0 to "
                    + maxSliceSize() + " bytes with a block size of " + blocks.blockSize);
        }
    }

    /** Deletes a shared slice; {@code false} if it was already deleted or {@code ref} is stale. */
    public boolean delete(long ref) {
        checkOpen();
        return allocator.delete(ref);
    }

    /** Deletes a slice whose reference no other thread has seen. */
    public void deletePrivate(long ref) {
        checkOpen();
        allocator.deletePrivate(ref);
    }

    /** The block holding {@code ref}'s slice. */
    public MemorySegment segment(long ref) {
        return blocks.block(Reference.granule(ref));
    }

    /** The offset of {@code ref}'s payload inside {@link #segment}. */
    public long payloadOffset(long ref) {
        return blocks.offsetInBlock(Reference.granule(ref)) + SliceHeader.SIZE;
    }

    /**
     * The payload length of a live slice, validated: throws {@link ConcurrentModificationException} if
     * {@code ref} is deleted or stale.
     */
    public int length(long ref) {
        long g = Reference.granule(ref);
        MemorySegment block = blocks.block(g);
        long header = blocks.offsetInBlock(g);
        long state = SliceHeader.stateAcquire(block, header);
        if (Reference.isDeleted(ref) || !Reference.sameIncarnation(state, ref)
                || SliceHeader.magic(block, header) != SliceHeader.MAGIC) {
            throw stale(ref);
        }
        return (int) SliceHeader.lengthOf(state);
    }

    /**
     * How many bytes after slice {@code from}'s header slice {@code to}'s header lies in the pool's addresses (negative
     * if before): a locality hint, since neighbouring blocks need not be neighbours in memory.
     */
    public static long distance(long from, long to) {
        return (Reference.granule(to) - Reference.granule(from)) << SliceHeader.GRANULE_SHIFT;
    }

    /** The granule of {@code ref}'s slice header: what a structure stores to name a slice without its version. */
    public static long granuleOf(long ref) {
        return Reference.granule(ref);
    }

    /**
     * The reference of the slice whose header is at {@code granule}, with the version that header holds now and no
     * deleted bit. Not validated: the slice may be deleted (then {@link #isLive} of the result is false) or the
     * granule no header at all, so a lock-free caller validates what it read through the result afterwards.
     */
    public long currentReference(long granule) {
        long state = SliceHeader.stateAcquire(blocks.block(granule), blocks.offsetInBlock(granule));
        return (state & Reference.VERSION_MASK) | granule;
    }

    /**
     * The payload length {@code ref}'s header records now, not validated: a lock-free reader checks afterwards that
     * what it read was the slice's own ({@link #length} is the validated form).
     */
    public int lengthUnchecked(long ref) {
        return lengthUnchecked(segment(ref), payloadOffset(ref));
    }

    /** As {@link #lengthUnchecked(long)} for the slice whose payload is at {@code payloadOffset} of {@code block}. */
    public int lengthUnchecked(MemorySegment block, long payloadOffset) {
        return (int) SliceHeader.lengthOf(SliceHeader.stateAcquire(block, payloadOffset - SliceHeader.SIZE));
    }

    /**
     * The payload length of {@code ref}'s slice if it is live now, else -1: {@link #isLive} and {@link #length} in
     * one reading of the header.
     */
    public int liveLength(long ref) {
        if (ref == Reference.NULL || Reference.isDeleted(ref)) {
            return -1;
        }
        long g = Reference.granule(ref);
        MemorySegment block = blocks.block(g);
        long header = blocks.offsetInBlock(g);
        long state = SliceHeader.stateAcquire(block, header);
        if (!Reference.sameIncarnation(state, ref) || SliceHeader.magic(block, header) != SliceHeader.MAGIC) {
            return -1;
        }
        return (int) SliceHeader.lengthOf(state);
    }

    /** Whether {@code ref}'s slice is live now. */
    public boolean isLive(long ref) {
        if (ref == Reference.NULL) {
            return false;
        }
        long g = Reference.granule(ref);
        return SliceHeader.isLive(blocks.block(g), blocks.offsetInBlock(g), ref);
    }

    /**
     * Completes an optimistic read: orders the reads before it, then checks that {@code ref}'s slice was live
     * throughout. Throws {@link ConcurrentModificationException} otherwise; what was read must then be dropped.
     */
    public void validate(long ref) {
        VarHandle.loadLoadFence();
        if (!isLive(ref)) {
            throw stale(ref);
        }
    }

    /** Announces a write to a shared slice: a token for {@link #endWrite}, or -1 if the slice is gone. */
    public long beginWrite(long ref) {
        checkOpen();
        return allocator.beginWrite(ref);
    }

    public void endWrite(long token) {
        allocator.endWrite(token);
    }

    public static ConcurrentModificationException stale(long ref) {
        return new ConcurrentModificationException(
                "the entry was removed (its memory may have been reused): " + Reference.toString(ref));
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the memory pool is closed");
        }
    }

    /** Reclaims every deleted slice that no writer holds now, instead of waiting for full batches. */
    public void reclaimNow() {
        checkOpen();
        if (allocator instanceof NovaAllocator nova) {
            nova.reclaimAll();
        }
    }

    SliceAllocator allocator() {
        return allocator;
    }

    Blocks blocks() {
        return blocks;
    }

    @Override
    public MemoryFootprint footprint() {
        checkOpen();
        long allocated = blocks.bumpedGranules() << SliceHeader.GRANULE_SHIFT;
        long released = allocator.releasedBytes();
        long free = allocator.freeBytes();
        long liveSlices = allocator.liveSlices();
        long live = Math.max(0, allocated - released - free - blocks.wastedBytes());
        return new MemoryFootprint(blocks.reservedBytes(), allocated, live, liveSlices * SliceHeader.SIZE,
                released, free, liveSlices);
    }

    @Override
    public long memoryLimit() {
        return memoryLimit;
    }

    @Override
    public int blockSize() {
        return blocks.blockSize;
    }

    @Override
    public int maxSliceSize() {
        return blocks.blockSize - SliceHeader.SIZE;
    }

    @Override
    public Reclamation reclamation() {
        return reclamation;
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            try {
                if (state != null && !readOnly && !needsRecovery && !leaveMarkedOpen) { // else it stays marked open
                    ((NovaAllocator) allocator).save();
                    if (!lastToClose) {
                        return; // the file stays open in other processes; the finally block leaves it
                    }
                    if (file.forceOnClose()) { // the status last: if the system stops before, the file was open
                        file.force().run();
                        PoolStateLayout.setStatus(state, PoolStateLayout.CLOSED_FORCED);
                        file.force().run();
                    } else {
                        PoolStateLayout.setStatus(state, PoolStateLayout.CLOSED);
                    }
                }
            } finally {
                blocks.close(); // even if the file could not be written (e.g. truncated by another program)
            }
        }
    }

    @Override
    public String toString() {
        return "MemoryPool[" + reclamation + ", blockSize=" + blocks.blockSize + ", limit=" + memoryLimit + ", "
                + (closed ? "closed" : footprint()) + "]";
    }
}
