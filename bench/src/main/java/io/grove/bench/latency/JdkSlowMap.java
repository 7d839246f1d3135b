package io.grove.bench.latency;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.ConcurrentMap;

/**
 * A JDK map ({@code ConcurrentHashMap}, {@code ConcurrentSkipListMap}) in the slow-writer experiment, the
 * reference: {@code get} returns the stored array; the slow update is {@code compute}, whose function increments
 * the counter in the stored array, holds, and returns the same array. ConcurrentHashMap runs the function while it
 * holds the lock of the key's bin (other writers of that bin wait, readers do not); ConcurrentSkipListMap runs it
 * outside any lock and installs the result by a CAS.
 */
final class JdkSlowMap implements SlowWriterMap {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private ConcurrentMap<Long, byte[]> map;

    JdkSlowMap(ConcurrentMap<Long, byte[]> map) {
        this.map = map;
    }

    @Override
    public void putIfAbsent(Long key, byte[] value) {
        map.putIfAbsent(key, value.clone());
    }

    @Override
    public byte[] get(Long key) {
        return map.get(key);
    }

    @Override
    public boolean update(Long key, Runnable hold) {
        return map.compute(key, (k, value) -> {
            if (value != null) {
                LONGS.set(value, COUNTER, (long) LONGS.get(value, COUNTER) + 1);
                hold.run();
            }
            return value;
        }) != null;
    }

    @Override
    public long size() {
        return map.size();
    }

    /** Drops the map. */
    @Override
    public void close() {
        map = null;
    }
}
