package io.grove.internal.memory;

import io.grove.internal.sync.Backoff;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * Nova's thread array of pointers (TAP, Nova §3.2): the slices being written right now. A writer announces the
 * slice before validating it, and the reclaimer does not free a slice that any slot announces.
 *
 * <p>Implementation notes.
 *
 * <p>Nova gives each thread one slot, which needs a bound on the number of threads. Here a writer instead
 * <em>claims</em> a free slot for the duration of one write: it starts at a slot chosen by its thread id and
 * takes the first empty one with {@code compareAndSet(EMPTY, ref)}. On the heap, slots live in chunks of 64, 128, 256,
 * ... slots; a chunk is added only when every slot of the existing chunks is taken at once, so the number of slots
 * tracks the most writes ever in progress at the same time, not the number of threads. Thread pools of hundreds of
 * threads and virtual threads (which may be unmounted mid-write while holding a slot) need nothing special.
 *
 * <p>Each slot sits on its own 64-byte line, so writers on different cores do not share lines.
 *
 * <p>Where the slots live: on the heap for a pool in memory ({@link OnHeap}, where Lincheck's model checker sees
 * them), in the file for a pool over one ({@link InFile}), where the reclaimers of every process that has the file
 * open read them. A file's slots are a fixed number, each naming the process record of its writer, so that the
 * slots a process left when it ended can be told apart and emptied.
 *
 * <p>Memory ordering (Nova, §3.4). The claim is a volatile CAS, which is the full fence Nova places after
 * setting the TAP entry: the writer's following volatile read of the slice state cannot move before it. The
 * reclaimer reads every slot with {@code getVolatile} after the deleting CAS on the state; both sides being
 * sequentially consistent, either the writer sees the deleted state and backs off, or the reclaimer sees the slot.
 * The slot is cleared with {@code setRelease}, so the data the writer stored is visible to whoever reuses the
 * slice after seeing the slot empty.
 */
abstract sealed class HazardSlots permits HazardSlots.OnHeap, HazardSlots.InFile {
    /** No granule: what {@link #announcedGranules} returns, shared, when no slice is announced. */
    static final long[] NONE = new long[0];

    /**
     * Announces that the calling thread is about to write {@code ref}'s slice. Returns a token for {@link #clear}.
     */
    abstract long announce(long ref);

    /** Ends the write announced under {@code token}. */
    abstract void clear(long token);

    /**
     * The granules of all slices announced now, sorted ascending (for {@link Arrays#binarySearch}); allocates
     * nothing when none is (the common case when a release batch is reclaimed, once per batch).
     */
    abstract long[] announcedGranules();

    /** The slots of a pool in memory: chunks of heap arrays. */
    static final class OnHeap extends HazardSlots {
        private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
        private static final VarHandle CHUNK = MethodHandles.arrayElementVarHandle(long[][].class);
        static final long EMPTY = Reference.NULL;

        /** log2 of the longs per 64-byte line: slot {@code i} of a chunk is element {@code i << SPREAD}. */
        private static final int SPREAD = 3;
        private static final int FIRST_CHUNK_SLOTS = 64;
        private static final int MAX_CHUNKS = 16;
        /** A token names chunk and slot: {@code chunk << TOKEN_SHIFT | slot}. */
        private static final int TOKEN_SHIFT = 32;

        private final long[][] chunks = new long[MAX_CHUNKS][];

        OnHeap() {
            chunks[0] = new long[FIRST_CHUNK_SLOTS << SPREAD];
        }

        @Override
        long announce(long ref) {
            int home = (int) Thread.currentThread().threadId();
            for (int c = 0; c < MAX_CHUNKS; c++) {
                long[] chunk = (long[]) CHUNK.getAcquire(chunks, c);
                if (chunk == null) {
                    chunk = addChunk(c);
                }
                int slots = chunk.length >>> SPREAD;
                for (int probe = 0; probe < slots; probe++) {
                    int slot = (home + probe) & (slots - 1);
                    int index = slot << SPREAD;
                    if ((long) SLOT.getVolatile(chunk, index) == EMPTY
                            && SLOT.compareAndSet(chunk, index, EMPTY, ref)) {
                        return ((long) c << TOKEN_SHIFT) | slot;
                    }
                }
            }
            throw new IllegalStateException("more than " + ((FIRST_CHUNK_SLOTS << MAX_CHUNKS) - FIRST_CHUNK_SLOTS)
                    + " writes in progress at once");
        }

        private long[] addChunk(int c) {
            long[] fresh = new long[(FIRST_CHUNK_SLOTS << c) << SPREAD];
            if (CHUNK.compareAndSet(chunks, c, (long[]) null, fresh)) {
                return fresh;
            }
            return (long[]) CHUNK.getAcquire(chunks, c);
        }

