package io.grove;

import io.grove.internal.file.FileHeader;
import io.grove.internal.hash.OffHeapHashMap;
import io.grove.internal.hash.OffHeapHashMap.Bounds;
import io.grove.internal.memory.Pool;
import io.grove.serial.Serializer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentMap;

/**
 * A concurrent hash map whose keys, values and structure (slot arrays, entries, locks) live off the Java heap, in a
 * {@link MemoryPool}. Implements {@link ConcurrentMap} completely; {@link #zc()} gives the zero-copy API.
 *
 * <p>Keys are compared and hashed by their serialized bytes: two keys are the same key exactly when their
 * serializer writes the same bytes. Values are compared with {@code equals} after deserialization (in
 * {@code remove(key, value)}, {@code replace(key, old, new)} and {@code containsValue}).
 *
 * <p>Atomicity: every single-key method is atomic, including {@code compute}, {@code computeIfAbsent},
 * {@code computeIfPresent} and {@code merge}, whose function runs at most once, while the key's segment is
 * locked: it should be short (writers of the segment's other keys wait for it; readers do not) and must not update
 * the map. A function that calls the map on a key of its own segment in a way that would wait for itself (an
 * update, or a read of the key being updated in place) gets {@link IllegalStateException} ("Recursive update"),
 * as {@link java.util.concurrent.ConcurrentHashMap}'s does, and the map is left unchanged. {@code putAll},
 * {@code replaceAll} and {@code clear} are atomic per key, not as a whole. Iterators and views are weakly consistent,
 * as {@link java.util.concurrent.ConcurrentHashMap}'s: they never throw
 * {@link java.util.ConcurrentModificationException}, return each entry present throughout the iteration exactly once,
 * and may or may not show concurrent changes. {@code size()} adds per-segment counts and is exact only when no update
 * runs.
 *
 * <p>Reads ({@code get}, {@code containsKey}, iteration, {@code zc().get}) take no lock and never wait for a
 * writer of another key; a read of a key whose value a {@link ZeroCopyMap#computeIfPresent zero-copy in-place
 * update} is changing waits until that update ends, so that it sees the value before or after, never in between.
 *
 * <p>Sizes and handles: an entry (24 bytes of fields, the key padded with them to a multiple of 8, then the value)
 * is one slice of the pool, so a key and value together may take at most {@link MemoryPool#maxSliceSize()} minus
 * 24 to 31 bytes; a larger one is rejected with {@link IllegalArgumentException} naming the limit. A key larger
 * than any entry can hold ({@code maxSliceSize() - 24} bytes, by its serializer's {@code size}) is never
 * serialized: reads and removals answer absent, and writes throw {@link IllegalArgumentException} naming its size
 * and the limit. A put that replaces a value (or an in-place update that resizes it) moves the entry to a new
 * slice, or copies a new value of the same size (up to 4 KiB) over the old one, giving the entry a new identity:
 * either way, handles from {@link #zc()} on its old value and on its key then fail with
 * {@link java.util.ConcurrentModificationException}, as after a removal.
 *
 * <p>Bounded mode ({@link Builder#maximumSize}, {@link Builder#maximumBytes}): an insertion that would exceed the
 * bound evicts instead of failing. The bound is the whole map's: the map never holds more entries or entry bytes
 * than it allows, and one entry may take up to all of it; an entry larger than {@code maximumBytes} is rejected
 * with {@link IllegalArgumentException}, evicting nothing. Eviction prefers entries of the key's own segment, chosen
 * by a CLOCK sweep whose per-entry counter (0..3) reads raise: an approximation of LRU that also favours frequently
 * read entries, with no global lock and amortized O(1) cost; a segment that cannot make room alone takes the unused
 * part of the bound other segments hold, then evicts in segments whose lock is free. Each evicted entry is reported
 * to the {@link Builder#evictionListener listener} once, after the operation released its lock; evictions stand
 * even if the operation then fails. An operation that needs room still held, for more than a second, by entries
 * other threads are updating fails with {@link GroveOutOfMemoryException} and changes nothing else. An in-place
 * update that grows a value makes room the same way before its result replaces the value; if it cannot, the value
 * keeps its old size and content and the exception propagates.
 *
 * <p>Nulls are rejected as keys and values with {@link NullPointerException}. After {@link #close()}, every
 * method that reads or changes entries — directly, through a view or its iterator, or through {@link #zc()} — and
 * {@link #footprint()} and {@link #stats()} throw {@link IllegalStateException}; obtaining a view object itself
 * ({@link #keySet()}, {@link #zc()}...) does not.
 */
