package io.grove.bench.maps;

/**
 * One worker thread's buffers for the key-value family: the key and the value of the current operation, filled
 * in place so that a contender that copies keys and values in and out (Grove, Chronicle Map, OHC, MapDB) needs no
 * new array per operation. A contender may keep thread-local state of its own in {@link #slot}.
 */
public final class KvThread {
    /** The key of the current operation (key size bytes). */
    public final byte[] key;
    /** The value to write, or a buffer a read copies into (value size bytes). */
    public final byte[] value;
    /** Where a contender's read copies the value; separate from {@link #value} so that reads never disturb writes. */
    public final byte[] readBuffer;
    /** Free for the contender's own per-thread objects (created on first use by that thread). */
    public Object slot;

    public KvThread(int keySize, int valueSize) {
        this.key = new byte[keySize];
        this.value = KvRecords.newValue(valueSize);
        this.readBuffer = new byte[valueSize];
    }

    /** Fills {@link #key} with the key of {@code id}. */
    public void key(long id) {
        KvRecords.fillKey(key, id);
    }

    /** Fills {@link #key} and stamps {@link #value} for {@code id}. */
    public void record(long id) {
        KvRecords.fillKey(key, id);
        KvRecords.stamp(value, id);
    }
}
