package io.grove.bench.ordered;

import io.grove.bench.Subject;
import io.grove.bench.ThreadContext;

/**
 * An ordered map under test in the Oak scenarios (Oak, §5, Fig. 3a and 4a-4f): 100-byte keys and 1,000-byte
 * values as {@link OrderedCodec} lays them out, identified by an int. Each method takes the thread's reusable
 * buffers; a read checks the value's key word and check word and counts a mismatch in the context otherwise.
 */
public interface OrderedKv extends Subject {
    /** Pairs per scan (the Oak paper: "long scans traversing 10K key-value pairs"). */
    int SCAN_PAIRS = 10_000;

    /** Inserts {@code key}'s value if absent (the ingestion stage); {@code true} if inserted. */
    boolean putIfAbsent(int key, OrderedThread t);

    /** Maps {@code key} to a fresh value (counter 0), replacing any value. */
    void put(int key, OrderedThread t);

    /**
     * Inserts {@code key}'s value if absent, else increments the 8-byte counter of the present value in place
     * (Oak's putIfAbsentComputeIfPresent; a merge in the skiplists).
     */
    void upsert(int key, OrderedThread t);

    /** Reads the key word, counter and check word of {@code key}'s value where it lives; {@code false} if absent. */
    boolean zeroCopyGet(int key, OrderedThread t, ThreadContext c);

    /** Gets {@code key}'s value as a heap object (a full copy where the contender stores it elsewhere). */
    boolean copyGet(int key, OrderedThread t, ThreadContext c);

    /**
     * Scans up to {@link #SCAN_PAIRS} pairs from {@code from} (inclusive), ascending or descending, through the
     * contender's set API or its stream API, touching each key and value; reports through {@link OrderedThread}.
     */
    void scan(int from, boolean descending, boolean stream, OrderedThread t, ThreadContext c);

    /** Checks every entry (key well formed, value complete and belonging to it, ascending order); wrong entries. */
    long verify();

    /** Entries now (exact when nothing runs). */
    long size();

    /** For the memory per entry after the prefill: {@link #size()}. */
    @Override
    default long entries() {
        return size();
    }
}
