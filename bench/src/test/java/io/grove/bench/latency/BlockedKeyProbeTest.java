package io.grove.bench.latency;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.grove.bench.ThreadContext;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

class BlockedKeyProbeTest {
    private static final int KEYS = 10_000;
    private static final int SLOW_ID = 1_234;
    private static final long SEED = 99;

    /**
     * A map whose gets of some keys wait while an update runs, as a reader of Grove's hash map waits for a writer
     * of its segment: by polling with a pause of 50 µs, so a gap of microseconds between two updates goes unseen.
     */
    private static final class FakeMap implements SlowWriterMap {
        private final Long[] keys;
        private final IntPredicate waitsForUpdates;
        private volatile boolean updating;

        FakeMap(Long[] keys, IntPredicate waitsForUpdates) {
            this.keys = keys;
            this.waitsForUpdates = waitsForUpdates;
        }

        @Override
        public void putIfAbsent(Long key, byte[] value) {}

        @Override
        public byte[] get(Long key) {
            if (waitsForUpdates.test((int) (long) key)) {
                while (updating) {
                    LockSupport.parkNanos(50_000);
                }
            }
            return null;
        }

        @Override
        public synchronized boolean update(Long key, Runnable hold) {
            updating = true;
            try {
                hold.run();
            } finally {
                updating = false;
            }
            return key.equals(keys[SLOW_ID]);
        }

        @Override
        public long size() {
            return keys.length;
        }

        @Override
        public void close() {}
    }

    private static Long[] keys() {
        Long[] keys = new Long[KEYS];
        for (int id = 0; id < KEYS; id++) {
            keys[id] = (long) id;
        }
        return keys;
    }

    /** The probe finds exactly the keys drawn that wait: the same draws, replayed, say how many there were. */
    @Test
    void countsExactlyTheKeysThatWait() {
        IntPredicate segment = id -> id % 16 == 3;
        Long[] keys = keys();
        int maxBlocked = 30;
        BlockedKeyProbe.Result result = assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
                new BlockedKeyProbe(new FakeMap(keys, segment), keys, SLOW_ID, 20_000_000L)
                        .run(new ThreadContext(SEED, 0), 100_000, maxBlocked, 50_000_000_000L));
        ThreadContext replay = new ThreadContext(SEED, 0);
        long probed = 0;
        long blocked = 0;
        while (blocked < maxBlocked) {
            if (segment.test(SlowWriterRun.otherId(replay, KEYS, SLOW_ID))) {
                blocked++;
            }
            probed++;
        }
        assertEquals(new BlockedKeyProbe.Result(probed, blocked), result);
    }

    @Test
    void findsNoneWhereNoGetWaits() {
        Long[] keys = keys();
        BlockedKeyProbe.Result result = assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
                new BlockedKeyProbe(new FakeMap(keys, id -> false), keys, SLOW_ID, 20_000_000L)
                        .run(new ThreadContext(SEED, 0), 20_000, 10, 50_000_000_000L));
        assertEquals(new BlockedKeyProbe.Result(20_000, 0), result);
    }
}
