package io.grove.bench;

import java.util.List;

/**
 * A kind of data structure under test, with its operations: contenders of one family are interchangeable in its
 * scenarios. The slice table ({@link io.grove.bench.slices.SliceTableFamily}) exercises the memory layer alone; map
 * families come with the maps.
 *
 * <p>The worker calls {@link #perform} in its hot loop. Only one contender (so one subject class) is loaded per
 * worker JVM, so these calls stay monomorphic.
 *
 * @param <S> the subject type the family's operations work on
 */
public interface Family<S extends Subject> {

    String name();

    /** Operation names; a scenario's mix refers to them, and {@link #perform} receives their index. */
    List<String> operations();

    /**
     * Builds what the family generates once per worker JVM (e.g. an event stream), before the subject is opened, so
     * that the heap it takes does not count as the subject's.
     */
    default void prepare(WorkerConfig config) {}

    /** Loads the subject before warm-up, on one thread (Oak's performance evaluation: the ingestion stage). */
    void prefill(S subject, WorkerConfig config);

    /** Runs operation {@code op} (an index into {@link #operations}) on {@code key}. */
    void perform(S subject, int op, int key, ThreadContext context);

    /**
     * Checks every entry after the timed phase (not timed), on one thread, with no writer running; returns the
     * number of entries whose content is wrong.
     */
    long verify(S subject, WorkerConfig config);
}
