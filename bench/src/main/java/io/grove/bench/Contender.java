package io.grove.bench;

import java.util.List;

/**
 * A library (or a configuration of one) that takes part in the comparison. One class per contender; register an
 * instance in {@link Registry#CONTENDERS}.
 *
 * <p>A contender serves one {@link Family}: it opens a {@link Subject} of that family's type inside its own worker
 * JVM. To add a peer library (e.g. {@code ConcurrentSkipListMap}, Chronicle Map, OHC, MapDB, LMDB), add its
 * dependency to {@code bench/pom.xml}, write one class implementing this interface and the family's subject
 * interface, and register it.
 *
 * @param <S> the family's subject type
 */
public interface Contender<S extends Subject> {

    /** A short lower-case name used on the command line and in tables, e.g. {@code nova}. */
    String name();

    /** One line for {@code BenchMain list} and {@code BENCHMARKS.md}. */
    String description();

    Family<S> family();

    /** How the parent splits the memory budget for this contender's JVM. */
    Placement placement();

    /**
     * Extra JVM options this contender's worker JVM needs (peers may need {@code --add-opens}; Grove's huge-page
     * variant native access).
     */
    default List<String> jvmOptions() {
        return List.of();
    }

    /**
     * Why this contender cannot run {@code scenario} (e.g. "no eviction" for a map without a bound), or
     * {@code null} if it can. The runner skips it there and the table says so.
     */
    default String notApplicable(Scenario scenario) {
        return null;
    }

    /**
     * Whether the contender keeps its map in a file (a summary compares Grove's maps with peers stored alike): by
     * default, whether its name ends with {@code -file}.
     */
    default boolean inFile() {
        return name().endsWith("-file");
    }

    /** Creates the empty subject inside the worker JVM. */
    S open(WorkerConfig config) throws Exception;
}
