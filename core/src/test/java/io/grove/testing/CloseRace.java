package io.grove.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grove.MemoryPool;
import io.grove.ZeroCopyMap;
import io.grove.view.Handle;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code close()} while operations run, for either map. A victim map and a bystander map share one pool; workers
 * hammer the victim with every kind of operation until a closer thread closes it in the middle of their work; one
 * bystander thread owns the bystander map and keeps a model of it, writing small entries of several sizes (among
 * them the victim's own key and value sizes) under keys the victim never holds, so that memory the close frees is
 * reused at once by the bystander, with bytes that cannot pass for the victim's.
 *
 * <p>Checked: every operation on the victim either completes or throws {@link IllegalStateException} (a handle
 * read may also throw {@link ConcurrentModificationException}), and once a worker saw the close, all its later
 * operations throw {@link IllegalStateException}; every key a scan of the victim returns is one the victim can
 * hold ({@link #checkKey}: an operation that read a key the close freed and the bystander reused would return
 * another map's bytes); no worker hangs (the run's cap); the bystander map equals its model throughout and at the
 * end — an operation of the closed map that wrote into memory the bystander reuses would show there; once both
 * maps are closed, the pool holds no live slice.
 */
public final class CloseRace {
    /** Rounds per test: 6 in the build, 24 on demand ({@link StressRun#rounds}; 12 in all until 2026-11-27). */
    private static final int ROUNDS = StressRun.rounds(6, 24);
    private static final int OPERATIONS_BEFORE_CLOSE = 4_000;
    private static final int BYSTANDER_WRITES_AFTER_CLOSE = 20_000;
    /**
     * The victim's keys are 0 to {@code KEYS - 1}, all present when the workers start (so the close frees enough
     * slices for the pool to make them reusable while operations still run); the bystander's start at
     * {@link #BYSTANDER_KEYS}.
     */
    private static final int KEYS = 2048;
    private static final long BYSTANDER_KEYS = 1L << 40;

    /** Opens a map of the suite's kind on a shared pool. */
    public interface Opener<V> {
        Victim<V> open(MemoryPool pool);
    }

    /** A map under test, its zero-copy API, and operations of its own kind beyond the common ones. */
    public record Victim<V>(ConcurrentMap<Long, V> map, ZeroCopyMap<Long, V> zc, AutoCloseable closer,
            KindOperations<V> own) {}

    /** Operations only one kind of map has (navigation, views of a range...), on {@code key}. */
    public interface KindOperations<V> {
        void run(ConcurrentMap<Long, V> map, long key, ThreadLocalRandom random);
    }

    private CloseRace() {}

    /**
     * Runs {@link #ROUNDS} rounds, each with a victim ({@code Long} values) and a bystander ({@code byte[]} values)
     * that {@code victims} and {@code bystanders} open on a fresh shared pool.
     */
    public static void run(StressRun.Threads threads, String what, Opener<Long> victims, Opener<byte[]> bystanders)
            throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            round(threads, what + ", round " + round, victims, bystanders);
        }
    }

    private static void round(StressRun.Threads threads, String what, Opener<Long> victims, Opener<byte[]> bystanders)
            throws Exception {
        try (MemoryPool pool = MemoryPool.builder().blockSize(1 << 16).memoryLimit(64L << 20).build()) {
            Victim<Long> victim = victims.open(pool);
            Victim<byte[]> bystander = bystanders.open(pool);
            for (long key = 0; key < KEYS; key++) {
                victim.map().put(key, key);
            }
            AtomicLong victimOperations = new AtomicLong();
            AtomicInteger sawClose = new AtomicInteger();
            AtomicLong bystanderWrites = new AtomicLong();
            int workers = threads.count - 2;
            StressRun run = new StressRun();
            run.workers(threads.factory("victim"), workers, index -> {
                boolean closedSeen = false;
                for (long i = 0; run.proceed(i) && !closedSeen; i++) {
                    try {
                        operate(victim, ThreadLocalRandom.current());
                        victimOperations.incrementAndGet();
                    } catch (IllegalStateException closed) {
                        closedSeen = true;
                    } catch (ConcurrentModificationException handleEnded) {
                        // a handle read whose entry was replaced, removed or freed by the close
                    }
                }
                if (closedSeen) {
                    sawClose.incrementAndGet();
                    for (int after = 0; after < 16; after++) {
                        try {
                            operate(victim, ThreadLocalRandom.current());
                            throw new AssertionError("an operation on the closed map completed");
                        } catch (IllegalStateException expected) {
                            // every operation after the close throws
                        }
                    }
                }
            });
            // The closer and the bystander are platform threads whatever the victims are: among 156 virtual victims
            // that park now and then (StressRun.letOthersRun), the scheduler ran the same victims for a whole 20 s
            // run while 113 virtual threads, the closer and the bystander among them, stayed queued (2 CI runs of
            // 2026-12-07), so the close never came; what races with the close is the victims' operations.
            run.workers(StressRun.Threads.PLATFORM_MORE_THAN_CORES.factory("closer"), 1, index -> {
                for (long i = 0; victimOperations.get() < OPERATIONS_BEFORE_CLOSE && run.proceed(i); i++) {
                    Thread.onSpinWait();
                }
                victim.closer().close();
            });
            run.workers(StressRun.Threads.PLATFORM_MORE_THAN_CORES.factory("bystander"), 1, index -> {
                ConcurrentMap<Long, byte[]> map = bystander.map();
                Map<Long, byte[]> model = new HashMap<>();
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (long i = 0;
                        run.proceed(i) && (sawClose.get() < workers || i < BYSTANDER_WRITES_AFTER_CLOSE);
                        i++) {
                    long key = BYSTANDER_KEYS + random.nextInt(KEYS);
                    if (random.nextInt(4) == 0) {
                        assertArrayEquals(model.remove(key), map.remove(key), "bystander remove of " + key);
                    } else {
                        byte[] value = bystanderValue(key, i);
                        assertArrayEquals(model.put(key, value), map.put(key, value), "bystander put of " + key);
                    }
                    long probe = BYSTANDER_KEYS + random.nextInt(KEYS);
                    assertArrayEquals(model.get(probe), map.get(probe), "bystander get of " + probe);
                    bystanderWrites.incrementAndGet();
                }
                assertEquals(model.size(), map.size());
                for (Map.Entry<Long, byte[]> e : map.entrySet()) {
                    assertArrayEquals(model.get(e.getKey()), e.getValue(), "bystander entry " + e.getKey());
                }
            });
            run.runAndCheck(what + " with " + threads, () -> "victim operations " + victimOperations.get()
                    + ", workers that saw the close " + sawClose.get() + " of " + workers + ", bystander writes "
                    + bystanderWrites.get());
            assertEquals(workers, sawClose.get(), "every victim worker ends by seeing the close");
            bystander.closer().close();
            victim.closer().close();
            assertEquals(0, pool.footprint().liveSlices(), "closed maps left slices in the shared pool");
        }
    }

    /** One random operation of any kind on the victim; what it answers does not matter, only that it runs. */
    @SuppressWarnings("ReturnValueIgnored") // containsKey's answer, as every other operation's, is not looked at
    private static void operate(Victim<Long> victim, ThreadLocalRandom random) {
        ConcurrentMap<Long, Long> map = victim.map();
        ZeroCopyMap<Long, Long> zc = victim.zc();
        long key = random.nextInt(KEYS);
        switch (random.nextInt(11)) {
            case 0 -> map.put(key, key);
            case 1 -> map.remove(key);
            case 2 -> map.get(key);
            case 3 -> map.compute(key, (k, v) -> v == null ? k : null);
            case 4 -> zc.putIfAbsentComputeIfPresent(key, key, v -> v.putLong(0, v.getLong(0)));
            case 5 -> zc.computeIfPresent(key, v -> v.resize(8)); // moves the value to a new slice
            case 6 -> {
                Handle h = zc.get(key);
                if (h != null) {
                    h.getLong(0);
                }
            }
            case 7 -> map.containsKey(key);
            case 8 -> {
                int n = 0;
                for (var it = map.keySet().iterator(); it.hasNext() && n < 8; n++) {
                    checkKey(it.next(), "keySet iteration");
                }
            }
            case 9 -> victim.own().run(map, key, random);
            default -> map.putIfAbsent(key, key);
        }
    }

    /**
     * Fails unless {@code key}, which a scan or navigation of the victim returned, is one the victim can hold;
     * {@code how} names the operation. {@code null} (nothing found) passes.
     */
    public static void checkKey(Long key, String how) {
        if (key != null && (key < 0 || key >= KEYS)) {
            throw new AssertionError(how + " returned key " + key + ", which the map never held (its keys are 0 to "
                    + (KEYS - 1) + "): bytes of a slice the close freed and another map reused");
        }
    }

    /**
     * Values of 8, 32 or 96 bytes, small like the victim's own records (8 bytes: the size of the victim's keys and
     * values), so freed ones are reused here.
     */
    private static byte[] bystanderValue(long key, long i) {
        byte[] value = new byte[i % 3 == 0 ? 8 : i % 3 == 1 ? 32 : 96];
        for (int b = 0; b < value.length; b++) {
            value[b] = (byte) (key * 31 + i + b);
        }
        return value;
    }
}
