package io.grove.bench.ycsb;

import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/** The few operations a YCSB binding needs from a key-value store; records are {@link YcsbRecord} arrays. */
interface YcsbStore extends AutoCloseable {
    byte[] get(String key);

    void put(String key, byte[] record);

    /** Replaces the record of {@code key} by {@code change} of it, atomically; false if the key is absent. */
    boolean update(String key, UnaryOperator<byte[]> change);

    boolean delete(String key);

    /** Up to {@code count} records from {@code startKey} on, in key order; {@code null} if the store is unordered. */
    List<Map.Entry<String, byte[]>> scan(String startKey, int count);

    @Override
    void close();
}
