package io.grove.hash.concurrent;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.testing.StressRun;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Lock-free reads of entries lying in cells while writers move them: removals and re-insertions of the other keys
 * of their runs shift cells back and forth, the segments grow, and puts of values of another size rewrite a cell
 * (or move its entry apart and back). A value names its key and its length in every 8-byte word, so a read that
 * accepted another entry's bytes (a cell a shift filled with a neighbour, an array a growth freed), or a mix of two
 * values, names another key or length somewhere. Every value a reader gets must be whole and its key's.
 *
 * <p>A reader's search and its copy of the value are validated by the segment's version: a mutation between them
 * means the entry may have moved, and the read is done again. Accepting the copy when the entry's stamp alone did
 * not move (as for an entry apart, whose slice stays put) failed this test within 0.7 to 3.7 s in each of its
 * three thread kinds.
 */
class CellMoveReadStressTest {
    /** Few keys per segment run long enough for removals to shift them, with 16 segments. */
    private static final int KEYS = 3_000;
    private static final long WRITES_PER_WRITER = 150_000;
    private static final int WRITERS = 2;

    @ParameterizedTest
    @EnumSource(StressRun.Threads.class)
    void readsOfMovingCellsAreWholeAndTheirKeys(StressRun.Threads threads) throws Exception {
        try (GroveHashMap<Long, byte[]> map = GroveHashMap.builder(Serializers.longs(), Serializers.bytes())
                .expectedSize(1).memoryLimit(64L << 20).inlineEntries(Long.BYTES, 64).build()) {
            for (long k = 0; k < KEYS; k += 2) {
                map.put(k, value(k, 16));
            }
            AtomicLong reads = new AtomicLong();
            AtomicLong writesDone = new AtomicLong();
            StressRun run = new StressRun();
            run.workers(Thread.ofPlatform().daemon(true).name("cell-writer-", 0).factory(), WRITERS, index -> {
                SplittableRandom random = new SplittableRandom(index * 31L + 7);
                for (long i = 0; i < WRITES_PER_WRITER && run.proceed(i); i++) {
                    long k = random.nextInt(KEYS);
                    switch (random.nextInt(4)) {
                        case 0 -> map.remove(k);
                        // 80-byte values do not fit the 64-byte room: the entry goes apart, and back on the next put
                        default -> map.put(k, value(k, 8 * (1 + random.nextInt(10))));
                    }
                }
                writesDone.incrementAndGet();
            });
            int readers = Math.max(1, threads.count - WRITERS);
            run.workers(threads.factory("cell-reader"), readers, index -> {
                SplittableRandom random = new SplittableRandom(index * 131L + 3);
                long n = 0;
                for (long i = 0; writesDone.get() < WRITERS && run.proceed(i); i++) {
                    long k = random.nextInt(KEYS);
                    byte[] v = map.get(k);
                    if (v != null) {
                        check(k, v);
                    }
                    n++;
                }
                reads.addAndGet(n);
            });
            run.runAndCheck("reads of moving cells (" + threads + ")", () -> reads.get() + " reads");
        }
    }

    /** A value of {@code length} bytes (a multiple of 8) for key {@code k}: each word is {@code k * 128 + length}. */
    private static byte[] value(long k, int length) {
        ByteBuffer b = ByteBuffer.allocate(length);
        while (b.hasRemaining()) {
            b.putLong(k * 128 + length);
        }
        return b.array();
    }

    private static void check(long k, byte[] v) {
        if (v.length % 8 != 0 || v.length == 0) {
            throw new AssertionError("key " + k + ": a value of " + v.length + " bytes, never written");
        }
        ByteBuffer b = ByteBuffer.wrap(v);
        for (int i = 0; i < v.length; i += 8) {
            long word = b.getLong(i);
            if (word != k * 128 + v.length) {
                throw new AssertionError("key " + k + ": word " + i / 8 + " of a " + v.length + "-byte value names key "
                        + (word >> 7) + " and length " + (word & 127));
            }
        }
    }
}
