package io.grove.internal.view;

import io.grove.Reclamation;
import io.grove.internal.memory.Pool;
import io.grove.testing.StressRun;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ConcurrentModificationException;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Handles with a {@link SliceStamp} read slices that writers rewrite in place, one byte at a time, and then delete
 * (Nova reuses their memory at once for the next slice): every read (a getter, a copy, a reader function) must
 * return one state of its own slice, or throw {@link ConcurrentModificationException} once the slice is gone.
 *
 * <p>Slice payload: the stamp, the slice's generation (a number no other slice has), then {@value #WORDS} words
 * whose every byte is the number of the write that wrote it. A torn read shows words, or bytes within a word, that
 * differ; a read of reused memory that escaped validation shows another generation.
 */
class SliceHandleStampStressTest {
    private static final int WORDS = 128;
    private static final int STAMP = 0;
    private static final int GENERATION = 8;
    private static final int VALUE = 16;
    private static final int SIZE = VALUE + WORDS * Long.BYTES;
    private static final int SLOTS = 2;
    private static final int WRITES_PER_SLOT = 3_000;
    private static final int WRITES_PER_SLICE = 200;
    private static final ValueLayout.OfLong WORD =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    /** The slice a slot holds now, and its generation. */
    private record Slice(long ref, long generation) {}

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void everyReadSeesOneStateOfItsOwnSlice(StressRun.Threads threads) throws Exception {
        Pool pool = new Pool(1 << 16, 64 << 16, Reclamation.NOVA);
        try {
            AtomicReferenceArray<Slice> slots = new AtomicReferenceArray<>(SLOTS);
            AtomicLong generations = new AtomicLong();
            for (int s = 0; s < SLOTS; s++) {
                slots.set(s, newSlice(pool, generations.incrementAndGet()));
            }
            AtomicInteger writersLeft = new AtomicInteger(SLOTS);
            AtomicLong writes = new AtomicLong();
            AtomicLong reads = new AtomicLong();
            AtomicLong removalsSeen = new AtomicLong();
            StressRun run = new StressRun();
            run.workers(threads.factory("writer"), SLOTS, slot -> {
                try {
                    // past WRITES_PER_SLOT until a reader saw a removal: virtual writers can otherwise finish
                    // before the readers are scheduled (a 5 ms run with no removal seen, in a CI run)
                    for (int w = 1; (w <= WRITES_PER_SLOT || removalsSeen.get() == 0) && run.proceed(w); w++) {
                        Slice slice = slots.get(slot);
                        rewrite(pool, slice.ref(), w);
                        writes.incrementAndGet();
                        if (w % WRITES_PER_SLICE == 0) {
                            slots.set(slot, newSlice(pool, generations.incrementAndGet()));
                            remove(pool, slice.ref(), w % (2 * WRITES_PER_SLICE) == 0);
                        }
                    }
                } finally {
                    writersLeft.decrementAndGet();
                }
            });
            run.workers(threads.factory("reader"), threads.count - SLOTS, index -> {
                SplittableRandom random = new SplittableRandom(index);
                SliceHandle handle = new SliceHandle(pool);
                byte[] copy = new byte[SIZE - GENERATION];
                ByteBuffer direct = ByteBuffer.allocateDirect(SIZE - GENERATION);
                for (long i = 0; writersLeft.get() > 0 && run.proceed(i); i++) {
                    Slice slice = slots.get(random.nextInt(SLOTS));
                    try {
                        handle.pointAt(slice.ref(), GENERATION, -1, STAMP);
                        for (int r = 0; r < 16; r++) {
                            readOnce(handle, slice.generation(), random.nextInt(4), copy, direct);
                            reads.incrementAndGet();
                        }
                    } catch (ConcurrentModificationException removed) {
                        removalsSeen.incrementAndGet();
                    }
                }
            });
            run.runAndCheck("stamped handles vs in-place writes and removals, " + threads,
                    () -> "writes " + writes.get() + ", reads " + reads.get() + ", removals seen "
                            + removalsSeen.get());
            if (reads.get() == 0 || removalsSeen.get() == 0) {
                throw new AssertionError("vacuous run: reads " + reads.get() + ", removals seen " + removalsSeen.get());
            }
        } finally {
            pool.close();
        }
    }