        @Override
        void clear(long token) {
            long[] chunk = chunks[(int) (token >>> TOKEN_SHIFT)];
            SLOT.setRelease(chunk, ((int) token) << SPREAD, EMPTY);
        }

        @Override
        long[] announcedGranules() {
            long[] found = NONE;
            int count = 0;
            for (int c = 0; c < MAX_CHUNKS; c++) {
                long[] chunk = (long[]) CHUNK.getAcquire(chunks, c);
                if (chunk == null) {
                    break;
                }
                for (int index = 0; index < chunk.length; index += 1 << SPREAD) {
                    long ref = (long) SLOT.getVolatile(chunk, index);
                    if (ref != EMPTY) {
                        if (count == found.length) {
                            found = Arrays.copyOf(found, Math.max(16, count * 2));
                        }
                        found[count++] = Reference.granule(ref);
                    }
                }
            }
            return sorted(found, count);
        }
    }

    /**
     * The slots of a pool over a file: the file's hazard area, a power of two of 64-byte lines, each line's first
     * word a slot that holds {@code (record + 1) << OWNER_SHIFT | granule} (the process record of the writer, the
     * granule it writes) or 0 when empty. When every slot is taken, a writer waits ({@link Backoff}) until one is free.
     */
    static final class InFile extends HazardSlots {
        private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();
        private static final int OWNER_SHIFT = Reference.GRANULE_BITS;
        private static final int LINE_SHIFT = 6;

        private final MemorySegment area;
        private final int slots;
        /** This process's part of every slot it fills. */
        private final long owner;
        /**
         * Where this process's threads start looking for a free slot: thread ids repeat across processes (each JVM
         * numbers its threads from 1), so without it the threads of two processes would start at the same slots and
         * take their lines from each other on every write.
         */
        private final int processHome;

        /** The slots in {@code area}, filled by the process in record {@code record} of the file's process table. */
        InFile(MemorySegment area, int record) {
            this.area = area;
            this.slots = (int) (area.byteSize() >>> LINE_SHIFT);
            if (Integer.bitCount(slots) != 1) {
                throw new IllegalArgumentException("a hazard area of " + area.byteSize() + " bytes");
            }
            this.owner = (long) (record + 1) << OWNER_SHIFT;
            this.processHome = (int) ((record * 0x9E3779B97F4A7C15L) >>> 40);
        }

        @Override
        long announce(long ref) {
            long word = owner | Reference.granule(ref);
            int home = processHome + (int) Thread.currentThread().threadId();
            for (int attempt = 0; ; attempt++) {
                for (int probe = 0; probe < slots; probe++) {
                    long at = (long) ((home + probe) & (slots - 1)) << LINE_SHIFT;
                    if ((long) WORD.getVolatile(area, at) == 0 && WORD.compareAndSet(area, at, 0L, word)) {
                        return at;
                    }
                }
                Backoff.pause(attempt); // every slot holds a write in progress: one ends soon
            }
        }

        @Override
        void clear(long token) {
            WORD.setRelease(area, token, 0L);
        }

        @Override
        long[] announcedGranules() {
            long[] found = NONE;
            int count = 0;
            for (long at = 0; at < area.byteSize(); at += 1 << LINE_SHIFT) {
                long word = (long) WORD.getVolatile(area, at);
                if (word != 0) {
                    if (count == found.length) {
                        found = Arrays.copyOf(found, Math.max(16, count * 2));
                    }
                    found[count++] = Reference.granule(word);
                }
            }
            return sorted(found, count);
        }

        /**
         * Empties every slot: the processes that filled them ended (the caller opened the file with no other process
         * having it open). Before any use.
         */
        void clearAll() {
            area.fill((byte) 0);
        }

        /**
         * Empties the slots that the process in record {@code record}, which ended, left filled (its writes ended with
         * it), while other processes use the others; returns how many.
         */
        int clearOf(int record) {
            long ownerOf = (long) (record + 1) << OWNER_SHIFT;
            int cleared = 0;
            for (long at = 0; at < area.byteSize(); at += 1 << LINE_SHIFT) {
                long word = (long) WORD.getVolatile(area, at);
                if ((word & -(1L << OWNER_SHIFT)) == ownerOf && WORD.compareAndSet(area, at, word, 0L)) {
                    cleared++;
                }
            }
            return cleared;
        }
    }

    /** The first {@code count} granules of {@code found}, sorted; {@link #NONE} if there are none. */
    private static long[] sorted(long[] found, int count) {
        if (count == 0) {
            return NONE;
        }
        long[] granules = Arrays.copyOf(found, count);
        Arrays.sort(granules);
        return granules;
    }
}
