package io.grove.internal.hash;

import io.grove.EvictionListener;
import io.grove.GroveFileException;
import io.grove.GroveHashMap;
import io.grove.MapStats;
import io.grove.MemoryFootprint;
import io.grove.ZeroCopyMap;
import io.grove.internal.file.FileHeader;
import io.grove.internal.file.MappedFile;
import io.grove.internal.file.ProcessTable;
import io.grove.internal.memory.Pool;
import io.grove.internal.sync.Backoff;
import io.grove.internal.sync.ScratchPool;
import io.grove.internal.view.SliceHandle;
import io.grove.internal.view.SliceStamp;
import io.grove.internal.view.SliceWriter;
import io.grove.serial.Serializer;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * {@link GroveHashMap}: the {@link java.util.concurrent.ConcurrentMap} contract over a {@link HashTable}.
 *
 * <p>Each single-key method serializes the key once into the thread's {@link Scratch}, picks the segment, and
 * either reads lock-free ({@link #findLinked}: a search retried until the segment's version is unchanged across
 * it, then {@link #readValueLockFree}: the value read under the entry's own stamp) or updates under the segment's
 * lock. New values are serialized into private slices before they are linked; a
 * value displaced by an update is deserialized (when the method returns it) before its slice is deleted. User
 * functions of {@code compute}, {@code computeIfAbsent}, {@code computeIfPresent} and {@code merge} run once,
 * under the lock; if one throws, the map is unchanged.
 */
public final class OffHeapHashMap<K, V> extends AbstractMap<K, V> implements GroveHashMap<K, V>, Budget.Victims {
    private final Pool pool;
    private final boolean ownsPool;
    final Serializer<K> keySerializer;
    final Serializer<V> valueSerializer;
    final HashTable table;
    /** For handles on values: a read that would wait for its own thread's in-place update throws instead. */
    final SliceHandle.WriterCheck valueWriters;
    /** Null unless the map is bounded. */
    private final ClockEviction clock;
    private final Budget budget;
    private final ScratchPool<Scratch> scratches;
    private final HashZeroCopy<K, V> zeroCopy;
    private volatile boolean closed;
    private Set<Entry<K, V>> entrySet;
    private Set<K> keySet;
    private Collection<V> values;
    private final EvictionListener<? super K, ? super V> evictionListener;
    /** Null unless the map records statistics. */
    private final LongAdder hits;
    private final LongAdder misses;
    private final LongAdder puts;
    private final LongAdder evictions;
    /** The thread of {@link Syncing#everyNanos()}, if the map is in a file and has one. */
    private volatile Thread syncer;

    /**
     * When a map in a file forces its changes to the storage device besides {@link #sync()}: at its close, and
     * every {@code everyNanos} nanoseconds (0: never).
     */
    public record Syncing(boolean onClose, long everyNanos) {}

    /** The bounds of a map and what it records; {@link Long#MAX_VALUE} means unbounded. */
    public record Bounds<K, V>(long maximumSize, long maximumBytes,
            EvictionListener<? super K, ? super V> listener, boolean recordStats) {}

    /** A new map whose entries all lie apart from its slots. */
    public OffHeapHashMap(Pool pool, boolean ownsPool, Serializer<K> keySerializer, Serializer<V> valueSerializer,
            long expectedSize, Bounds<K, V> bounds) {
        this(pool, ownsPool, keySerializer, valueSerializer, expectedSize, bounds, SLOT_CELLS);
    }

    /**
     * A new map whose slot arrays have cells of {@code cellBytes} bytes: {@link #SLOT_CELLS}, or
     * {@link #cellBytesFor} the entries that are to lie in them.
     *
     * @throws IllegalArgumentException if the cells are larger than 1/1,024 of the pool's block size
     */
    public OffHeapHashMap(Pool pool, boolean ownsPool, Serializer<K> keySerializer, Serializer<V> valueSerializer,
            long expectedSize, Bounds<K, V> bounds, long cellBytes) {
        this(pool, ownsPool, keySerializer, valueSerializer,
                newTable(pool, ownsPool, expectedSize, bounds, checkCellBytes(cellBytes, pool.blockSize())), bounds);
    }

    /** The cell size of a table of slots only, whose entries all lie apart. */
    public static final long SLOT_CELLS = SlotLayout.SLOT_CELL;

    /**
     * The cell size of a table whose entries lie in its cells when their serialized keys and values take at most
     * these bytes (both at least 0).
     */
    public static long cellBytesFor(int maxKeyBytes, int maxValueBytes) {
        return HashTable.cellBytesFor(maxKeyBytes, maxValueBytes);
    }

    /**
     * {@code cellBytes} if a pool of blocks of {@code blockSize} bytes takes cells of that size.
     *
     * @throws IllegalArgumentException if the cells are larger than 1/1,024 of the block size
     */
    public static int checkCellBytes(long cellBytes, int blockSize) {
        long most = blockSize / 1024;
        if (cellBytes > most) {
            throw new IllegalArgumentException("inlineEntries asks for cells of " + cellBytes + " bytes, more than the"
                    + " pool's block size (" + blockSize + " bytes) allows: at most " + most + " bytes, 1/1024 of it");
        }
        return (int) cellBytes;
    }

    /**
     * The map whose table is rooted at {@code directory} on {@code pool} ({@link #directory()} of a map built
     * earlier, whose object is gone): its entries, growth and budget are where that map left them. The caller
     * vouches that {@code bounds} and the serializers are the ones the table was built with.
     *
     * @throws IllegalStateException if {@code directory} is not the live directory of a table
     */
    public static <K, V> OffHeapHashMap<K, V> attach(Pool pool, boolean ownsPool, Serializer<K> keySerializer,
            Serializer<V> valueSerializer, long directory, Bounds<K, V> bounds) {
        HashTable table = new HashTable(pool, !ownsPool, directory);
        table.reopen();
        return new OffHeapHashMap<>(pool, ownsPool, keySerializer, valueSerializer, table, bounds);
    }

    /**
     * The map in the file at {@code path}: opened with its entries if the file exists (its settings must agree
     * with {@code header}'s), else created empty for {@code expectedSize} entries. The map owns the file's pool;
     * closing the map records the pool's state in the file and unmaps it. A file whose process was killed while it
     * had it open is recovered first ({@link #recover}). An operation waits at most {@code otherProcessWaitNanos} for
     * a segment another live process holds, and the open and the close as long for another process's open or close.
     *
     * @throws io.grove.GroveFileException if the file is not a sound Grove file, its process table is full (every
     *     record held by a live process or being salvaged), or it cannot be opened, created, mapped or recovered
     */
    public static <K, V> OffHeapHashMap<K, V> inFile(Path path, FileHeader header, Serializer<K> keySerializer,
            Serializer<V> valueSerializer, long expectedSize, Bounds<K, V> bounds, Syncing syncing,
            long otherProcessWaitNanos) {
        MappedFile file = MappedFile.openOrCreate(path, header, otherProcessWaitNanos);
        Pool pool;
        try {
            pool = Pool.overRegion(header.blockSize(),
                    new Pool.FileRegion(file.blocks(), file.state(), file.hazards(), file.releases(), file.counts(),
                            file.processRecord(), file.alone(), file.inherited() != null),
                    new Pool.FileHooks(file::force, file::close, syncing.onClose(), file::takeBlockSpace,
                            file::lockGrowth, file::beginClose, file.processWatch(otherProcessWaitNanos)));
        } catch (IllegalStateException e) {
            file.close();
            throw new GroveFileException(file.name(), e.getMessage(), e);
        }
        try {
            if (pool.needsRecovery()) {
                recover(file.name(), pool, bounds, header.cellBytes(), file.departed());
            }
            OffHeapHashMap<K, V> map;
            if (pool.root() != 0) {
                map = attach(pool, true, keySerializer, valueSerializer, pool.root(), bounds);
                if (map.table.cellBytes() != header.cellBytes()) {
                    throw new GroveFileException(file.name(), "has a table of cells of " + map.table.cellBytes()
                            + " bytes, and its header records " + header.cellBytes());
                }
            } else {
                map = new OffHeapHashMap<>(pool, true, keySerializer, valueSerializer, expectedSize, bounds,
                        header.cellBytes());
                pool.setRoot(map.directory());
            }
            if (file.inherited() != null) {
                salvageInherited(map, pool, file);
            }
            if (syncing.everyNanos() > 0) {
                map.syncEvery(syncing.everyNanos(), file.name());
            }
            file.admitOthers();
            pool.setSalvager(map.table::salvageEnded);
            if (!file.alone()) {
                salvageEnded(map, file.name());
            }
            return map;
        } catch (RuntimeException | Error e) {
            pool.close();
            throw e;
        }
    }

    /**
     * Opening in the record of a process that ended without closing the file, for want of a free one: the pool took
     * up that process's hazard slots and release stripes; repairs the segments it left locked and logs it.
     *
     * @throws io.grove.GroveFileException if a segment it left is damaged beyond what a kill leaves: the open fails,
     *     giving the record back to that process (the other processes meet the segment as it left it) and leaving
     *     the file to the recovery of its next open alone
     */
    private static void salvageInherited(OffHeapHashMap<?, ?> map, Pool pool, MappedFile file) {
        long started = System.nanoTime();
        String ended = file.inherited().toString();
        String segments;
        try {
            segments = map.table.repairInherited(ended);
        } catch (IllegalStateException damaged) {
            pool.leaveForRecovery();
            file.giveBackInherited();
            throw new GroveFileException(file.name(), damaged.getMessage(), damaged);
        }
        Pool.Salvage salvaged = pool.inherited();
        System.getLogger(OffHeapHashMap.class.getName()).log(System.Logger.Level.WARNING, () -> file.name() + ": "
                + ended + " ended without closing the file; this process took its record over, its process table"
                + " having no free record, and salvaged in " + (System.nanoTime() - started) / 1_000_000 + " ms: "
                + segments + ", " + salvaged.hazardSlots() + " hazard slots emptied, " + salvaged.deletedSlices()
                + " deleted slices of its release stripes taken up");
    }

    /**
     * Joining processes that have the file open: salvages what processes that had it open and ended without closing it
     * left ({@link HashTable#salvageEnded}; a process restarted after a kill so takes over what its predecessor left).
     * A segment damaged beyond what a kill leaves is logged, not thrown: the open succeeds, and operations on that
     * segment fail naming it until the recovery of the whole file.
     */
    private static void salvageEnded(OffHeapHashMap<?, ?> map, String name) {
        try {
            map.table.salvageEnded();
        } catch (IllegalStateException damaged) {
            System.getLogger(OffHeapHashMap.class.getName()).log(System.Logger.Level.WARNING, name + ": "
                    + damaged.getMessage(), damaged);
        }
    }

    /**
     * Reopening a file whose process was killed: repairs the table ({@link TableRecovery}), frees every slice it
     * does not reach ({@link Pool#recover}) and logs what was recovered (a warning: the file was not closed), and
     * which processes had it open and ended without closing it ({@code departed}).
     *
     * @throws io.grove.GroveFileException if the file's structure is damaged beyond what a kill leaves
     */
    private static void recover(String name, Pool pool, Bounds<?, ?> bounds, int cellBytes,
            List<ProcessTable.Process> departed) {
        long started = System.nanoTime();
        TableRecovery.Result table;
        Pool.Recovery memory;
        try {
            table = pool.root() == 0 ? null
                    : TableRecovery.repair(pool, pool.root(), cellBytes, bounds.maximumSize(),
                            bounds.maximumBytes());
            memory = pool.recover(table == null ? new long[0] : table.live());
            if (table != null) {
                TableRecovery.replaceTags(pool, pool.root(), cellBytes, table.taglessSegments());
            }
        } catch (IllegalStateException | IndexOutOfBoundsException e) {
            throw new GroveFileException(name, pool.recoveryCause() + " and cannot be recovered: " + e.getMessage(),
                    e);
        }
        String tableReport = table == null ? "no table yet" : table.describe();
        System.getLogger(OffHeapHashMap.class.getName()).log(System.Logger.Level.WARNING, () -> name + " "
                + pool.recoveryCause() + endedProcesses(departed) + "; recovered in "
                + (System.nanoTime() - started) / 1_000_000 + " ms: " + tableReport + "; "
                + memory.liveSlices() + " live slices kept, " + memory.sweptSlices() + " unreachable slices ("
                + memory.sweptBytes() + " bytes) freed, " + memory.freeBytes() + " bytes free in all");
    }

    /** The processes that ended without closing the file, for the recovery's log: the first few, and a count. */
    private static String endedProcesses(List<ProcessTable.Process> departed) {
        int named = 8;
        if (departed.isEmpty()) {
            return "";
        }
        return "; " + departed.stream().limit(named).map(String::valueOf).collect(Collectors.joining("; "))
                + (departed.size() > named ? " and " + (departed.size() - named) + " more processes" : "")
                + " ended without closing it";
    }

    private static HashTable newTable(Pool pool, boolean ownsPool, long expectedSize, Bounds<?, ?> bounds,
            int cellBytes) {
        int segments = HashTable.segmentCount(expectedSize, bounds.maximumSize(), pool.memoryLimit(),
                pool.maxSliceSize(), cellBytes);
        long tableBytes = HashTable.slotBytesAt(expectedSize, segments, cellBytes);
        if (tableBytes > pool.memoryLimit()) {
            throw new IllegalArgumentException("expectedSize " + expectedSize + " needs at least " + tableBytes
                    + " bytes of slot and tag arrays alone, more than the memory limit of " + pool.memoryLimit()
                    + " bytes");
        }
        int slotBits = HashTable.initialSlotBits(expectedSize, segments, pool.maxSliceSize(), pool.inFile(),
                cellBytes);
        return new HashTable(pool, !ownsPool, segments, slotBits, Budget.initialFree(bounds.maximumSize()),
                Budget.initialFree(bounds.maximumBytes()), cellBytes);
    }

    private OffHeapHashMap(Pool pool, boolean ownsPool, Serializer<K> keySerializer, Serializer<V> valueSerializer,
            HashTable table, Bounds<K, V> bounds) {
        this.pool = pool;
        this.ownsPool = ownsPool;
        this.keySerializer = keySerializer;
        this.valueSerializer = valueSerializer;
        this.table = table;
        this.valueWriters = table::checkValueWriter;
        boolean bounded = bounds.maximumSize() != Long.MAX_VALUE || bounds.maximumBytes() != Long.MAX_VALUE;
        this.clock = bounded ? new ClockEviction(table, pool) : null;
        this.budget = bounded ? new Budget(table, clock, bounds.maximumSize(), bounds.maximumBytes()) : null;
        this.evictionListener = bounds.listener();
        this.hits = bounds.recordStats() ? new LongAdder() : null;
        this.misses = bounds.recordStats() ? new LongAdder() : null;
        this.puts = bounds.recordStats() ? new LongAdder() : null;
        this.evictions = bounds.recordStats() ? new LongAdder() : null;
        this.scratches = new ScratchPool<>(() -> new Scratch(pool));
        this.zeroCopy = new HashZeroCopy<>(this);
    }

    /** The reference of the table's directory, which {@link #attach} takes to find the table again. */
    public long directory() {
        return table.directory();
    }

    // ---- shared steps ------------------------------------------------------------------------------------------

    Pool pool() {
        return pool;
    }

    /** Checks the map is open, takes the thread's scratch and serializes {@code key} into it. */
    @SuppressWarnings("unchecked")
    Scratch begin(Object key) {
        if (closed) {
            throw new IllegalStateException("the map is closed");
        }
        Objects.requireNonNull(key, "key");
        Scratch scratch = scratches.acquire();
        try {
            scratch.setKey(keySerializer, (K) key, maxKeyLength());
        } catch (RuntimeException | Error e) {
            scratch.release();
            throw e;
        }
        return scratch;
    }

    /**
     * Takes segment {@code s}'s lock for the operation that uses {@code scratch} ({@link #finish} releases both);
     * releases the scratch if the lock cannot be taken (the map was closed, or the calling thread holds it).
     */
    void lock(int s, Scratch scratch) {
        try {
            scratch.lockToken = table.lock(s);
        } catch (RuntimeException | Error e) {
            scratch.release();
            throw e;
        }
    }

    /** The largest key an entry can hold: one with an empty value fills the pool's largest slice. */
    private int maxKeyLength() {
        return pool.maxSliceSize() - EntryLayout.KEY;
    }

    /** A new private entry holding the scratch's key and {@code value}, not linked yet. */
    long newEntry(int s, V value, int size, Scratch scratch) {
        if (!scratch.keyFits()) {
            throw scratch.keyTooLarge(maxKeyLength(), "an entry holds its fields, key and value in one slice of at"
                    + " most " + pool.maxSliceSize() + " bytes");
        }
        long e = table.newEntry(s, scratch, size);
        try { // (not SliceWriter.writeOrDelete: the segment's intent must be cleared before the slice is deleted)
            SliceWriter.writeInto(valueSerializer, value, size, scratch.writeView, pool.segment(e),
                    table.valueOffset(e));
        } catch (RuntimeException | Error failed) {
            table.discard(s, e);
            throw failed;
        }
        table.seal(e);
        return e;
    }

    /** Under the lock: deserializes entry {@code e}'s value. */
    V readValue(long e, Scratch scratch) {
        return read(valueSerializer, e, table.valueOffset(e), table.valueLength(e), scratch);
    }

    /**
     * Deserializes entry {@code e}'s key: under the lock, or lock-free once a version check that followed the
     * search showed {@code e} linked (a lock-free caller validates afterwards that the bytes were still its own).
     */
    K readKey(long e, Scratch scratch) {
        return readKey(e, table.keyLength(e), scratch);
    }

    /** Deserializes the {@code length} key bytes of entry {@code e}. */
    K readKey(long e, int length, Scratch scratch) {
        return read(keySerializer, e, table.keyOffset(e), length, scratch);
    }

    /** Deserializes a key from its serialized bytes on the heap (all of {@code bytes}). */
    K readKey(MemorySegment bytes, Scratch scratch) {
        return read(keySerializer, bytes, 0, (int) bytes.byteSize(), scratch);
    }

    private <T> T read(Serializer<T> serializer, long ref, long offset, int length, Scratch scratch) {
        return read(serializer, pool.segment(ref), offset, length, scratch);
    }

    private <T> T read(Serializer<T> serializer, MemorySegment segment, long offset, int length, Scratch scratch) {
        scratch.readView.open(segment, offset, length, false);
        try {
            return serializer.read(scratch.readView);
        } finally {
            scratch.readView.close();
        }
    }

    /** Under the lock, after {@link HashTable#findLocked} found nothing: links a new entry holding {@code value}. */
    void insertNew(int s, Scratch scratch, V value) {
        table.makeRoomForOne(s);
        long fresh = newEntry(s, value, SliceWriter.sizeOf(valueSerializer, value), scratch);
        try {
            if (budget != null) {
                long size = pool.length(fresh);
                budget.reserve(s, 1, size, size, 0, scratch, this);
            }
        } catch (RuntimeException | Error e) {
            table.discard(s, fresh);
            throw e;
        }
        table.insert(s, scratch, fresh);
        count(puts);
    }

    /**
     * Under the lock: replaces entry {@code entry}'s value by {@code value}. A value of the same size (up to
     * {@link Scratch#MAX_VALUE_BUFFER} bytes) is serialized into the scratch and copied over the old one in place
     * ({@link HashTable#replaceValue}: no mutation of the segment, and in memory no allocation; a table in a file
     * saves the old value first); otherwise a new entry holding the same key and {@code value} takes the old one's
     * place. Either way, handles on the old value fail.
     */
    void replaceWith(int s, long entry, V value, Scratch scratch) {
        int size = SliceWriter.sizeOf(valueSerializer, value);
        if (size <= Scratch.MAX_VALUE_BUFFER && table.replacesValueInPlace(entry, size)) {
            MemorySegment bytes = scratch.valueBuffer(size);
            SliceWriter.writeInto(valueSerializer, value, size, scratch.writeView, bytes, 0);
            table.replaceValue(s, entry, bytes, size);
            count(puts);
            return;
        }
        long fresh = newEntry(s, value, size, scratch);
        boolean mayMove = budget != null && HashTable.isInline(entry);
        long version = mayMove ? table.awaitStable(s) : 0; // under the lock: the segment's version, even
        long grown;
        try {
            grown = reserveGrowth(s, entry, fresh, scratch);
        } catch (RuntimeException | Error e) {
            table.discard(s, fresh);
            throw e;
        }
        if (mayMove && !table.isStable(s, version)) {
            entry = table.findLocked(s, scratch); // the reservation evicted in this segment: its shift may have moved
        }
        table.replace(s, scratch.keyHash(), entry, fresh);
        releaseShrink(s, grown);
        count(puts);
    }

    /**
     * Under the lock, before the private entry {@code fresh} replaces entry {@code entry}: reserves the bytes by
     * which it is larger in a bounded map (evicting, never {@code entry}; but an entry in its cell may be shifted to
     * another cell, so its reference must be found again). Returns the growth in bytes (negative if smaller), for
     * {@link #releaseShrink} after the replacement.
     */
    long reserveGrowth(int s, long entry, long fresh, Scratch scratch) {
        long size = pool.length(fresh);
        long grown = size - table.entryBytes(entry);
        if (budget != null) {
            budget.reserve(s, 0, grown, size, table.identity(entry), scratch, this);
        }
        return grown;
    }

    /** Whether the map is bounded ({@code maximumSize} or {@code maximumBytes}): insertions may evict. */
    boolean isBounded() {
        return budget != null;
    }

    /** Under the lock, after a replacement that changed an entry's size by {@code grown} bytes. */
    void releaseShrink(int s, long grown) {
        if (budget != null && grown < 0) {
            budget.release(s, 0, -grown);
        }
    }

    /** Under the lock, after {@link HashTable#findLocked} found {@code e}: unlinks and deletes it. */
    void unlink(int s, Scratch scratch, long e) {
        long size = table.entryBytes(e);
        table.unlink(s, scratch.keyHash(), e);
        if (budget != null) {
            budget.release(s, 1, size);
        }
    }

    /** Under the lock of the victim's segment: records it for the eviction listener. */
    @Override
    public void evicting(long e, Scratch scratch) {
        if (evictionListener != null) {
            scratch.evicted(readKey(e, scratch), readValue(e, scratch));
        }
        count(evictions);
    }

    /** Ends a locked operation: unlocks, tells the listener of its evictions, frees the scratch. */
    @SuppressWarnings("unchecked")
    void finish(int s, Scratch scratch) {
        table.unlock(s, scratch.lockToken);
        try {
            for (int i = 0; i < scratch.evictedCount(); i++) {
                try {
                    evictionListener.onEviction((K) scratch.evictedKey(i), (V) scratch.evictedValue(i));
                } catch (RuntimeException e) {
                    System.getLogger(OffHeapHashMap.class.getName()).log(System.Logger.Level.WARNING,
                            "the eviction listener threw", e);
                }
            }
        } finally {
            scratch.clearEvicted();
            scratch.release();
        }
    }

    /** Records a read's outcome in segment {@code s}: statistics, and the CLOCK counter of a bounded map. */
    void recordRead(int s, long entry) {
        if (entry != 0) {
            count(hits);
            if (clock != null) {
                clock.touch(s, entry);
            }
        } else {
            count(misses);
        }
    }

    private static void count(LongAdder counter) {
        if (counter != null) {
            counter.increment();
        }
    }

    // ---- ConcurrentMap ------------------------------------------------------------------------------------------

    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
        Scratch scratch = begin(key);
        try {
            int s = table.segmentOf(scratch.keyHash());
            while (true) {
                long e = findLinked(s, scratch);
                Object value = e == 0 ? null : readValueLockFree(s, scratch.version, e,
                        table.valueOffset(e, scratch.keyLength()), scratch.valueLength, scratch);
                if (value != REMOVED) {
                    recordRead(s, e);
                    return (V) value;
                }
            }
        } finally {
            scratch.release();
        }
    }

    /**
     * The optimistic search every lock-free read starts with: the entry holding the key in {@code scratch}, or 0,
     * as segment {@code s} was at the final version check (the linearization point of a miss); retries while a
     * mutation overlaps the search. Leaves in the scratch the version checked and the entry's value length, read
     * before that check and so the entry's own ({@link Scratch#version}, {@link Scratch#valueLength}).
     */
    long findLinked(int s, Scratch scratch) {
        while (true) {
            long version = table.awaitStable(s);
            long e;
            try {
                e = table.findLockFree(s, scratch);
                if (e == HashTable.RETRY) {
                    checkNotCorrupted(s, version);
                    continue;
                }
                scratch.valueLength = e == 0 ? 0 : table.valueLength(e);
            } catch (RuntimeException stale) { // a stale reference led into reused memory
                if (table.isStable(s, version)) {
                    throw stale;
                }
                continue;
            }
            if (table.isStable(s, version)) {
                scratch.version = version;
                return e;
            }
        }
    }

    /**
     * The entry holding the key in {@code scratch}, in a slice of its own, or 0 if the key is absent: for a
     * zero-copy handle, which must not move with a cell. An entry lying in its cell is moved apart first
     * ({@link HashTable#spill}). Takes segment {@code s}'s lock; linearizes at the locked search.
     */
    long findApart(int s, Scratch scratch) {
        long token = table.lock(s);
        try {
            long e = table.findLocked(s, scratch);
            return e == 0 ? 0 : table.spill(s, e);
        } finally {
            table.unlock(s, token);
        }
    }

    /** What {@link #readValueLockFree} returns when the entry was removed or replaced meanwhile: search again. */
    static final Object REMOVED = new Object();

    /**
     * Lock-free: deserializes entry {@code e}'s value consistently with its in-place updates. The entry was found
     * linked in segment {@code s} by a read validated at {@code version}; {@code valueOffset} and
     * {@code valueLength} are its value's place, read before that validation or checked after (this method's own
     * final check covers them). Reads between two equal even readings of the entry's stamp
     * ({@link EntryLayout}), waiting while an in-place update of this very entry runs: readers of other keys never
     * wait for it, as the segment's version does not move. Returns {@link #REMOVED} if the entry was removed or
     * replaced before its value could be read; the value returned was the key's at a moment of the call: at the
     * first stamp reading if the entry was linked then, else just before the mutation that unlinked it (its value
     * does not change once it is unlinked, and that mutation followed the search).
     */
    Object readValueLockFree(int s, long version, long e, long valueOffset, int valueLength, Scratch scratch) {
        long since = 0;
        for (int spins = 0; ; spins++) {
            long stamp = table.stampAcquire(e);
            if (SliceStamp.isWriting(stamp)) {
                if (!table.isIntact(s, version, e)) {
                    return REMOVED;
                }
                table.checkNotHeldByCaller(s);
                since = table.watchHolder(s, spins, since);
                Backoff.pause(spins);
                continue;
            }
            V value;
            try {
                value = read(valueSerializer, e, valueOffset, valueLength, scratch);
            } catch (RuntimeException | Error failure) { // what a deserializer may throw on moving bytes (Serializer)
                if (table.stampUnchanged(e, stamp) && table.isIntact(s, version, e)) {
                    throw failure; // the deserializer failed on the entry's own, unchanged bytes
                }
                if (!table.isIntact(s, version, e)) {
                    return REMOVED;
                }
                continue;
            }
            if (table.stampUnchanged(e, stamp)) {
                return table.isIntact(s, version, e) ? value : REMOVED;
            }
        }
    }

    void checkNotCorrupted(int s, long version) {
        if (table.isStable(s, version)) {
            throw new IllegalStateException("segment " + s + " has a slot array with no empty slot");
        }
    }

    @Override
    public boolean containsKey(Object key) {
        Scratch scratch = begin(key);
        try {
            return findLinked(table.segmentOf(scratch.keyHash()), scratch) != 0;
        } finally {
            scratch.release();
        }
    }

    @Override
    public V put(K key, V value) {
        Objects.requireNonNull(value, "value");
        return update(key, value, null, Mode.PUT);
    }

    @Override
    public V putIfAbsent(K key, V value) {
        Objects.requireNonNull(value, "value");
        return update(key, value, null, Mode.PUT_IF_ABSENT);
    }

    @Override
    public V replace(K key, V value) {
        Objects.requireNonNull(value, "value");
        return update(key, value, null, Mode.REPLACE);
    }

    @Override
    public V remove(Object key) {
        return update(key, null, null, Mode.REMOVE);
    }

    @Override
    public boolean remove(Object key, Object value) {
        Objects.requireNonNull(key, "key");
        if (value == null) {
            return false;
        }
        return update(key, null, value, Mode.REMOVE_IF_EQUAL) != null;
    }

    @Override
    public boolean replace(K key, V oldValue, V newValue) {
        Objects.requireNonNull(oldValue, "oldValue");
        Objects.requireNonNull(newValue, "newValue");
        return update(key, newValue, oldValue, Mode.REPLACE_IF_EQUAL) != null;
    }

    private enum Mode { PUT, PUT_IF_ABSENT, REPLACE, REMOVE, REMOVE_IF_EQUAL, REPLACE_IF_EQUAL }

    /**
     * The updates that return the previous value. For the conditional modes, returns non-null exactly when the
     * condition held and the update was made.
     */
    private V update(Object key, V value, Object expected, Mode mode) {
        Scratch scratch = begin(key);
        int s = table.segmentOf(scratch.keyHash());
        lock(s, scratch);
        try {
            long e = table.findLocked(s, scratch);
            if (e == 0) {
                if (mode == Mode.PUT || mode == Mode.PUT_IF_ABSENT) {
                    insertNew(s, scratch, value);
                }
                return null;
            }
            V old = readValue(e, scratch);
            switch (mode) {
                case PUT, REPLACE -> replaceWith(s, e, value, scratch);
                case PUT_IF_ABSENT -> { }
                case REMOVE -> unlink(s, scratch, e);
                case REMOVE_IF_EQUAL -> {
                    if (!old.equals(expected)) {
                        return null;
                    }
                    unlink(s, scratch, e);
                }
                case REPLACE_IF_EQUAL -> {
                    if (!old.equals(expected)) {
                        return null;
                    }
                    replaceWith(s, e, value, scratch);
                }
            }
            return old;
        } finally {
            finish(s, scratch);
        }
    }

    @Override
    public V computeIfAbsent(K key, Function<? super K, ? extends V> mappingFunction) {
        Objects.requireNonNull(mappingFunction, "mappingFunction");
        Scratch scratch = begin(key);
        int s = table.segmentOf(scratch.keyHash());
        lock(s, scratch);
        try {
            long e = table.findLocked(s, scratch);
            if (e != 0) {
                return readValue(e, scratch);
            }
            V value = mappingFunction.apply(key);
            if (value != null) {
                insertNew(s, scratch, value);
            }
            return value;
        } finally {
            finish(s, scratch);
        }
    }

    @Override
    public V computeIfPresent(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
        Objects.requireNonNull(remappingFunction, "remappingFunction");
        return remap(key, null, remappingFunction, false);
    }

    @Override
    public V compute(K key, BiFunction<? super K, ? super V, ? extends V> remappingFunction) {
        Objects.requireNonNull(remappingFunction, "remappingFunction");
        return remap(key, null, remappingFunction, true);
    }

    @Override
    public V merge(K key, V value, BiFunction<? super V, ? super V, ? extends V> remappingFunction) {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(remappingFunction, "remappingFunction");
        return remap(key, value, (k, old) -> remappingFunction.apply(old, value), true);
    }

    /**
     * compute, computeIfPresent and merge: under the lock, applies {@code function} to the present value (or, if
     * {@code whenAbsent}, to {@code null} — merge inserts {@code absentValue} instead) and stores or removes.
     */
    private V remap(K key, V absentValue, BiFunction<? super K, ? super V, ? extends V> function,
            boolean whenAbsent) {
        Scratch scratch = begin(key);
        int s = table.segmentOf(scratch.keyHash());
        lock(s, scratch);
        try {
            long e = table.findLocked(s, scratch);
            if (e == 0) {
                if (!whenAbsent) {
                    return null;
                }
                V value = absentValue != null ? absentValue : function.apply(key, null);
                if (value != null) {
                    insertNew(s, scratch, value);
                }
                return value;
            }
            V value = function.apply(key, readValue(e, scratch));
            if (value == null) {
                unlink(s, scratch, e);
            } else {
                replaceWith(s, e, value, scratch);
            }
            return value;
        } finally {
            finish(s, scratch);
        }
    }

    @Override
    public int size() {
        return (int) Math.min(Integer.MAX_VALUE, mappingCount());
    }

    /** The number of entries as a {@code long}; exact when no update runs. */
    public long mappingCount() {
        checkOpen();
        long n = 0;
        for (int s = 0; s < table.segmentCount(); s++) {
            n += table.count(s);
        }
        return n;
    }

    @Override
    public boolean isEmpty() {
        return mappingCount() == 0;
    }

    @Override
    public boolean containsValue(Object value) {
        Objects.requireNonNull(value, "value");
        for (Entry<K, V> entry : entrySet()) {
            if (value.equals(entry.getValue())) {
                return true;
            }
        }
        return false;
    }

    /** Removes every entry, one segment at a time (atomic per segment, not as a whole). */
    @Override
    public void clear() {
        checkOpen();
        for (int s = 0; s < table.segmentCount(); s++) {
            long token = table.lock(s);
            try {
                long entries = table.count(s);
                long bytes = table.bytes(s);
                table.clear(s);
                if (budget != null) {
                    budget.release(s, entries, bytes);
                }
            } finally {
                table.unlock(s, token);
            }
        }
    }

    @Override
    public Set<Entry<K, V>> entrySet() {
        Set<Entry<K, V>> view = entrySet;
        return view != null ? view : (entrySet = new HashViews.EntrySetView<>(this));
    }

    @Override
    public Set<K> keySet() {
        Set<K> view = keySet;
        return view != null ? view : (keySet = new HashViews.KeySetView<>(this));
    }

    @Override
    public Collection<V> values() {
        Collection<V> view = values;
        return view != null ? view : (values = new HashViews.ValuesView<>(this));
    }

    Scratch scratchForIteration() {
        checkOpen();
        return scratches.acquire();
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the map is closed");
        }
    }

    // ---- Grove ---------------------------------------------------------------------------------------------------

    @Override
    public MapStats stats() {
        checkOpen();
        return hits == null ? new MapStats(0, 0, 0, 0)
                : new MapStats(hits.sum(), misses.sum(), puts.sum(), evictions.sum());
    }

    @Override
    public ZeroCopyMap<K, V> zc() {
        return zeroCopy; // obtaining the view never throws; using it after close() does
    }

    @Override
    public MemoryFootprint footprint() {
        checkOpen();
        return pool.footprint();
    }

    @Override
    public void sync() {
        if (closed) {
            throw new IllegalStateException("the map is closed");
        }
        pool.force();
    }

    /**
     * Starts the thread that forces the file every {@code nanos} ns until the map closes ({@link Syncing}): a
     * platform daemon thread, so that it never keeps a process alive. A force that fails is logged and retried at
     * the next turn.
     */
    private void syncEvery(long nanos, String name) {
        syncer = Thread.ofPlatform().daemon().name("grove-sync " + name).start(() -> {
            while (!closed) {
                LockSupport.parkNanos(nanos);
                if (closed) {
                    return;
                }
                try {
                    pool.force();
                } catch (RuntimeException e) {
                    if (closed) {
                        return;
                    }
                    System.getLogger(OffHeapHashMap.class.getName()).log(System.Logger.Level.WARNING,
                            "forcing " + name + " to the storage device failed", e);
                }
            }
        });
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        InternalError cutOff = null;
        if (ownsPool) {
            try {
                if (!table.quiesce(pool::beginClose)) { // no allocation after the pool records its state or frees it
                    pool.leaveForRecovery();
                }
            } catch (InternalError fault) { // the mapping was cut off under the map (its file truncated)
                cutOff = fault; // released all the same, below
            }
        }
        closed = true;
        Thread syncing = syncer;
        if (syncing != null) { // before the pool closes: a force of an unmapped file would fail
            LockSupport.unpark(syncing);
            boolean interrupted = false;
            while (syncing.isAlive()) {
                try {
                    syncing.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        if (ownsPool) {
            pool.close();
        } else if (!pool.isClosed()) {
            table.close();
        }
        if (cutOff != null) {
            throw cutOff;
        }
    }
}
