package io.grove.internal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.Reclamation;
import io.grove.testing.StressRun;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Nova's safety property under stress (Nova, Appendix A): once a slice is deleted and its memory reused, no read
 * through an older reference validates and no write through one lands.
 *
 * <p>A table of slots holds references. Replacers put new slices into slots and delete the old ones, in a pool
 * small enough that memory is reused (and free neighbours merged) all the time. Every word of a slice is derived
 * from the slice's identity (slot and incarnation), so bytes of another slice are recognised. Readers read slices
 * optimistically, also through references they kept from long ago; a read that validates must show exactly the
 * identity it expects. Stale writers keep references, then write the identity words again under a hazard
 * announcement: if such a write ever landed in reused memory, readers of the new owner would see a foreign word.
 */
class NovaSafetyStressTest {
    private static final int SLOTS = 128;
    private static final int[] SIZES = {8, 24, 56, 120, 248, 504};
    private static final long DURATION_NANOS = 1_500_000_000L;
    private static final long GRACE_NANOS = 20_000_000_000L;
    private static final long MIN_REPLACEMENTS = 20L * SLOTS;
    private final AtomicLong progress = new AtomicLong();
    private final AtomicLong staleSeen = new AtomicLong();
    private final AtomicLong refusalsSeen = new AtomicLong();
    private volatile long deadline;

    @Test
    void platformThreadsMoreThanCores() throws Exception {
        run(Thread.ofPlatform().factory(), 3, 3, 2);
    }

    @Test
    void moreThanSixtyFourThreads() throws Exception {
        run(Thread.ofPlatform().factory(), 24, 30, 16);
    }

