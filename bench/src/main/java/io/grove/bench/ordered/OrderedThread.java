package io.grove.bench.ordered;

/**
 * One worker thread's reusable buffers for the ordered-map family, so that an operation allocates nothing of its
 * own beyond what the contender's API requires (e.g. a new {@code byte[]} for a value stored on heap).
 */
public final class OrderedThread {
    /** The key of the current operation ({@link OrderedCodec#setKey}). */
    public final byte[] key = OrderedCodec.newKeyBuffer();
    /** The value of the current write ({@link OrderedCodec#setValue}). */
    public final byte[] value = OrderedCodec.newValueBuffer();
    /** A contender's own per-thread object (e.g. a reusable lookup key), made on first use. */
    public Object own;
    /** Pairs seen by the current scan, and anomalies it found; read by the family after the scan. */
    public int scanned;
    public int lastKey;
    public long scanSink;
    public long scanMismatches;
    public long scanOutOfOrder;

    /** Starts a scan's counters; {@code descending} sets the previous key beyond every key. */
    public void startScan(boolean descending) {
        scanned = 0;
        lastKey = descending ? Integer.MAX_VALUE : -1;
        scanMismatches = 0;
        scanOutOfOrder = 0;
    }

    /** Accounts one scanned pair: its key int and the value's key word and check word. */
    public void see(int key, long keyWord, long checkWord, boolean descending) {
        if (!OrderedCodec.wordsMatch(key, keyWord, checkWord)) {
            scanMismatches++;
        }
        if (descending ? key >= lastKey : key <= lastKey) {
            scanOutOfOrder++;
        }
        lastKey = key;
        scanned++;
        scanSink += keyWord ^ checkWord;
    }
}
