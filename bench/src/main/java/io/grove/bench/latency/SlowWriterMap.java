package io.grove.bench.latency;

import io.grove.bench.maps.KvRecords;

/**
 * A map under the slow-writer experiment ({@link SlowWriterRun}): 8-byte {@code long} keys, boxed once before the
 * run so that no lookup allocates, and {@code byte[]} values laid out by {@link KvRecords} (the key word in the
 * first and the last 8 bytes); the 8 bytes at {@link #COUNTER} count the slow updates.
 */
interface SlowWriterMap extends AutoCloseable {
    /** Offset of the big-endian counter each slow update increments, between the two key words. */
    int COUNTER = 8;

    /** Inserts {@code value} for {@code key} if absent (the prefill). */
    void putIfAbsent(Long key, byte[] value);

    /**
     * The value of {@code key} through the map's own {@code get}, or {@code null}; the array may be a buffer the
     * calling thread gets again at its next call (Grove's maps copy into it, so that a get allocates nothing).
     */
    byte[] get(Long key);

    /**
     * One slow update of {@code key}'s value, atomic as the map makes single-key updates atomic (Grove:
     * {@code zc().computeIfPresent}, in place; JDK maps: {@code compute}, returning the same array): increments the
     * {@link #COUNTER} and then runs {@code hold} inside the update. {@code false} if the key is absent.
     */
    boolean update(Long key, Runnable hold);

    /** The counter of a value {@link #get} returned (a byte buffer per call: for the final check only). */
    static long counter(byte[] value) {
        return java.nio.ByteBuffer.wrap(value).getLong(COUNTER);
    }

    /** The entries now. */
    long size();

    @Override
    void close();
}