public interface GroveHashMap<K, V> extends ConcurrentMap<K, V>, AutoCloseable {

    static <K, V> Builder<K, V> builder(Serializer<K> keySerializer, Serializer<V> valueSerializer) {
        return new Builder<>(keySerializer, valueSerializer);
    }

    /** The zero-copy API over the same entries. */
    ZeroCopyMap<K, V> zc();

    /** Hits, misses, puts and evictions if the map was built with {@link Builder#recordStats()}; zeros otherwise. */
    MapStats stats();

    /** Off-heap figures of the map's pool (shared with other maps if the pool is shared). */
    MemoryFootprint footprint();

    /**
     * For a map in a file ({@link Builder#file}): writes every change made so far to the storage device and waits
     * until it is written ({@code msync} of the mapping), so that those changes survive a crash of the operating
     * system or a power loss, which the page cache alone does not. Operations may run meanwhile; what they change
     * during the call may be written or not. Its cost grows with the pages changed since the last sync (see
     * {@code BENCHMARKS.md}). Does nothing for a map in memory.
     *
     * @throws IllegalStateException if the map is closed
     * @throws java.io.UncheckedIOException if the operating system reports a failure to write
     */
    void sync();

    /**
     * Releases the map's off-heap memory: closes its own pool (a file's: records its state and unmaps it), or, on a
     * shared pool, frees the map's slices. Idempotent. Operations that run while the map closes either complete (if
     * they got in first) or throw {@link IllegalStateException}, as all later ones do: the close waits for the
     * writes that hold a segment's lock, and makes the others fail before they change anything; lock-free reads
     * racing it may throw {@link IllegalStateException} too. On a shared pool none of them touches memory that
     * another map reuses.
     *
     * @throws IllegalStateException if called from inside one of the map's own operations (a callback of
     *     {@code compute} and its kind), which the close would wait for; the map stays open
     */
    @Override
    void close();

    /** Builds a {@link GroveHashMap}; each setter validates its argument, {@link #build()} checks them together. */
    final class Builder<K, V> {
        private final Serializer<K> keySerializer;
        private final Serializer<V> valueSerializer;
        private long expectedSize = 16;
        private long memoryLimit = -1;
        private boolean hugePages;
        private MemoryPool pool;
        private long maximumSize = Long.MAX_VALUE;
        private long maximumBytes = Long.MAX_VALUE;
        private EvictionListener<? super K, ? super V> evictionListener;
        private boolean recordStats;
        private Path file;
        private long maxFileSize = DEFAULT_MAX_FILE_SIZE;
        private boolean syncOnClose;
        private Duration syncEvery;
        private Duration otherProcessWait;
        private int inlineKeyBytes = -1;
        private int inlineValueBytes = -1;

        /** The default {@link #maxFileSize}: 64 GiB of address space, of which disk takes only what is written. */
        public static final long DEFAULT_MAX_FILE_SIZE = 64L << 30;
        /** How long an operation waits for another process's lock by default ({@link #otherProcessWait}). */
        public static final Duration DEFAULT_OTHER_PROCESS_WAIT = Duration.ofSeconds(10);

        Builder(Serializer<K> keySerializer, Serializer<V> valueSerializer) {
            this.keySerializer = Objects.requireNonNull(keySerializer, "keySerializer");
            this.valueSerializer = Objects.requireNonNull(valueSerializer, "valueSerializer");
        }

