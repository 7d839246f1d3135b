package io.grove.testing;

import io.grove.ZeroCopyMap;
import io.grove.view.Handle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads racing with in-place updates of the same large values: writers rewrite every word of a value with the next
 * number ({@link Writer}: through {@code zc().computeIfPresent}, or a {@code put} of a value of the same size, which
 * a map may copy over the old one in place), readers read it ({@link Reader}: a copying {@code Map.get}, or a
 * zero-copy handle's {@code read}) and fail if its words differ (a read that mixed two versions). A read is atomic
 * only through its optimistic protocol's final check that no update ran meanwhile; without it, reads of
 * {@value #VALUE_BYTES}-byte values overlap rewrites often enough to be caught within a run. Few keys, so writers
 * and readers meet on each.
 */
public final class InPlaceUpdateReads {
    /** The values' size: long enough that a copy and a rewrite overlap often. */
    public static final int VALUE_BYTES = 16 * 1024;
    /** The values' size when writers put them: the largest the hash map replaces in place. */
    public static final int PUT_VALUE_BYTES = 4 * 1024;
    private static final int KEYS = 4;
    /**
     * Copiers stop after this many reads in all even while writers remain. On virtual threads, 120 CPU-bound
     * copiers can keep the carriers from resuming a parked writer for seconds (the scheduler behaviour
     * {@link StressRun} describes): once seen in a run of the hash map's tests, one writer made 1,026 of its 1,500
     * updates in the 20 s cap while the copiers read 12.5M times. Runs that finish read 0.1M to 2.3M times in all,
     * so the bound only ends the copiers of a run that would otherwise starve its last writer into the cap.
     */
    private static final long MAX_READS = 4_000_000;
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private InPlaceUpdateReads() {}

    /** How the writers rewrite a value. */
    public enum Writer {
        /** {@code zc().computeIfPresent}, rewriting the value's words in place; handles on the value stay valid. */
        IN_PLACE_UPDATE,
        /**
         * {@code Map.put} of a new value of the same size. A handle made before it must fail afterwards rather than
         * read the new value, even where the map copies the new value over the old one: readers through handles also
         * read each handle twice and fail if the second read returns another value.
         */
        PUT
    }

    /** How the readers read a value. */
    public enum Reader {
        /** {@code Map.get}, which copies the value. */
        COPYING_GET,
        /**
         * {@code zc().get(key).read(view -> ...)}: the handle's consistent read, which its javadoc promises for
         * reads of several fields (before handles read under the value's stamp, it was seen torn about 1 read in
         * 460 on the hash map and 1 in 800 on the ordered map).
         */
        HANDLE_READ
    }

    /**
     * Runs writers and readers of {@code threads} on {@code map} (empty, keys {@code 0..3}) until the writers made
     * {@code totalUpdates} rewrites; {@code what} names the run in messages.
     */
    public static void run(Map<Long, byte[]> map, ZeroCopyMap<Long, byte[]> zc, StressRun.Threads threads,
            Writer writer, Reader reader, long totalUpdates, String what) throws Exception {
        run(map, zc, threads, writer, reader, totalUpdates, writer == Writer.PUT ? PUT_VALUE_BYTES : VALUE_BYTES,
                what);
    }

    /**
     * As {@link #run(Map, ZeroCopyMap, StressRun.Threads, Writer, Reader, long, String)}, with values of
     * {@code valueBytes} bytes (a positive multiple of 8) whichever the writer.
     */
    public static void run(Map<Long, byte[]> map, ZeroCopyMap<Long, byte[]> zc, StressRun.Threads threads,
            Writer writer, Reader reader, long totalUpdates, int valueBytes, String what) throws Exception {
        if (valueBytes <= 0 || valueBytes % Long.BYTES != 0) {
            throw new IllegalArgumentException("valueBytes must be a positive multiple of 8, was " + valueBytes);
        }
        for (long k = 0; k < KEYS; k++) {
            map.put(k, new byte[valueBytes]);
        }
        int writers = Math.max(1, threads.count / 4);
        long updatesPerWriter = totalUpdates / writers;
        AtomicLong updates = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        AtomicLong writersLeft = new AtomicLong(writers);
        StressRun run = new StressRun();
        run.workers(threads.factory("rewriter"), writers, index -> {
            long i = 0;
            try {
                for (; i < updatesPerWriter && run.proceed(i); i++) {
                    long key = i % KEYS;
                    if (writer == Writer.PUT) {
                        byte[] fresh = new byte[valueBytes];
                        long next = (long) WORDS.get(map.get(key), 0) + 1;
                        for (int at = 0; at < valueBytes; at += Long.BYTES) {
                            WORDS.set(fresh, at, next);
                        }
                        map.put(key, fresh);
                    } else {
                        zc.computeIfPresent(key, view -> {
                            long next = view.getLong(0) + 1;
                            for (int at = 0; at < valueBytes; at += Long.BYTES) {
                                view.putLong(at, next);
                            }
                        });
                    }
                }
            } finally {
                updates.addAndGet(i);
                writersLeft.decrementAndGet();
            }
        });
        run.workers(threads.factory("copier"), threads.count - writers, index -> {
            for (long i = 0; writersLeft.get() > 0 && reads.get() < MAX_READS && run.proceed(i); i++) {
                long key = (index + i) % KEYS;
                if (reader == Reader.COPYING_GET) {
                    byte[] value = map.get(key);
                    checkWords(key, "get", valueBytes, at -> (long) WORDS.get(value, at));
                } else if (writer == Writer.IN_PLACE_UPDATE) {
                    zc.get(key).read(view -> {
                        checkWords(key, "a handle's read", valueBytes, view::getLong);
                        return null;
                    });
                } else {
                    readTwice(key, zc.get(key), valueBytes);
                }
                reads.incrementAndGet();
            }
        });
        run.runAndCheck(what, () -> "updates " + updates.get() + ", reads " + reads.get());
        if (reads.get() == 0) {
            throw new AssertionError(what + ": vacuous run, no read completed");
        }
    }

    /**
     * Reads {@code handle} twice, consistently; with puts as the only writes, the second read must return the first's
     * value or fail: the value a handle was made on never changes, it is replaced.
     */
    private static void readTwice(long key, Handle handle, int valueBytes) {
        try {
            long first = handle.read(view -> {
                checkWords(key, "a handle's read", valueBytes, view::getLong);
                return view.getLong(0);
            });
            long second = handle.read(view -> view.getLong(0));
            if (second != first) {
                throw new AssertionError("a handle on key " + key + " read " + first + ", then " + second
                        + ": it read a value put after it was made");
            }
        } catch (ConcurrentModificationException replaced) {
            // the entry the handle was made on was replaced: the handle fails, as it must
        }
    }

    /** Fails if the words of a {@code valueBytes}-byte value, read by {@code word} from each byte offset, differ. */
    private static void checkWords(long key, String how, int valueBytes,
            java.util.function.IntToLongFunction word) {
        long first = word.applyAsLong(0);
        for (int at = Long.BYTES; at < valueBytes; at += Long.BYTES) {
            long w = word.applyAsLong(at);
            if (w != first) {
                throw new AssertionError(how + " of key " + key + " returned a torn value: word 0 is " + first
                        + ", word " + at / Long.BYTES + " is " + w);
            }
        }
    }
}