    private static Slice newSlice(Pool pool, long generation) {
        long ref = pool.allocate(SIZE);
        MemorySegment block = pool.segment(ref);
        long at = pool.payloadOffset(ref);
        block.set(ValueLayout.JAVA_LONG, at + STAMP, 0L);
        block.set(WORD, at + GENERATION, generation);
        for (int i = 0; i < WORDS; i++) {
            block.set(WORD, at + VALUE + (long) i * Long.BYTES, 0L);
        }
        return new Slice(ref, generation);
    }

    /** An in-place write as a map makes it under its lock: every byte of every word set to {@code w}, one by one. */
    private static void rewrite(Pool pool, long ref, int w) {
        MemorySegment block = pool.segment(ref);
        long at = pool.payloadOffset(ref);
        long odd = SliceStamp.beginWrite(block, at + STAMP);
        for (int b = 0; b < WORDS * Long.BYTES; b++) {
            block.set(ValueLayout.JAVA_BYTE, at + VALUE + b, (byte) w);
        }
        SliceStamp.endWrite(block, at + STAMP, odd);
    }

    /** Removes the slice, with or without marking its stamp first, and lets its memory be reused at once. */
    private static void remove(Pool pool, long ref, boolean markRemoved) {
        if (markRemoved) {
            MemorySegment block = pool.segment(ref);
            long at = pool.payloadOffset(ref) + STAMP;
            block.set(ValueLayout.JAVA_LONG, at, block.get(ValueLayout.JAVA_LONG, at) | SliceStamp.REMOVED);
        }
        pool.delete(ref);
        pool.reclaimNow();
    }

    private static void readOnce(SliceHandle handle, long generation, int kind, byte[] copy, ByteBuffer direct) {
        switch (kind) {
            case 0 -> handle.read(view -> {
                check(view.getLong(0), generation, "read(fn)");
                long first = view.getLong(Long.BYTES);
                for (int i = 1; i <= WORDS; i++) {
                    checkWord(view.getLong(i * Long.BYTES), first, "read(fn)");
                }
                return null;
            });
            case 1 -> {
                handle.copyTo(0, copy, 0, copy.length);
                MemorySegment bytes = MemorySegment.ofArray(copy);
                checkCopy(bytes, generation, "copyTo(byte[])");
            }
            case 2 -> {
                direct.clear();
                handle.copyTo(0, direct);
                checkCopy(MemorySegment.ofBuffer(direct.flip()), generation, "copyTo(ByteBuffer)");
            }
            default -> {
                check(handle.getLong(0), generation, "getLong");
                long word = handle.getLong(Long.BYTES * (1 + (int) (generation % WORDS)));
                checkWord(word, word, "getLong");
            }
        }
    }

    private static void checkCopy(MemorySegment bytes, long generation, String how) {
        check(bytes.get(WORD, 0), generation, how);
        long first = bytes.get(WORD, Long.BYTES);
        for (int i = 1; i <= WORDS; i++) {
            checkWord(bytes.get(WORD, (long) i * Long.BYTES), first, how);
        }
    }

    private static void check(long generation, long expected, String how) {
        if (generation != expected) {
            throw new AssertionError(how + " read the bytes of another slice: generation " + generation
                    + " instead of " + expected);
        }
    }

    /** A word must equal {@code first} and have eight equal bytes. */
    private static void checkWord(long word, long first, String how) {
        if (word != first || word != (word & 0xFF) * 0x0101_0101_0101_0101L) {
            throw new AssertionError(how + " returned a torn value: word " + Long.toHexString(word) + ", first word "
                    + Long.toHexString(first));
        }
    }
}