        /**
         * How many entries the table is sized for: it gets the number of segments (writers of different segments
         * do not wait for each other) and, at first, slot arrays for that many entries at 3/4 load, but in memory
         * at most 16 MiB of them; a segment grows beyond that as entries arrive (it rehashes its slots into an array
         * twice as large, under its lock), so a large expected size commits little memory before entries do. A map
         * in a {@link #file} gets all of them at once (11 to 22 bytes per expected entry): no writer then waits for
         * a rehash while the table fills, and the file does not keep the space of the smaller arrays. Without an
         * expected size, or with a small one, a map on a large pool still gets enough segments (up to 4,096) for
         * the pool's memory to run out before a segment's slot array reaches its largest size, one block: with
         * 8 MiB blocks, up to about 2 billion entries. At least 0. {@link #build()} rejects an expected size whose
         * slot arrays alone would exceed the memory limit.
         */
        public Builder<K, V> expectedSize(long entries) {
            if (entries < 0) {
                throw new IllegalArgumentException("expectedSize must be at least 0, was " + entries);
            }
            this.expectedSize = entries;
            return this;
        }

        /**
         * The memory limit of the map's own pool; not allowed together with {@link #pool}. Default: the
         * {@linkplain MemoryPool.Builder#memoryLimit default of a pool}, half of the memory the process may use
         * (the machine's, or its container's limit) beyond the Java heap's maximum; a map that needs more throws
         * {@link GroveOutOfMemoryException}.
         */
        public Builder<K, V> memoryLimit(long bytes) {
            if (bytes <= 0) {
                throw new IllegalArgumentException("memoryLimit must be positive, was " + bytes);
            }
            this.memoryLimit = bytes;
            return this;
        }

        /**
         * Asks for huge pages for the map's own pool ({@link MemoryPool.Builder#hugePages}: faster lookups in a
         * large map, memory committed 2 MiB at a time; the JVM must run with {@code --enable-native-access}, else
         * {@link #build()} throws {@link IllegalStateException}); not allowed together with {@link #pool} (build
         * that pool with it) or {@link #file} (a file's pages are the page cache's).
         */
        public Builder<K, V> hugePages() {
            this.hugePages = true;
            return this;
        }

        /** Bounds the number of entries: an insertion beyond it evicts. At least 1. */
        public Builder<K, V> maximumSize(long entries) {
            if (entries < 1) {
                throw new IllegalArgumentException("maximumSize must be at least 1, was " + entries);
            }
            this.maximumSize = entries;
            return this;
        }

        /**
         * Bounds the bytes of the entries (per entry: 24 bytes of fields, the key padded with them to a multiple of
         * 8, and the value; slice headers and rounding not counted): an insertion beyond it evicts. At least 1,024.
         */
        public Builder<K, V> maximumBytes(long bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maximumBytes must be at least 1024, was " + bytes);
            }
            this.maximumBytes = bytes;
            return this;
        }

        /**
         * Lays the table out for entries whose serialized key takes at most {@code maxKeyBytes} bytes and whose
         * serialized value at most {@code maxValueBytes}: each such entry is stored in the table's own array, in a cell
         * at the place its key's hash gives, so that a lookup reads that cell and nothing else (besides a probe of an
         * array of one-byte tags, which stays in the processor's cache), where a map without this setting reads a slot
         * and then the entry, which lies elsewhere: one dependent cache miss fewer per lookup, the cost that dominates
         * a large map's lookups. An entry that does not fit its cell lies apart, as without this setting. The price is
         * memory: every cell has room for the largest such entry, 16 bytes of cell header and 24 of entry fields
         * included, whether it holds one or not, and the cells are filled to between 3/8 and 3/4 (a segment doubles its
         * cells as it passes 3/4). A zero-copy handle ({@link io.grove.ZeroCopyMap#get}, the zero-copy iterators and
         * streams) on an entry in a cell first moves the entry apart, under its segment's lock, so that the handle does
         * not move with the cell (a slice of the entry's size: where the memory limit leaves no room for it, the call
         * throws {@link GroveOutOfMemoryException}); the entry stays apart, with the longer lookup, until a put
         * replaces its value: a map read mostly through handles gains nothing from cells and keeps an empty cell beside
         * each entry's slice (a million 256-byte records read through handles at random grew from 497 MB to 753 MB;
         * 318 MB without this setting). Cells are at most 1/1,024 of the pool's block size (8 KiB with the default);
         * {@link #build()} rejects larger ones. In a {@link #file}, the cell size is one of the settings the file
         * records: the file is reopened with the same {@code inlineEntries} sizes (or sizes that give the same cells),
         * or without the setting if it was created without. In a bounded map ({@link #maximumSize},
         * {@link #maximumBytes}) the bound counts entries' bytes, not cells, and a zero-copy update in place
         * ({@link io.grove.ZeroCopyMap#computeIfPresent}) also moves its entry apart first.
         *
         * @throws IllegalArgumentException if a size is negative
         */
        public Builder<K, V> inlineEntries(int maxKeyBytes, int maxValueBytes) {
            if (maxKeyBytes < 0 || maxValueBytes < 0) {
                throw new IllegalArgumentException("inlineEntries needs sizes of at least 0, was " + maxKeyBytes
                        + " key bytes and " + maxValueBytes + " value bytes");
            }
            this.inlineKeyBytes = maxKeyBytes;
            this.inlineValueBytes = maxValueBytes;
            return this;
        }

