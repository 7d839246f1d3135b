package io.grove.bench.ycsb;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * A {@link YcsbStore} over a {@code ConcurrentMap<String, byte[]>}: Grove's maps and the JDK's. Scans if the map is
 * a {@link NavigableMap}; writes and deletes through the given functions (Grove's zero-copy ones skip deserializing
 * the old value that {@code put} and {@code remove} would return).
 */
final class ConcurrentMapStore implements YcsbStore {
    private final ConcurrentMap<String, byte[]> map;
    private final BiConsumer<String, byte[]> put;
    private final Predicate<String> delete;
    private final Runnable close;

    ConcurrentMapStore(ConcurrentMap<String, byte[]> map, BiConsumer<String, byte[]> put, Predicate<String> delete,
            Runnable close) {
        this.map = map;
        this.put = put;
        this.delete = delete;
        this.close = close;
    }

    @Override
    public byte[] get(String key) {
        return map.get(key);
    }

    @Override
    public void put(String key, byte[] record) {
        put.accept(key, record);
    }

    @Override
    public boolean update(String key, UnaryOperator<byte[]> change) {
        return map.computeIfPresent(key, (k, old) -> change.apply(old)) != null;
    }

    @Override
    public boolean delete(String key) {
        return delete.test(key);
    }

    @Override
    public List<Map.Entry<String, byte[]>> scan(String startKey, int count) {
        if (!(map instanceof NavigableMap<String, byte[]> ordered)) {
            return null;
        }
        List<Map.Entry<String, byte[]>> records = new ArrayList<>(count);
        for (Map.Entry<String, byte[]> e : ordered.tailMap(startKey, true).entrySet()) {
            if (records.size() == count) {
                break;
            }
            records.add(e);
        }
        return records;
    }

    @Override
    public void close() {
        close.run();
    }
}
