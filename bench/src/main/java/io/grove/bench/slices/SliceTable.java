package io.grove.bench.slices;

import io.grove.bench.Subject;
import io.grove.bench.ThreadContext;

/**
 * The subject of the slice-table family: a fixed array of slots, each holding one value of
 * {@link SliceValues the verifiable layout}. It exercises a memory layer alone, with no map algorithm around it.
 * Every method takes a slot in {@code [0, keys)}.
 */
public interface SliceTable extends Subject {

    /** Prefill: stores a fresh value for {@code key} into its empty slot (one thread, before the run). */
    void install(int key);

    /**
     * Reads the value of {@code key} without copying it (the key, stamp, update and check words, see
     * {@link SliceValues}) and verifies it; a mismatch increments {@link ThreadContext#mismatches}.
     */
    void read(int key, ThreadContext context);

    /** Overwrites 8 bytes of the value of {@code key} in place (its update word). */
    void update(int key, ThreadContext context);

    /** Replaces the value of {@code key} with a new one: written privately, then published, the old one freed. */
    void replace(int key, ThreadContext context);

    /** Reads the whole value of {@code key} (with no writer running) and says whether every word is right. */
    boolean verifyFully(int key);
}