        /** Told of every eviction; needs {@link #maximumSize} or {@link #maximumBytes}. */
        public Builder<K, V> evictionListener(EvictionListener<? super K, ? super V> listener) {
            this.evictionListener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** Counts hits, misses, puts and evictions ({@link GroveHashMap#stats()}), at a small cost per operation. */
        public Builder<K, V> recordStats() {
            this.recordStats = true;
            return this;
        }

        /** A pool to draw on, shared with other maps; the map does not close it. */
        public Builder<K, V> pool(MemoryPool pool) {
            this.pool = Objects.requireNonNull(pool, "pool");
            return this;
        }

        /**
         * Keeps the map in the file at {@code path}, created if missing, else opened with the entries it holds: the
         * map's memory is the file, mapped whole, so reads and zero-copy handles work on the mapping itself. The
         * settings that define the file ({@link #maxFileSize}, {@link #maximumSize}, {@link #maximumBytes}, the cell
         * size {@link #inlineEntries} gives, the serializers' classes) are recorded in it; opening it with others
         * throws {@link IllegalArgumentException} naming each with both values. {@link #expectedSize} sizes a new
         * file's table only. Not allowed with {@link #pool} or {@link #memoryLimit}.
         *
         * <p>Durability. Every change is in the operating system's page cache when its operation returns, and the page
         * cache writes it to the disk in its own time. So the entries survive the process, whether it closes the map
         * ({@link GroveHashMap#close()} records the allocator's state) or is killed: even with {@code SIGKILL}, in the
         * middle of any operation, a killed process loses none of the operations that returned. The next open finds the
         * file not closed, repairs its table (locks, interrupted changes and growths, counts), puts back a value a
         * zero-copy in-place update was writing (such an update first saves the value in the file: an allocation and a
         * copy per update that a map in memory does not pay), frees the memory the table no longer reaches and logs a
         * warning saying what it recovered, in time proportional to the entries (an open after a clean close walks
         * nothing). A crash of the operating system or a power loss keeps only what was forced to the disk:
         * {@link GroveHashMap#sync()} forces now, {@link #syncOnClose()} at the close, {@link #syncEvery} periodically;
         * each costs in proportion to the pages changed since the last force (about 2 ms with one page changed, 0.1 s
         * after 1,000 random puts, 0.3 s after 100,000 on this project's test machine: {@code BENCHMARKS.md}). The file
         * then reopens with what was forced, recovered as after a kill, provided no operation changed the map after the
         * last force (a map closed without being forced is recovered too when the operating system restarted since its
         * close, as its pages may have reached the disk in part; a close with {@link #syncOnClose()} is trusted); the
         * pages of changes made after it reach the disk in no particular order: the recovery then drops each entry
         * whose check word does not match its bytes (torn) or whose slot is stale, keeps the sound ones, and may lose
         * changes made since the last force, and the entries of a segment that grew since then. A process opens a file
         * at most once at a time ({@link IllegalStateException} otherwise). Several processes may have one file open at
         * once, each with its own map on it: their operations are atomic with respect to one another (the locks, the
         * allocator's state and Nova's hazard slots are in the file), and the last one to close it records it as
         * closed. An operation that waits longer than {@link #otherProcessWait} for a segment another process holds
         * locked fails with {@link IllegalStateException} naming that process. A process killed while it holds a
         * segment's lock costs the others a pause on that segment only: the first thread to wait for it repairs the
         * segment while the file stays open ({@link #otherProcessWait}). What a killed process left (segments it held,
         * entries it removed and had not freed yet) is salvaged while the file stays open by whichever thread notices
         * first: one waiting for its lock, a process opening the file (one restarted after the kill), or an allocation
         * that finds no memory otherwise; its place in the file's table of processes is then free for another (256
         * processes may have a file open at once; an open that finds every place taken, some by processes that ended,
         * takes one of theirs and salvages it first); its counts of live and free memory are kept in the file too, so
         * {@link GroveHashMap#footprint()} counts every process's changes as they happen, a killed one's included. The
         * slices an operation it was killed in had in hand (an entry being made or removed) are freed by the repair of
         * the segment; a few that no word of the file names at that instant (a kill inside the allocator, or during a
         * segment's growth) wait for the recovery of the whole file, which the next open after the last close then
         * runs. While the
         * map has the file open, the process must not open and close the file by other means (a copy, for instance):
         * closing any descriptor of a file releases every lock its process holds on it (POSIX), and the locks are how
         * other processes know that this one has the file open ({@code ./grove inspect} and {@code verify} run in the
         * same process are safe). If another program truncates the file while the map has it open, the map's operations
         * on the memory cut off throw {@link InternalError} ("a fault occurred in an unsafe memory access operation";
         * the process survives), and its close can record nothing. Writes racing the close complete before it records
         * the file's state, or fail with {@link IllegalStateException} and change nothing
         * ({@link GroveHashMap#close()}).
         *
         * @throws NullPointerException if {@code path} is null
         */
        public Builder<K, V> file(Path path) {
            this.file = Objects.requireNonNull(path, "path");
            return this;
        }

        /**
         * The size of a new file, mapped whole; at most 256 GiB of it (a pool's address range) hold entries.
         * The file is sparse where the file system allows: disk is taken as the table fills, a block of the pool
         * (8 MiB) at a time, before the block's first use. So a full disk fails the operation that needed the new
         * block with {@link GroveOutOfMemoryException} naming the file (the operation changes nothing; the map goes on
         * in the room it has, and removing entries frees some), never a store into the mapping. Default
         * {@link #DEFAULT_MAX_FILE_SIZE}. At least 16 MiB.
         */
        public Builder<K, V> maxFileSize(long bytes) {
            if (bytes < 16L << 20) {
                throw new IllegalArgumentException("maxFileSize must be at least 16 MiB, was " + bytes);
            }
            this.maxFileSize = bytes;
            return this;
        }

        /**
         * For a map in a file: {@link GroveHashMap#close()} forces the file to the storage device ({@link #sync})
         * after recording its state, so that a closed map survives a crash of the operating system. Off by default:
         * a clean close then leaves the writing to the page cache.
         */
        public Builder<K, V> syncOnClose() {
            this.syncOnClose = true;
            return this;
        }

        /**
         * For a map in a file: a background thread (one per map, a daemon) forces the file to the storage device
         * every {@code interval} until the map closes, which bounds what a crash of the operating system can lose
         * to about the last interval's changes. Each force costs what {@link GroveHashMap#sync()} costs, in that
         * thread; operations keep running meanwhile. Off by default.
         *
         * @throws IllegalArgumentException if {@code interval} is not positive
         */
        public Builder<K, V> syncEvery(Duration interval) {
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("syncEvery needs a positive interval, was " + interval);
            }
            this.syncEvery = interval;
            return this;
        }

        /**
         * For a map in a file that other processes may have open too: how long an operation waits for a segment that
         * another live process holds locked (a long operation of its, or a process stopped by a signal or a debugger)
         * before it fails with {@link IllegalStateException} naming that process. A live process is never robbed of its
         * lock. A process that ended without closing the file (killed) is found by the next look of a waiting thread
         * (about every 30 ms of waiting): that thread, alone among all processes, repairs every segment the ended
         * process held, as a reopen's recovery would (an in-place update cut off is undone, a mutation cut off
         * completed or rolled back), while the other segments stay in use, and every waiter goes on; it also reclaims
         * the entries the process removed and had not freed yet; the salvage is logged as a warning. Opening the map
         * also waits at most this long for another process that is opening the file (the recovery of a whole file,
         * after a kill, runs then) or closing it, then fails with {@link GroveFileException}; a close that waits as
         * long leaves the file as if killed, for the recovery of its next open. Default
         * {@link #DEFAULT_OTHER_PROCESS_WAIT}.
         *
         * @throws IllegalArgumentException if {@code wait} is not positive
         */
        public Builder<K, V> otherProcessWait(Duration wait) {
            if (wait.isNegative() || wait.isZero()) {
                throw new IllegalArgumentException("otherProcessWait needs a positive duration, was " + wait);
            }
            this.otherProcessWait = wait;
            return this;
        }

        public GroveHashMap<K, V> build() {
            if (evictionListener != null && maximumSize == Long.MAX_VALUE && maximumBytes == Long.MAX_VALUE) {
                throw new IllegalArgumentException("an eviction listener needs maximumSize or maximumBytes");
            }
            Bounds<K, V> bounds = new Bounds<>(maximumSize, maximumBytes, evictionListener, recordStats);
            long cellBytes = OffHeapHashMap.SLOT_CELLS;
            if (inlineKeyBytes >= 0) {
                cellBytes = OffHeapHashMap.cellBytesFor(inlineKeyBytes, inlineValueBytes);
            }
            if (pool != null && memoryLimit > 0) {
                throw new IllegalArgumentException("memoryLimit (" + memoryLimit
                        + ") applies to the map's own pool; a shared pool has its own limit (" + pool.memoryLimit()
                        + ")");
            }
            if (hugePages && (pool != null || file != null)) {
                throw new IllegalArgumentException("hugePages applies to the map's own pool in memory; "
                        + (pool != null ? "build the shared pool with MemoryPool.Builder.hugePages"
                                : "a map in a file uses the page cache's pages"));
            }
            if (file != null) {
                if (pool != null || memoryLimit > 0) {
                    throw new IllegalArgumentException("a map in a file uses the file's memory: pool and memoryLimit"
                            + " do not apply (maxFileSize bounds the file)");
                }
                FileHeader header = new FileHeader(maxFileSize, MemoryPool.Builder.DEFAULT_BLOCK_SIZE,
                        OffHeapHashMap.checkCellBytes(cellBytes, MemoryPool.Builder.DEFAULT_BLOCK_SIZE), maximumSize,
                        maximumBytes, keySerializer.getClass().getName(), valueSerializer.getClass().getName(),
                        System.currentTimeMillis());
                return OffHeapHashMap.inFile(file, header, keySerializer, valueSerializer, expectedSize, bounds,
                        new OffHeapHashMap.Syncing(syncOnClose, syncEvery == null ? 0 : syncEvery.toNanos()),
                        (otherProcessWait == null ? DEFAULT_OTHER_PROCESS_WAIT : otherProcessWait).toNanos());
            }
            if (syncOnClose || syncEvery != null || otherProcessWait != null) {
                throw new IllegalArgumentException("syncOnClose, syncEvery and otherProcessWait apply to a map in a"
                        + " file only");
            }
            if (pool != null) {
                if (pool.isClosed()) {
                    throw new IllegalStateException("the given pool is closed");
                }
                return new OffHeapHashMap<>((Pool) pool, false, keySerializer, valueSerializer, expectedSize, bounds,
                        cellBytes);
            }
            MemoryPool.Builder own = MemoryPool.builder().hugePages(hugePages);
            if (memoryLimit > 0) {
                own.memoryLimit(memoryLimit);
            }
            Pool ownPool = (Pool) own.build();
            try {
                return new OffHeapHashMap<>(ownPool, true, keySerializer, valueSerializer, expectedSize, bounds,
                        cellBytes);
            } catch (RuntimeException | Error e) {
                ownPool.close();
                throw e;
            }
        }
    }
}
