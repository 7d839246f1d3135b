package io.grove.bench.experiments;

import io.grove.MemoryPool;
import io.grove.Reclamation;
import io.grove.bench.Contender;
import io.grove.bench.WorkerConfig;
import io.grove.bench.maps.ChmKv;
import io.grove.bench.maps.ChronicleKv;
import io.grove.bench.maps.GroveKv;
import io.grove.bench.maps.KvMap;
import io.grove.bench.maps.KvThread;
import io.grove.bench.maps.OhcKv;
import io.grove.bench.maps.ThreadBufferSerializer;
import io.grove.internal.memory.Pool;
import io.grove.internal.view.KeyBuffer;
import io.grove.internal.view.SegmentView;
import io.grove.serial.Serializers;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * THROW-AWAY EXPERIMENT (not production code, not wired into {@code ./grove bench}): the structural costs of the
 * hash map's lookup path, isolated from serializers, the public API and the bench harness, to choose the format of
 * the persistent table. Write-up and figures: {@code docs/experiments/lookup-path.md}.
 *
 * <p>1,000,000 records of an 8-byte key (a scrambled id) and a 248-byte value; 2,048 segments, each with a
 * seqlock version and a spin lock in an 88-byte record (records side by side, as in the map), and a per-segment
 * table of 1,024 8-byte words (16 MiB in all, as the map's bucket arrays at this size). Entries are slices of a
 * Grove {@link Pool} with Nova reclamation, so allocation, zeroing and deletion cost what they cost in the map.
 * Variants ({@code args[0]}):
 *
 * <ul>
 *   <li>{@code chained}: today's layout: bucket word = reference of the first entry (granule + Nova version); entry
 *       = 32-byte header (next, stamp, hash, key length, value length, uses) + key + value; readers: segment
 *       seqlock around the walk, entry stamp around the value copy.
 *   <li>{@code open}: open addressing with linear probing; slot = 30-bit hash tag &lt;&lt; 34 | 34-bit granule (0 =
 *       empty); entry = 16-byte header (stamp, key length, value length) + key + value, no next, no hash. A reader
 *       reads an entry only when the tag matches. Same seqlock + stamp validation. Removal shifts the following
 *       run back (no tombstones), inside the segment's mutation.
 *   <li>{@code cells}: entries inline in fixed-size cells located from the hash, probed through a compact array
 *       of 2-byte tags that stays in the cache ({@link Cells}); values always overwritten in place.
 *       {@code -Dtag1=true}: 1-byte tags (an occupied bit and 7 hash bits), {@code -Dload=}: the cells' load,
 *       {@code -Dcell=}: the cells' size in bytes (default 264: stamp, key, value), {@code -Dpad=N}: N reads of
 *       the copied value after each get (work that does not delay the next operation),
 *       {@code -Dspeculate=true}: the home cell's key loaded before the tags, so that its miss overlaps theirs.

 *   <li>{@code floor}: no table at all: entry {@code id} at {@code id * 288} of one segment; the cost of touching
 *       one entry (one dependent miss), a lower bound for any table. {@code -Dhuge=true}: the segment on
 *       transparent huge pages (madvise), to see what the TLB misses cost.
 *   <li>{@code chm}: {@code ConcurrentHashMap<Long, byte[]>}, as the bench's {@code chm} contender (get reads the
 *       stored array in place; put stores a new array).
 *   <li>{@code grove-hash}, {@code grove-hash-inline}, {@code grove-hash-inline-hp}, {@code chronicle},
 *       {@code ohc}, {@code chm-kv}: the bench's contenders themselves
 *       (the real {@code GroveHashMap} and its peers, {@link Kv}), same phases.
 * </ul>
 *
 * <p>{@code args[1]} = {@code alloc} (a put on a present key writes a new entry, swaps it in inside a mutation and
 * deletes the old one through Nova, as the map does today) or {@code inplace} (it overwrites the value under the
 * entry's stamp, segment version untouched). {@code args[2]} = threads, {@code args[3]} = seconds per timed phase.
 * Phases: prefill (1 thread), get-only, put-only (present keys), 80/15/5 get/put/remove; each timed phase after a
 * warm-up of the same length. Prints ns per operation per thread and million ops/s.
 */
public final class LookupPath {
    /** Records ({@code -Dkeys}; the prototypes keep 2,048 segments of {@link #SLOTS} slots whatever the count). */
    static final int KEYS = Integer.getInteger("keys", 1_000_000);
    static final int VALUE = 248;
    /** {@code -Dwork=N}: N steps of dependent arithmetic before each operation (how much of it overlaps misses). */
    static final int WORK = Integer.getInteger("work", 0);
    static final int SEGMENT_BITS = 11;
    static final int SEGMENTS = 1 << SEGMENT_BITS;
    static final int TABLE_BITS = 10;
    static final int TABLE_MASK = (1 << TABLE_BITS) - 1;
    /** Slots per segment of the open table ({@code -Dslots}, default 1,024 = 16 MiB in all; 680 = 3/4 load). */
    static final int SLOTS = Integer.getInteger("slots", 1 << TABLE_BITS);
    /** What a get reads: {@code copy} (the value into an array, as the map's get) or {@code words} (2 words). */
    static final boolean COPY = System.getProperty("read", "copy").equals("copy");
    /** {@code -Dvarlen=true}, open table only: the copy's length read from its entry header, not a constant. */
    static final boolean VARLEN = Boolean.getBoolean("varlen");
    static final int RECORD = 88;
    static final long GRANULE_MASK = (1L << 34) - 1;
    static final long VERSION_MASK = ((1L << 29) - 1) << 34;

    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    static final VarHandle ARRAY_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private LookupPath() {}

    static long key(long id) {
        long z = id * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The map's key hash ({@code KeyHash}) of an 8-byte key, same operations. */
    static long hash(long key) {
        long h = 0x9E3779B97F4A7C15L ^ 8;
        h = Long.rotateLeft(h ^ key * 0xC2B2AE3D27D4EB4FL, 31) * 0x9E3779B97F4A7C15L;
        h = Long.rotateLeft(h, 31) * 0x9E3779B97F4A7C15L;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return h;
    }

    abstract static class Table {
        /** Copies the value of {@code key} into {@code out}; false if absent. */
        abstract boolean get(long id, long key, byte[] out);

        abstract void put(long id, long key, byte[] value);

        abstract boolean remove(long id, long key);

        void close() {}
    }

    /** Segment records, locks and seqlocks shared by the two off-heap tables. */
    abstract static class Segmented extends Table {
        final Pool pool;
        final boolean inPlace;
        final MemorySegment records;
        final int entryPayload;

        Segmented(boolean inPlace, int entryHeader, int tableWords) {
            this.pool = (Pool) MemoryPool.builder().memoryLimit(2L << 30).reclamation(Reclamation.NOVA).build();
            this.inPlace = inPlace;
            this.entryPayload = entryHeader + 8 + VALUE;
            this.records = Arena.global().allocate((long) SEGMENTS * RECORD, 64);
            for (int s = 0; s < SEGMENTS; s++) {
                long table = pool.allocate(8 * tableWords);
                records.set(ValueLayout.JAVA_LONG, (long) s * RECORD + 24, table);
            }
        }

        static int segment(long h) {
            return (int) (h >>> (64 - SEGMENT_BITS));
        }

        long stableVersion(long so) {
            while (true) {
                long v = (long) LONG.getAcquire(records, so + 8);
                if ((v & 1) == 0) {
                    return v;
                }
                Thread.onSpinWait();
            }
        }

        boolean unchanged(long so, long v) {
            VarHandle.loadLoadFence();
            return records.get(ValueLayout.JAVA_LONG, so + 8) == v;
        }

        void lock(long so) {
            while (!INT.compareAndSet(records, so, 0, 1)) {
                Thread.onSpinWait();
            }
        }

        void unlock(long so) {
            INT.setRelease(records, so, 0);
        }

        void beginMutation(long so) {
            records.set(ValueLayout.JAVA_LONG, so + 8, records.get(ValueLayout.JAVA_LONG, so + 8) + 1);
            VarHandle.storeStoreFence();
        }

        void endMutation(long so) {
            LONG.setRelease(records, so + 8, records.get(ValueLayout.JAVA_LONG, so + 8) + 1);
        }

        long tableRef(long so) {
            return records.get(ValueLayout.JAVA_LONG, so + 24);
        }

        /** Reads the value under the entry's stamp at {@code stampAt}; false if the stamp moved. */
        static boolean readValue(MemorySegment eb, long stampAt, long valueAt, byte[] out) {
            long st = (long) LONG.getAcquire(eb, stampAt);
            if ((st & 1) != 0) {
                return false;
            }
            if (COPY) {
                int length = VARLEN ? eb.get(ValueLayout.JAVA_INT, stampAt + 12) : VALUE;
                MemorySegment.copy(eb, ValueLayout.JAVA_BYTE, valueAt, out, 0, length);
            } else {
                ARRAY_LONG.set(out, 0, eb.get(ValueLayout.JAVA_LONG_UNALIGNED, valueAt));
                ARRAY_LONG.set(out, 8, eb.get(ValueLayout.JAVA_LONG_UNALIGNED, valueAt + VALUE - 8));
            }
            VarHandle.loadLoadFence();
            return eb.get(ValueLayout.JAVA_LONG, stampAt) == st;
        }

        static void writeValueInPlace(MemorySegment eb, long stampAt, long valueAt, byte[] value) {
            long st = eb.get(ValueLayout.JAVA_LONG, stampAt);
            eb.set(ValueLayout.JAVA_LONG, stampAt, st + 1);
            VarHandle.storeStoreFence();
            MemorySegment.copy(value, 0, eb, ValueLayout.JAVA_BYTE, valueAt, VALUE);
            LONG.setRelease(eb, stampAt, st + 2);
        }

        /** The full reference (with Nova's version) of the live slice at {@code granule}, read from its header. */
        long refOf(long granule) {
            MemorySegment b = pool.segment(granule);
            long state = b.get(ValueLayout.JAVA_LONG, pool.payloadOffset(granule) - 8);
            return (state & VERSION_MASK) | granule;
        }

        @Override
        void close() {
            pool.close();
        }
    }

    /** Today's layout: chains of entries with a 32-byte header. */
    static final class Chained extends Segmented {
        static final int NEXT = 0;
        static final int STAMP = 8;
        static final int HASH = 16;
        static final int KEY_LENGTH = 20;
        static final int VALUE_LENGTH = 24;
        static final int KEY = 32;
        static final int VALUE_AT = 40;

        Chained(boolean inPlace) {
            super(inPlace, 32, 1 << TABLE_BITS);
        }

        static boolean matches(MemorySegment eb, long eo, int h32, long key) {
            return eb.get(ValueLayout.JAVA_INT, eo + HASH) == h32 && eb.get(ValueLayout.JAVA_LONG, eo + KEY) == key;
        }

        @Override
        boolean get(long id, long key, byte[] out) {
            long h = hash(key);
            long so = (long) segment(h) * RECORD;
            int h32 = (int) h;
            long slot = (long) (h32 & TABLE_MASK) * 8;
            while (true) {
                long v = stableVersion(so);
                int result = 0; // 0 absent, 1 found, -1 retry
                try {
                    long t = tableRef(so);
                    long e = pool.segment(t).get(ValueLayout.JAVA_LONG, pool.payloadOffset(t) + slot);
                    for (int steps = 0; e != 0 && steps < 64; steps++) {
                        MemorySegment eb = pool.segment(e);
                        long eo = pool.payloadOffset(e);
                        if (matches(eb, eo, h32, key)) {
                            result = readValue(eb, eo + STAMP, eo + VALUE_AT, out) ? 1 : -1;
                            break;
                        }
                        e = eb.get(ValueLayout.JAVA_LONG, eo + NEXT);
                    }
                } catch (RuntimeException stale) {
                    result = -1;
                }
                if (result >= 0 && unchanged(so, v)) {
                    return result == 1;
                }
            }
        }

        private long newEntry(long key, int h32, byte[] value, long next) {
            long e = pool.allocate(entryPayload);
            MemorySegment eb = pool.segment(e);
            long eo = pool.payloadOffset(e);
            eb.set(ValueLayout.JAVA_LONG, eo + NEXT, next);
            eb.set(ValueLayout.JAVA_INT, eo + HASH, h32);
            eb.set(ValueLayout.JAVA_INT, eo + KEY_LENGTH, 8);
            eb.set(ValueLayout.JAVA_INT, eo + VALUE_LENGTH, VALUE);
            eb.set(ValueLayout.JAVA_LONG, eo + KEY, key);
            MemorySegment.copy(value, 0, eb, ValueLayout.JAVA_BYTE, eo + VALUE_AT, VALUE);
            return e;
        }

        @Override
        void put(long id, long key, byte[] value) {
            long h = hash(key);
            long so = (long) segment(h) * RECORD;
            int h32 = (int) h;
            long deleted = 0;
            lock(so);
            try {
                long t = tableRef(so);
                MemorySegment linkBlock = pool.segment(t);
                long linkAt = pool.payloadOffset(t) + (long) (h32 & TABLE_MASK) * 8;
                long head = linkBlock.get(ValueLayout.JAVA_LONG, linkAt);
                long e = head;
                while (e != 0) {
                    MemorySegment eb = pool.segment(e);
                    long eo = pool.payloadOffset(e);
                    if (matches(eb, eo, h32, key)) {
                        if (inPlace) {
                            writeValueInPlace(eb, eo + STAMP, eo + VALUE_AT, value);
                        } else {
                            long n = newEntry(key, h32, value, eb.get(ValueLayout.JAVA_LONG, eo + NEXT));
                            beginMutation(so);
                            linkBlock.set(ValueLayout.JAVA_LONG, linkAt, n);
                            endMutation(so);
                            deleted = e;
                        }
                        return;
                    }
                    linkBlock = eb;
                    linkAt = eo + NEXT;
                    e = eb.get(ValueLayout.JAVA_LONG, eo + NEXT);
                }
                long n = newEntry(key, h32, value, head);
                beginMutation(so);
                pool.segment(t).set(ValueLayout.JAVA_LONG, pool.payloadOffset(t) + (long) (h32 & TABLE_MASK) * 8, n);
                endMutation(so);
            } finally {
                unlock(so);
                if (deleted != 0) {
                    pool.delete(deleted);
                }
            }
        }

        @Override
        boolean remove(long id, long key) {
            long h = hash(key);
            long so = (long) segment(h) * RECORD;
            int h32 = (int) h;
            long deleted = 0;
            lock(so);
            try {
                long t = tableRef(so);
                MemorySegment linkBlock = pool.segment(t);
                long linkAt = pool.payloadOffset(t) + (long) (h32 & TABLE_MASK) * 8;
                long e = linkBlock.get(ValueLayout.JAVA_LONG, linkAt);
                while (e != 0) {
                    MemorySegment eb = pool.segment(e);
                    long eo = pool.payloadOffset(e);
                    long next = eb.get(ValueLayout.JAVA_LONG, eo + NEXT);
                    if (matches(eb, eo, h32, key)) {
                        beginMutation(so);
                        linkBlock.set(ValueLayout.JAVA_LONG, linkAt, next);
                        endMutation(so);
                        deleted = e;
                        return true;
                    }
                    linkBlock = eb;
                    linkAt = eo + NEXT;
                    e = next;
                }
                return false;
            } finally {
                unlock(so);
                if (deleted != 0) {
                    pool.delete(deleted);
                }
            }
        }
    }

    /** Open addressing: 8-byte slots of a 30-bit tag and a 34-bit granule; entries with a 16-byte header. */
    static final class Open extends Segmented {
        static final int STAMP = 0;
        static final int KEY_LENGTH = 8;
        static final int VALUE_LENGTH = 12;
        static final int KEY = 16;
        static final int VALUE_AT = 24;

        /**
         * {@code -Dcached=true}: the readers take each segment's table from these heap arrays instead of its record,
         * so that the slot's load does not wait for the record's (the experiment's tables never move).
         */
        static final boolean CACHED = Boolean.getBoolean("cached");

        final MemorySegment[] tableBlocks = new MemorySegment[SEGMENTS];
        final long[] tableOffsets = new long[SEGMENTS];

        Open(boolean inPlace) {
            super(inPlace, 16, SLOTS);
            for (int s = 0; s < SEGMENTS; s++) {
                long t = tableRef((long) s * RECORD);
                tableBlocks[s] = pool.segment(t);
                tableOffsets[s] = pool.payloadOffset(t);
            }
        }

        /** A nonzero 30-bit tag from hash bits used neither by the segment nor by the slot index. */
        static long tag(long h) {
            return ((h >>> 23) & ((1L << 30) - 1)) | 1;
        }

        /** Home slot from hash bits 0..22 (segment: bits 53..63, tag: 23..52); any number of slots. */
        static int home(long h) {
            return (int) (((h & 0x7FFFFF) * SLOTS) >>> 23);
        }

        static int next(int i) {
            return i + 1 == SLOTS ? 0 : i + 1;
        }

        /** Slots from {@code from} forward to {@code to}. */
        static int distance(int from, int to) {
            int d = to - from;
            return d < 0 ? d + SLOTS : d;
        }

        @Override
        boolean get(long id, long key, byte[] out) {
            long h = hash(key);
            int s = segment(h);
            long so = (long) s * RECORD;
            long tag = tag(h);
            int start = home(h);
            while (true) {
                long v = stableVersion(so);
                int result = 0;
                try {
                    long t = CACHED ? 0 : tableRef(so);
                    MemorySegment tb = CACHED ? tableBlocks[s] : pool.segment(t);
                    long to = CACHED ? tableOffsets[s] : pool.payloadOffset(t);
                    for (int i = start, n = 0; n < SLOTS; i = next(i), n++) {
                        long slot = tb.get(ValueLayout.JAVA_LONG, to + (long) i * 8);
                        if (slot == 0) {
                            break;
                        }
                        if ((slot >>> 34) == tag) {
                            long g = slot & GRANULE_MASK;
                            MemorySegment eb = pool.segment(g);
                            long eo = pool.payloadOffset(g);
                            if (eb.get(ValueLayout.JAVA_LONG, eo + KEY) == key) {
                                result = readValue(eb, eo + STAMP, eo + VALUE_AT, out) ? 1 : -1;
                                break;
                            }
                        }
                    }
                } catch (RuntimeException stale) {
                    result = -1;
                }
                if (result >= 0 && unchanged(so, v)) {
                    return result == 1;
                }
            }
        }

        private long newEntry(long key, byte[] value) {
            long e = pool.allocate(entryPayload);
            MemorySegment eb = pool.segment(e);
            long eo = pool.payloadOffset(e);
            eb.set(ValueLayout.JAVA_INT, eo + KEY_LENGTH, 8);
            eb.set(ValueLayout.JAVA_INT, eo + VALUE_LENGTH, VALUE);
            eb.set(ValueLayout.JAVA_LONG, eo + KEY, key);
            MemorySegment.copy(value, 0, eb, ValueLayout.JAVA_BYTE, eo + VALUE_AT, VALUE);
            return e;
        }

        /** Slot index of {@code key} under the lock, or -(free index) - 1. */
        private int find(MemorySegment tb, long to, long key, long tag, int start) {
            for (int i = start; ; i = next(i)) {
                long slot = tb.get(ValueLayout.JAVA_LONG, to + (long) i * 8);
                if (slot == 0) {
                    return -i - 1;
                }
                if ((slot >>> 34) == tag) {
                    long g = slot & GRANULE_MASK;
                    if (pool.segment(g).get(ValueLayout.JAVA_LONG, pool.payloadOffset(g) + KEY) == key) {
                        return i;
                    }
                }
            }
        }

        @Override
        void put(long id, long key, byte[] value) {
            long h = hash(key);
            long so = (long) segment(h) * RECORD;
            long tag = tag(h);
            long deleted = 0;
            lock(so);
            try {
                long t = tableRef(so);
                MemorySegment tb = pool.segment(t);
                long to = pool.payloadOffset(t);
                int i = find(tb, to, key, tag, home(h));
                if (i >= 0) {
                    long g = tb.get(ValueLayout.JAVA_LONG, to + (long) i * 8) & GRANULE_MASK;
                    if (inPlace) {
                        MemorySegment eb = pool.segment(g);
                        long eo = pool.payloadOffset(g);
                        writeValueInPlace(eb, eo + STAMP, eo + VALUE_AT, value);
                    } else {
                        long n = newEntry(key, value);
                        beginMutation(so);
                        tb.set(ValueLayout.JAVA_LONG, to + (long) i * 8, tag << 34 | (n & GRANULE_MASK));
                        endMutation(so);
                        deleted = refOf(g);
                    }
                    return;
                }
                long n = newEntry(key, value);
                beginMutation(so);
                tb.set(ValueLayout.JAVA_LONG, to + (long) (-i - 1) * 8, tag << 34 | (n & GRANULE_MASK));
                endMutation(so);
            } finally {
                unlock(so);
                if (deleted != 0) {
                    pool.delete(deleted);
                }
            }
        }

        @Override
        boolean remove(long id, long key) {
            long h = hash(key);
            long so = (long) segment(h) * RECORD;
            long tag = tag(h);
            long deleted = 0;
            lock(so);
            try {
                long t = tableRef(so);
                MemorySegment tb = pool.segment(t);
                long to = pool.payloadOffset(t);
                int i = find(tb, to, key, tag, home(h));
                if (i < 0) {
                    return false;
                }
                deleted = refOf(tb.get(ValueLayout.JAVA_LONG, to + (long) i * 8) & GRANULE_MASK);
                beginMutation(so);
                // backward-shift deletion: move later members of the run into the hole when their home allows it
                int hole = i;
                for (int j = next(i); ; j = next(j)) {
                    long slot = tb.get(ValueLayout.JAVA_LONG, to + (long) j * 8);
                    if (slot == 0) {
                        break;
                    }
                    long g = slot & GRANULE_MASK;
                    int home = home(hash(pool.segment(g).get(ValueLayout.JAVA_LONG, pool.payloadOffset(g) + KEY)));
                    if (distance(home, j) >= distance(hole, j)) {
                        tb.set(ValueLayout.JAVA_LONG, to + (long) hole * 8, slot);
                        hole = j;
                    }
                }
                tb.set(ValueLayout.JAVA_LONG, to + (long) hole * 8, 0L);
                endMutation(so);
                return true;
            } finally {
                unlock(so);
                if (deleted != 0) {
                    pool.delete(deleted);
                }
            }
        }
    }

    /**
     * Entries in cells located from the hash: per segment, an array of fixed-size cells (stamp, key, value inline)
     * and beside it an array of 2-byte tags (0 = empty, else 15 bits of the hash with the top bit set), all the tag
     * arrays in one region small enough to stay in the cache (2.7 MB at 1M records). A get probes tags from the home
     * index (linear probing) and reads the cell of a matching tag: one dependent miss when the tags are cached. Cells
     * are sized for 3/4 load ({@code -Dload}); a put overwrites the value in place under the cell's stamp, an insert
     * fills a free cell then sets its tag inside the segment's mutation, a removal shifts the run's cells and tags
     * back (so cells move: no stable handle on a cell, unlike the map's entries).
     */
    static final class Cells extends Segmented {
        static final int CELL = Integer.getInteger("cell", 8 + 8 + VALUE);
        static final int CELLS = (int) Math.ceil(KEYS / (double) SEGMENTS / Double.parseDouble(
                System.getProperty("load", "0.75")));
        /** Bytes per tag: 2, or 1 with {@code -Dtag1=true}. */
        static final int TAG = Boolean.getBoolean("tag1") ? 1 : 2;
        /**
         * With {@code -Dspeculate=true} a get loads the home cell's key before it reads the tags, so that the cell's
         * miss overlaps a tag miss (the home cell's address needs no tag).
         */
        static final boolean SPECULATE = Boolean.getBoolean("speculate");
        final MemorySegment tags = Arena.global().allocate((long) SEGMENTS * CELLS * TAG, 64);
        /**
         * {@code -DkeyAt=}: where a cell's key lies (default 8); its value follows it, its stamp at {@code -DstampAt=}
         * (default 0). {@code -DslotFirst=true}: a get reads a nonzero word at the cell's start before its key, as the
         * real map reads the cell's slot word (then use e.g. {@code -DstampAt=16 -DkeyAt=40 -Dcell=304}, its layout).
         * {@code -Dsplit=true}: each segment's cells in an allocation of their own, not one region for all.
         */
        static final int KEY_AT = Integer.getInteger("keyAt", 8);
        static final int STAMP_AT = Integer.getInteger("stampAt", 0);
        static final int VALUE_AT = KEY_AT + 8;
        static final boolean SLOT_FIRST = Boolean.getBoolean("slotFirst");
        static final boolean SPLIT = Boolean.getBoolean("split");
        final MemorySegment cells = SPLIT ? null : Arena.global().allocate((long) SEGMENTS * CELLS * CELL, 4096);
        final MemorySegment[] split = new MemorySegment[SEGMENTS];

        MemorySegment cellsOf(int s) {
            return SPLIT ? split[s] : cells;
        }

        Cells() {
            super(true, 16, 1);
            for (int s = 0; SPLIT && s < SEGMENTS; s++) {
                split[s] = Arena.global().allocate((long) CELLS * CELL, 16);
            }
        }

        static short tag(long h) {
            return TAG == 1 ? (short) (((h >>> 23) & 0x7F) | 0x80) : (short) (((h >>> 23) & 0x7FFF) | 0x8000);
        }

        short tagGet(int s, int i) {
            return TAG == 1 ? (short) (tags.get(ValueLayout.JAVA_BYTE, tagAt(s, i)) & 0xFF)
                    : tags.get(ValueLayout.JAVA_SHORT, tagAt(s, i));
        }

        void tagSet(int s, int i, short tag) {
            if (TAG == 1) {
                tags.set(ValueLayout.JAVA_BYTE, tagAt(s, i), (byte) tag);
            } else {
                tags.set(ValueLayout.JAVA_SHORT, tagAt(s, i), tag);
            }
        }

        static int home(long h) {
            return (int) (((h & 0x7FFFFF) * CELLS) >>> 23);
        }

        static int next(int i) {
            return i + 1 == CELLS ? 0 : i + 1;
        }

        static int distance(int from, int to) {
            int d = to - from;
            return d < 0 ? d + CELLS : d;
        }

        static long tagAt(int s, int i) {
            return ((long) s * CELLS + i) * TAG;
        }

        static long cellAt(int s, int i) {
            return ((long) (SPLIT ? 0 : s) * CELLS + i) * CELL;
        }

        /**
         * {@code -DserKey=true}: a get first serializes its key into a {@code KeyBuffer} and hashes it there, and
         * compares the cell's key with those bytes, as the map does ({@link #segHash} stands for the map's hash; the
         * cell is still found by {@link #hash}). {@code -DviewValue=true}: the value is read through a
         * {@code SegmentView} and the bench's {@code ThreadBufferSerializer}, as the map's get reads it. What they
         * use is the thread's {@link Scratch}, taken once per get as the map takes its own.
         */
        static final boolean SER_KEY = Boolean.getBoolean("serKey");
        static final boolean VIEW_VALUE = Boolean.getBoolean("viewValue");
        static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

        /** A thread's key bytes, serialized key and value view. */
        static final class Scratch {
            final byte[] keyBytes = new byte[8];
            final KeyBuffer key = new KeyBuffer();
            final SegmentView view = new SegmentView();
        }

        /** What the experiments' results are folded into, so that the compiler keeps their work. */
        long sink;

        static long segHash(MemorySegment b, int length) {
            long h = 0x9E3779B97F4A7C15L ^ length;
            int i = 0;
            for (; i + 8 <= length; i += 8) {
                h = Long.rotateLeft(h ^ b.get(ValueLayout.JAVA_LONG_UNALIGNED, i) * 0xC2B2AE3D27D4EB4FL, 31)
                        * 0x9E3779B97F4A7C15L;
            }
            h ^= h >>> 33;
            h *= 0xFF51AFD7ED558CCDL;
            return h ^ (h >>> 33);
        }

        static boolean readValueView(MemorySegment eb, long stampAt, long valueAt, byte[] out, SegmentView v) {
            long st = (long) LONG.getAcquire(eb, stampAt);
            if ((st & 1) != 0) {
                return false;
            }
            v.open(eb, valueAt, VALUE, false);
            byte[] got;
            try {
                got = ThreadBufferSerializer.INSTANCE.read(v);
            } finally {
                v.close();
            }
            ARRAY_LONG.set(out, 0, (long) ARRAY_LONG.get(got, 0));
            VarHandle.loadLoadFence();
            return eb.get(ValueLayout.JAVA_LONG, stampAt) == st;
        }

        @Override
        boolean get(long id, long key, byte[] out) {
            Scratch scratch = SER_KEY || VIEW_VALUE ? SCRATCH.get() : null;
            if (SER_KEY) {
                ARRAY_LONG.set(scratch.keyBytes, 0, key);
                scratch.key.set(Serializers.bytes(), scratch.keyBytes, 1 << 20);
                sink ^= segHash(scratch.key.segment(), scratch.key.length());
            }
            long h = hash(key);
            int s = segment(h);
            long so = (long) s * RECORD;
            short tag = tag(h);
            int start = home(h);
            while (true) {
                long v = stableVersion(so);
                MemorySegment cells = cellsOf(s);
                long homeKey = SPECULATE ? cells.get(ValueLayout.JAVA_LONG, cellAt(s, start) + KEY_AT) : 0;
                int result = 0;
                for (int i = start, n = 0; n < CELLS; i = next(i), n++) {
                    short t = tagGet(s, i);
                    if (t == 0) {
                        break;
                    }
                    if (t == tag) {
                        long c = cellAt(s, i);
                        if (SLOT_FIRST && cells.get(ValueLayout.JAVA_LONG, c) == 0) {
                            continue;
                        }
                        long cellKey = SPECULATE && i == start ? homeKey
                                : SER_KEY ? 0 : cells.get(ValueLayout.JAVA_LONG, c + KEY_AT);
                        boolean match = SER_KEY ? MemorySegment.mismatch(cells, c + KEY_AT, c + KEY_AT + 8,
                                scratch.key.segment(), 0, 8) == -1 : cellKey == key;
                        if (match) {
                            result = (VIEW_VALUE ? readValueView(cells, c + STAMP_AT, c + VALUE_AT, out, scratch.view)
                                    : readValue(cells, c + STAMP_AT, c + VALUE_AT, out)) ? 1 : -1;
                            break;
                        }
                    }
                }
                if (result >= 0 && unchanged(so, v)) {
                    if (PAD > 0) {
                        pad(out);
                    }
                    return result == 1;
                }
            }
        }

        /**
         * {@code -Dpad=N}: N reads of the value just copied, summed, after each get: work that keeps the processor's
         * reorder window busy without delaying the next operation's key, unlike {@code -Dwork}.
         */
        static final int PAD = Integer.getInteger("pad", 0);

        void pad(byte[] out) {
            long sum = 0;
            for (int p = 0; p < PAD; p++) {
                sum += out[(p * 7) & 127];
            }
            sink += sum;
        }

        /** Cell index of {@code key} under the lock, or -(free index) - 1. */
        private int find(int s, long key, short tag, int start) {
            for (int i = start; ; i = next(i)) {
                short t = tagGet(s, i);
                if (t == 0) {
                    return -i - 1;
                }
                if (t == tag && cellsOf(s).get(ValueLayout.JAVA_LONG, cellAt(s, i) + KEY_AT) == key) {
                    return i;
                }
            }
        }

        @Override
        void put(long id, long key, byte[] value) {
            long h = hash(key);
            int s = segment(h);
            long so = (long) s * RECORD;
            short tag = tag(h);
            lock(so);
            try {
                int i = find(s, key, tag, home(h));
                if (i >= 0) {
                    long c = cellAt(s, i);
                    writeValueInPlace(cellsOf(s), c + STAMP_AT, c + VALUE_AT, value);
                    return;
                }
                long c = cellAt(s, -i - 1);
                MemorySegment cells = cellsOf(s);
                if (SLOT_FIRST) {
                    cells.set(ValueLayout.JAVA_LONG, c, tag | Long.MIN_VALUE); // the slot word it reads
                }
                cells.set(ValueLayout.JAVA_LONG, c + KEY_AT, key);
                MemorySegment.copy(value, 0, cells, ValueLayout.JAVA_BYTE, c + VALUE_AT, VALUE);
                beginMutation(so);
                tagSet(s, -i - 1, tag);
                endMutation(so);
            } finally {
                unlock(so);
            }
        }

        @Override
        boolean remove(long id, long key) {
            long h = hash(key);
            int s = segment(h);
            long so = (long) s * RECORD;
            lock(so);
            try {
                int i = find(s, key, tag(h), home(h));
                if (i < 0) {
                    return false;
                }
                beginMutation(so);
                int hole = i;
                for (int j = next(i); ; j = next(j)) {
                    short t = tagGet(s, j);
                    if (t == 0) {
                        break;
                    }
                    MemorySegment cells = cellsOf(s);
                    int home = home(hash(cells.get(ValueLayout.JAVA_LONG, cellAt(s, j) + KEY_AT)));
                    if (distance(home, j) >= distance(hole, j)) {
                        MemorySegment.copy(cells, cellAt(s, j), cells, cellAt(s, hole), CELL);
                        tagSet(s, hole, t);
                        hole = j;
                    }
                }
                tagSet(s, hole, (short) 0);
                endMutation(so);
                return true;
            } finally {
                unlock(so);
            }
        }
    }

    /** No table: entry {@code id} at a fixed place; value overwritten in place under its stamp. */
    static final class Floor extends Table {
        static final int ENTRY = 288;
        final MemorySegment entries = Arena.global().allocate((long) KEYS * ENTRY, 2 << 20);

        Floor() {
            if (Boolean.getBoolean("huge")) { // before the first touch: madvise(MADV_HUGEPAGE), THP is "madvise" here
                try {
                    MethodHandle madvise = Linker.nativeLinker().downcallHandle(
                            Linker.nativeLinker().defaultLookup().find("madvise").orElseThrow(),
                            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                                    ValueLayout.JAVA_INT));
                    int rc = (int) madvise.invokeExact(entries, entries.byteSize(), 14);
                    if (rc != 0) {
                        throw new IllegalStateException("madvise returned " + rc);
                    }
                } catch (Throwable t) {
                    throw new IllegalStateException(t);
                }
            }
        }

        @Override
        boolean get(long id, long key, byte[] out) {
            long eo = id * ENTRY;
            while (true) {
                if (entries.get(ValueLayout.JAVA_LONG, eo + 16) != key) {
                    return false;
                }
                if (Segmented.readValue(entries, eo, eo + 24, out)) {
                    return true;
                }
            }
        }

        /** No lock here: two writers of one id take the stamp from even to odd by a CAS. */
        @Override
        void put(long id, long key, byte[] value) {
            long eo = id * ENTRY;
            long st;
            do {
                st = (long) LONG.getAcquire(entries, eo);
            } while ((st & 1) != 0 || !LONG.compareAndSet(entries, eo, st, st + 1));
            entries.set(ValueLayout.JAVA_LONG, eo + 16, key);
            MemorySegment.copy(value, 0, entries, ValueLayout.JAVA_BYTE, eo + 24, VALUE);
            LONG.setRelease(entries, eo, st + 2);
        }

        @Override
        boolean remove(long id, long key) {
            long eo = id * ENTRY;
            boolean present = entries.get(ValueLayout.JAVA_LONG, eo + 16) == key;
            entries.set(ValueLayout.JAVA_LONG, eo + 16, 0L);
            return present;
        }
    }

    static final class Chm extends Table {
        final ConcurrentHashMap<Long, byte[]> map = new ConcurrentHashMap<>(KEYS);

        @Override
        boolean get(long id, long key, byte[] out) {
            byte[] v = map.get(key);
            if (v == null) {
                return false;
            }
            // -Dread=words: read in place (as the bench's chm contender), the first and the last word
            if (COPY) {
                System.arraycopy(v, 0, out, 0, VALUE);
            } else {
                ARRAY_LONG.set(out, 0, (long) ARRAY_LONG.get(v, 0));
                ARRAY_LONG.set(out, 8, (long) ARRAY_LONG.get(v, VALUE - 8));
            }
            return true;
        }

        @Override
        void put(long id, long key, byte[] value) {
            map.put(key, value.clone());
        }

        @Override
        boolean remove(long id, long key) {
            return map.remove(key) != null;
        }
    }

    /**
     * A contender of the bench ({@code grove-hash}, {@code chronicle}, {@code ohc}, {@code chm}) through its
     * {@link KvMap}, exactly as {@code ./grove bench} drives it in maphash-80-15-5 (copying get, {@code zc().put}),
     * so that the real map and its peers run the same phases as the prototypes.
     */
    static final class Kv extends Table {
        final KvMap map;
        final ThreadLocal<KvThread> threads = ThreadLocal.withInitial(() -> new KvThread(8, VALUE));

        Kv(Contender<KvMap> contender, int threads) throws Exception {
            this.map = contender.open(new WorkerConfig("maphash-80-15-5", contender.name(), threads, 0, 0, KEYS, VALUE,
                    7L << 29, 42));
        }

        @Override
        boolean get(long id, long key, byte[] out) {
            KvThread t = threads.get();
            t.key(id);
            int r = map.get(t, id);
            if (r == KvMap.WRONG) {
                throw new IllegalStateException("wrong value for id " + id);
            }
            ARRAY_LONG.set(out, 0, key); // checked by the driver: the contender checked the value itself
            return r == KvMap.FOUND;
        }

        @Override
        void put(long id, long key, byte[] value) {
            KvThread t = threads.get();
            t.record(id);
            map.put(t, id);
        }

        @Override
        boolean remove(long id, long key) {
            KvThread t = threads.get();
            t.key(id);
            return map.remove(t, id);
        }

        @Override
        void close() {
            map.close();
        }
    }

    // ---- driver --------------------------------------------------------------------------------------------------

    static volatile boolean stop;

    static long[] phase(Table table, int threads, int mode, long nanos) throws InterruptedException {
        long[] ops = new long[threads];
        long[] bad = new long[1];
        Thread[] workers = new Thread[threads];
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        stop = false;
        for (int w = 0; w < threads; w++) {
            int index = w;
            workers[w] = new Thread(() -> {
                byte[] value = new byte[VALUE];
                byte[] out = new byte[VALUE];
                long rnd = 0x1234567L * (index + 1) + mode;
                long n = 0;
                long wrong = 0;
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                while (!stop) {
                    for (int k = 0; k < 256; k++) {
                        rnd += 0x9E3779B97F4A7C15L;
                        long r = key(rnd);
                        long id = (r >>> 1) % KEYS;
                        long key = key(id);
                        int pick = mode == 0 ? 0 : mode == 1 ? 90 : (int) ((r >>> 40) % 100);
                        for (int u = 0; u < WORK; u++) { // -Dwork: dependent arithmetic, no memory
                            rnd = Long.rotateLeft(rnd * 0x9E3779B97F4A7C15L, 7);
                        }
                        if (pick < 80) {
                            if (table.get(id, key, out) && (long) ARRAY_LONG.get(out, 0) != key) {
                                wrong++;
                            }
                        } else if (pick < 95) {
                            ARRAY_LONG.set(value, 0, key);
                            ARRAY_LONG.set(value, 8, n);
                            table.put(id, key, value);
                        } else {
                            table.remove(id, key);
                        }
                    }
                    n += 256;
                }
                ops[index] = n;
                synchronized (bad) {
                    bad[0] += wrong;
                }
            });
            workers[w].start();
        }
        ready.await();
        go.countDown();
        Thread.sleep(nanos / 1_000_000);
        stop = true;
        long total = 0;
        for (Thread t : workers) {
            t.join();
        }
        for (long n : ops) {
            total += n;
        }
        return new long[] {total, bad[0]};
    }

    public static void main(String[] args) throws Exception {
        String variant = args[0];
        boolean inPlace = args[1].equals("inplace");
        int threads = Integer.parseInt(args[2]);
        long nanos = (long) (Double.parseDouble(args[3]) * 1e9);
        Table table = switch (variant) {
            case "chained" -> new Chained(inPlace);
            case "open" -> new Open(inPlace);
            case "floor" -> new Floor();
            case "cells" -> new Cells();
            case "chm" -> new Chm();
            case "grove-hash" -> new Kv(GroveKv.INSTANCE, threads);
            case "grove-hash-inline" -> new Kv(GroveKv.INLINE, threads);
            case "grove-hash-inline-hp" -> new Kv(GroveKv.INLINE_HUGE_PAGES, threads);
            case "chronicle" -> new Kv(ChronicleKv.INSTANCE, threads);
            case "ohc" -> new Kv(OhcKv.INSTANCE, threads);
            case "chm-kv" -> new Kv(ChmKv.INSTANCE, threads);
            default -> throw new IllegalArgumentException("variant " + variant);
        };
        byte[] value = new byte[VALUE];
        for (long id = 0; id < KEYS; id++) {
            ARRAY_LONG.set(value, 0, key(id));
            table.put(id, key(id), value);
        }
        StringBuilder line = new StringBuilder(String.format("%-8s %-8s t=%d", variant, args[1], threads));
        String[] names = {"get", "put", "mix"};
        long bad = 0;
        for (int mode = 0; mode < 3; mode++) {
            phase(table, threads, mode, nanos); // warm-up
            long[] r = phase(table, threads, mode, nanos);
            bad += r[1];
            double nsPerOp = (double) nanos * threads / r[0];
            line.append(String.format("  %s %6.1f ns %6.2f Mops/s", names[mode], nsPerOp, r[0] / (nanos / 1e9) / 1e6));
        }
        line.append("  bad ").append(bad);
        System.out.println(line);
        table.close();
    }
}