    @Test
    void virtualThreads() throws Exception {
        run(Thread.ofVirtual().factory(), 8, 8, 8);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    /** Word 0 names slot and incarnation; word i is a hash of word 0 and i. */
    private static void writeIdentity(MemorySegment block, long payload, int words, long identity) {
        block.set(ValueLayout.JAVA_LONG, payload, identity);
        for (int i = 1; i < words; i++) {
            block.set(ValueLayout.JAVA_LONG, payload + 8L * i, mix(identity + i));
        }
    }

    private void run(ThreadFactory threads, int replacers, int readers, int staleWriters) throws Exception {
        Pool pool = new Pool(1 << 16, 16L << 16, Reclamation.NOVA);
        AtomicLongArray table = new AtomicLongArray(SLOTS);
        for (int s = 0; s < SLOTS; s++) {
            table.set(s, newSlice(pool, s, 0, SIZES[s % SIZES.length]));
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong validatedReads = new AtomicLong();
        AtomicLong staleReads = new AtomicLong();
        AtomicLong landedWrites = new AtomicLong();
        AtomicLong refusedWrites = new AtomicLong();
        AtomicLong replacements = new AtomicLong();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> started = new ArrayList<>();
        for (int t = 0; t < replacers; t++) {
            long incarnationBase = (long) (t + 1) << 28;
            int seed = t;
            started.add(threads.newThread(guard(failure, go, () -> {
                SplittableRandom random = new SplittableRandom(seed);
                long incarnation = incarnationBase;
                long count = 0;
                while (running(failure, count)) {
                    int s = random.nextInt(SLOTS);
                    long fresh = newSlice(pool, s, ++incarnation, SIZES[random.nextInt(SIZES.length)]);
                    long old = table.getAndSet(s, fresh);
                    if (!pool.delete(old)) {
                        throw new AssertionError("delete of the slice just unlinked failed: "
                                + Reference.toString(old));
                    }
                    if ((++count & 63) == 0) {
                        progress.addAndGet(64);
                    }
                }
                replacements.addAndGet(count);
            })));
        }
        for (int t = 0; t < readers; t++) {
            int seed = 1000 + t;
            started.add(threads.newThread(guard(failure, go, () -> {
                SplittableRandom random = new SplittableRandom(seed);
                long[] words = new long[SIZES[SIZES.length - 1] / 8];
                long[] keptRefs = new long[64];
                long[] keptIdentity = new long[64];
                int slot = 0;
                long valid = 0;
                long stale = 0;
                for (long iteration = 0; running(failure, iteration); iteration++) {
                    boolean fromTable = random.nextInt(4) != 0;
                    int k = random.nextInt(keptRefs.length);
                    int s = random.nextInt(SLOTS);
                    long ref = fromTable ? table.get(s) : keptRefs[k];
                    if (ref == Reference.NULL) {
                        continue;
                    }
                    MemorySegment block = pool.segment(ref);
                    long payload = pool.payloadOffset(ref);
                    int n;
                    try {
                        n = pool.length(ref) / 8;
                        for (int i = 0; i < n; i++) {
                            words[i] = block.get(ValueLayout.JAVA_LONG, payload + 8L * i);
                        }
                        pool.validate(ref);
                    } catch (ConcurrentModificationException e) {
                        if (stale++ == 0) {
                            staleSeen.incrementAndGet();
                        }
                        continue;
                    }
                    valid++;
                    long identity = words[0];
                    if (fromTable && identity >>> 40 != s) {
                        throw new AssertionError("slot " + s + " read a slice of slot " + (identity >>> 40));
                    }
                    if (!fromTable && identity != keptIdentity[k]) {
                        throw new AssertionError("a kept reference validated but shows identity " + identity
                                + " instead of " + keptIdentity[k]);
                    }
                    for (int i = 1; i < n; i++) {
                        if (words[i] != mix(identity + i)) {
                            throw new AssertionError("word " + i + " of slice " + identity + " is foreign");
                        }
                    }
                    if (fromTable && (slot++ & 7) == 0) {
                        keptRefs[k] = ref;
                        keptIdentity[k] = identity;
                    }
                }
                validatedReads.addAndGet(valid);
                staleReads.addAndGet(stale);
            })));
        }
        for (int t = 0; t < staleWriters; t++) {
            int seed = 2000 + t;
            started.add(threads.newThread(guard(failure, go, () -> {
                SplittableRandom random = new SplittableRandom(seed);
                long landed = 0;
                long refused = 0;
                for (long iteration = 0; running(failure, iteration); iteration++) {
                    long ref = table.get(random.nextInt(SLOTS));
                    long identity;
                    int n;
                    try {
                        identity = pool.segment(ref).get(ValueLayout.JAVA_LONG, pool.payloadOffset(ref));
                        n = pool.length(ref) / 8;
                        pool.validate(ref);
                    } catch (ConcurrentModificationException e) {
                        continue;
                    }
                    if ((iteration & 7) == 0) {
                        LockSupport.parkNanos(200_000); // let the slice go stale now and then
                    }
                    long token = pool.beginWrite(ref);
                    if (token < 0) {
                        if (refused++ == 0) {
                            refusalsSeen.incrementAndGet();
                        }
                        continue;
                    }
                    try {
                        writeIdentity(pool.segment(ref), pool.payloadOffset(ref), n, identity);
                    } finally {
                        pool.endWrite(token);
                    }
                    landed++;
                }
                landedWrites.addAndGet(landed);
                refusedWrites.addAndGet(refused);
            })));
        }
        for (Thread t : started) {
            t.start();
        }
        deadline = System.nanoTime() + DURATION_NANOS;
        go.countDown();
        for (Thread t : started) {
            t.join(30_000);
            assertTrue(!t.isAlive(), "a stress thread did not finish");
        }
        if (failure.get() != null) {
            throw new AssertionError("safety violated", failure.get());
        }
        String figures = "replacements=" + replacements + " validatedReads=" + validatedReads + " staleReads="
                + staleReads + " landedWrites=" + landedWrites + " refusedWrites=" + refusedWrites;
        assertTrue(replacements.get() >= MIN_REPLACEMENTS, "too little reuse to mean anything: " + figures);
        assertTrue(staleReads.get() > 0 && refusedWrites.get() > 0, "stale accesses never happened: " + figures);
        assertEquals(SLOTS, pool.footprint().liveSlices(), figures);
        for (int s = 0; s < SLOTS; s++) {
            long ref = table.get(s);
            assertTrue(pool.isLive(ref));
            assertEquals(s, pool.segment(ref).get(ValueLayout.JAVA_LONG, pool.payloadOffset(ref)) >>> 40);
        }
        pool.close();
    }

    private static long newSlice(Pool pool, int slot, long incarnation, int size) {
        long ref = pool.allocate(size);
        writeIdentity(pool.segment(ref), pool.payloadOffset(ref), size / 8, ((long) slot << 40) | incarnation);
        return ref;
    }

    /**
     * Whether to go on: for at least the planned duration, and then until enough replacements happened for the run
     * to mean something (a loaded machine gets more time, up to a hard limit). Lets other threads run now and then,
     * since virtual threads are not preempted in CPU-bound loops; virtual threads must park, not yield (with
     * {@code Thread.yield} the replacers kept both carriers and readers never ran: 59.7M replacements, 0 reads).
     */
    private boolean running(AtomicReference<Throwable> failure, long iteration) {
        StressRun.letOthersRun(iteration);
        if (failure.get() != null) {
            return false;
        }
        long now = System.nanoTime();
        boolean enough = progress.get() >= MIN_REPLACEMENTS && staleSeen.get() > 0 && refusalsSeen.get() > 0;
        return now < deadline || (!enough && now < deadline + GRACE_NANOS);
    }

    private Runnable guard(AtomicReference<Throwable> failure, CountDownLatch go, Runnable body) {
        return () -> {
            try {
                go.await();
                body.run();
            } catch (InterruptedException e) {
                failure.compareAndSet(null, e);
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        };
    }
}
