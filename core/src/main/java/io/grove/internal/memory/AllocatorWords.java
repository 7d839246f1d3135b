package io.grove.internal.memory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * The words every thread of a pool's allocator updates: the bump pointer and the granules it skipped ({@link Blocks}),
 * the era ({@link NovaAllocator}) and the head of each free list ({@link FreeLists}); and the counts of live slices and
 * free granules, which each process changes in stripes of its own that its threads add to without contending with
 * other processes' (a {@link LongAdder} for a pool in memory), and whose sums are the counts. Where they live is this
 * class's one concern: on the heap for a pool in memory ({@link OnHeap}), in the pool state record and the count area
 * of a file for a pool over one ({@link InFile}), so that the file holds the allocator's state at every moment,
 * as a process that shares the file with others needs (two processes' compare-and-sets on one mapped word are atomic
 * with respect to each other).
 *
 * <p>Implementation notes. Both kinds give the same guarantees: every read of a word is volatile, every update a
 * volatile compare-and-set, add or store; the two counts are sums of striped cells read one by one (a
 * {@link LongAdder}'s on the heap, 16 stripes per process record in a file), so a count read while allocations run is
 * exact at no single moment, and exact when none runs. The heap kind is kept, rather than one kind over a segment for
 * both, because Lincheck's model checker sees heap fields and arrays and not {@code MemorySegment} accesses: the model
 * checking of the allocator ({@code SliceRegisterModelCheckingTest}) explores the races on these words only on the
 * heap.
 */
abstract sealed class AllocatorWords permits AllocatorWords.OnHeap, AllocatorWords.InFile {
    abstract long bump();

    abstract boolean casBump(long expected, long next);

    abstract long wasted();

    abstract void addWasted(long granules);

    /** Sets the bump pointer and the skipped granules; before any use. */
    abstract void setBump(long bump, long wasted);

    abstract long era();

    /** Advances the era by one; returns the era before. */
    abstract long advanceEra();

    /** Sets the era; before any use. */
    abstract void setEra(long era);

    /** The head of free list {@code c}: an ABA tag and the granule of its first slice plus one (0: empty). */
    abstract long head(int c);

    abstract boolean casHead(int c, long expected, long next);

    /** Empties every free list; before any use. */
    abstract void clearHeads();

    /** Counts {@code delta} more live slices, a change of this process's. */
    abstract void addLive(long delta);

    /** Counts {@code delta} more free granules, a change of this process's. */
    abstract void addFree(long delta);

    /** The live slices, every process's changes summed; exact when no allocation runs. */
    abstract long liveSlices();

    /** The free granules, every process's changes summed; exact when no allocation runs. */
    abstract long freeGranules();

    /** Sets both counts to 0, every process's stripes: a recovery counts everything again. Before any use. */
    abstract void clearCounts();

    /** The words of a pool in memory: fields and an array. */
    static final class OnHeap extends AllocatorWords {
        private static final VarHandle BUMP;
        private static final VarHandle WASTED;
        private static final VarHandle ERA;
        private static final VarHandle HEAD = MethodHandles.arrayElementVarHandle(long[].class);

        static {
            try {
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                BUMP = lookup.findVarHandle(OnHeap.class, "bump", long.class);
                WASTED = lookup.findVarHandle(OnHeap.class, "wasted", long.class);
                ERA = lookup.findVarHandle(OnHeap.class, "era", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @SuppressWarnings("unused") // accessed through BUMP
        private volatile long bump;
        @SuppressWarnings("unused") // accessed through WASTED
        private volatile long wasted;
        @SuppressWarnings("unused") // accessed through ERA
        private volatile long era = 1;
        private final LongAdder live = new LongAdder();
        private final LongAdder free = new LongAdder();
        private final long[] heads;

        OnHeap(int classes) {
            heads = new long[classes];
        }

        /**
         * Words holding what a file's pool state record and its processes' counts ({@code counts}) hold now, for a
         * pool that reads the file without changing it; as many heads as the record has, at most {@code classes}.
         */
        static OnHeap copyOf(MemorySegment state, MemorySegment counts, int classes) {
            OnHeap words = new OnHeap(classes);
            words.setBump(PoolStateLayout.bump(state), PoolStateLayout.wasted(state));
            words.setEra(PoolStateLayout.era(state));
            words.addLive(InFile.sum(counts, InFile.LIVE));
            words.addFree(InFile.sum(counts, InFile.FREE));
            for (int c = 0; c < Math.min(classes, PoolStateLayout.classes(state)); c++) {
                HEAD.setVolatile(words.heads, c, PoolStateLayout.head(state, c));
            }
            return words;
        }

        @Override
        long bump() {
            return (long) BUMP.getVolatile(this);
        }

        @Override
        boolean casBump(long expected, long next) {
            return BUMP.compareAndSet(this, expected, next);
        }

        @Override
        long wasted() {
            return (long) WASTED.getVolatile(this);
        }

        @Override
        void addWasted(long granules) {
            WASTED.getAndAdd(this, granules);
        }

        @Override
        void setBump(long bump, long wasted) {
            BUMP.setVolatile(this, bump);
            WASTED.setVolatile(this, wasted);
        }

        @Override
        long era() {
            return (long) ERA.getVolatile(this);
        }

        @Override
        long advanceEra() {
            return (long) ERA.getAndAdd(this, 1L);
        }

        @Override
        void setEra(long era) {
            ERA.setVolatile(this, era);
        }

        @Override
        long head(int c) {
            return (long) HEAD.getVolatile(heads, c);
        }

        @Override
        boolean casHead(int c, long expected, long next) {
            return HEAD.compareAndSet(heads, c, expected, next);
        }

        @Override
        void clearHeads() {
            for (int c = 0; c < heads.length; c++) {
                HEAD.setVolatile(heads, c, 0L);
            }
        }

        @Override
        void addLive(long delta) {
            live.add(delta);
        }

        @Override
        void addFree(long delta) {
            free.add(delta);
        }

        @Override
        long liveSlices() {
            return live.sum();
        }

        @Override
        long freeGranules() {
            return free.sum();
        }

        @Override
        void clearCounts() {
            live.reset();
            free.reset();
        }
    }

    /**
     * The words of a pool over a file: in its pool state record ({@link PoolStateLayout}), and each process's counts
     * in its part of the file's count area: {@value #STRIPES} stripes of one 64-byte line each (live slices at byte 0,
     * free granules at byte 8), a thread adding to the stripe its id picks.
     */
    static final class InFile extends AllocatorWords {
        /** The stripes of one process's counts. */
        static final int STRIPES = 16;
        /** The bytes of one stripe: a cache line, so that threads adding to two stripes never share one. */
        static final long STRIPE_BYTES = 64;
        /**
         * The bytes of one process's counts in the count area. A process's stripes are never emptied: a record taken
         * by a new process, after a close or a salvage, goes on from the counts the last one left there.
         */
        static final long AREA_BYTES = STRIPES * STRIPE_BYTES;
        static final long LIVE = 0;
        static final long FREE = 8;
        private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle().withInvokeExactBehavior();

        private final MemorySegment state;
        private final MemorySegment counts;
        /** Where this process's counts start in {@link #counts}. */
        private final long own;
        private final int classes;

        /**
         * The words in {@code state}, whose free lists must have {@code classes} size classes (recorded there if
         * the record has none yet), counting this process's changes in record {@code record}'s part of
         * {@code counts}, the count area.
         *
         * @throws IllegalStateException if the record has another number of size classes
         */
        InFile(MemorySegment state, MemorySegment counts, int record, int classes) {
            this.state = state;
            this.counts = counts;
            this.own = record * AREA_BYTES;
            this.classes = classes;
            long recorded = PoolStateLayout.classes(state);
            if (recorded == 0) {
                PoolStateLayout.setClasses(state, classes);
                setEra(1);
            } else if (recorded != classes) {
                throw new IllegalStateException("recorded free lists have " + recorded + " size classes, " + classes
                        + " expected");
            }
        }

        @Override
        long bump() {
            return (long) WORD.getVolatile(state, PoolStateLayout.BUMP);
        }

        @Override
        boolean casBump(long expected, long next) {
            return WORD.compareAndSet(state, PoolStateLayout.BUMP, expected, next);
        }

        @Override
        long wasted() {
            return (long) WORD.getVolatile(state, PoolStateLayout.WASTED);
        }

        @Override
        void addWasted(long granules) {
            long _ = (long) WORD.getAndAdd(state, PoolStateLayout.WASTED, granules);
        }

        @Override
        void setBump(long bump, long wasted) {
            WORD.setVolatile(state, PoolStateLayout.BUMP, bump);
            WORD.setVolatile(state, PoolStateLayout.WASTED, wasted);
        }

        @Override
        long era() {
            return (long) WORD.getVolatile(state, PoolStateLayout.ERA);
        }

        @Override
        long advanceEra() {
            return (long) WORD.getAndAdd(state, PoolStateLayout.ERA, 1L);
        }

        @Override
        void setEra(long era) {
            WORD.setVolatile(state, PoolStateLayout.ERA, era);
        }

        @Override
        long head(int c) {
            return (long) WORD.getVolatile(state, PoolStateLayout.headOffset(c));
        }

        @Override
        boolean casHead(int c, long expected, long next) {
            return WORD.compareAndSet(state, PoolStateLayout.headOffset(c), expected, next);
        }

        @Override
        void clearHeads() {
            for (int c = 0; c < classes; c++) {
                WORD.setVolatile(state, PoolStateLayout.headOffset(c), 0L);
            }
        }

        @Override
        void addLive(long delta) {
            long _ = (long) WORD.getAndAdd(counts, ownStripe() + LIVE, delta);
        }

        @Override
        void addFree(long delta) {
            long _ = (long) WORD.getAndAdd(counts, ownStripe() + FREE, delta);
        }

        /** Where the calling thread's stripe of this process's counts starts. */
        private long ownStripe() {
            return own + (Thread.currentThread().threadId() & (STRIPES - 1)) * STRIPE_BYTES;
        }

        @Override
        long liveSlices() {
            return sum(counts, LIVE);
        }

        @Override
        long freeGranules() {
            return sum(counts, FREE);
        }

        /** The sum of the count at {@code at} of every stripe of every process in count area {@code counts}. */
        static long sum(MemorySegment counts, long at) {
            long sum = 0;
            for (long stripe = 0; stripe < counts.byteSize(); stripe += STRIPE_BYTES) {
                sum += (long) WORD.getVolatile(counts, stripe + at);
            }
            return sum;
        }

        @Override
        void clearCounts() {
            counts.fill((byte) 0);
        }
    }
}
