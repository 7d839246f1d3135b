package io.grove.bench.latency;

import io.grove.ZeroCopyMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A Grove map ({@code GroveHashMap} or {@code GroveSortedMap}) in the slow-writer experiment: {@code get} is the
 * map's copying get (into the thread's reused array), the slow update is {@code zc().computeIfPresent}, which runs
 * its function on the value where it lives while the map keeps the update atomic.
 */
final class GroveSlowMap implements SlowWriterMap {
    private final ConcurrentMap<Long, byte[]> map;
    private final ZeroCopyMap<Long, byte[]> zc;
    private final AutoCloseable closer;

    GroveSlowMap(ConcurrentMap<Long, byte[]> map, ZeroCopyMap<Long, byte[]> zc, AutoCloseable closer) {
        this.map = map;
        this.zc = zc;
        this.closer = closer;
    }

    @Override
    public void putIfAbsent(Long key, byte[] value) {
        zc.putIfAbsent(key, value);
    }

    @Override
    public byte[] get(Long key) {
        return map.get(key);
    }

    @Override
    public boolean update(Long key, Runnable hold) {
        return zc.computeIfPresent(key, view -> {
            view.putLong(COUNTER, view.getLong(COUNTER) + 1);
            hold.run();
        });
    }

    @Override
    public long size() {
        return map.size();
    }

    @Override
    public void close() {
        try {
            closer.close();
        } catch (Exception e) {
            throw new IllegalStateException("closing the map failed", e);
        }
    }
}
