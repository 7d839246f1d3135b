package io.grove.bench.maps;

import io.grove.bench.Subject;

/**
 * A key-value map under test, as the key-value family ({@link KvFamily}) drives it. Keys and values are bytes
 * derived from an id ({@link KvRecords}); the thread's {@link KvThread} holds them. Every read checks that the value
 * found is the value of the key asked for.
 *
 * <p>When a method is called, {@link KvThread#key} already holds the key of {@code id} and, for {@code put} and
 * {@code putIfAbsent}, {@link KvThread#value} its value. Return conventions: reads return {@link #ABSENT},
 * {@link #FOUND} or {@link #WRONG} (a value that does not belong to the key: a bug in the map or in its use).
 */
public interface KvMap extends Subject {
    int ABSENT = 0;
    int FOUND = 1;
    int WRONG = -1;

    /** Reads the value of {@code id} the way a user of this library reads a copy of it, and checks it. */
    int get(KvThread t, long id);

    /**
     * Reads the value of {@code id} without copying it where the library can (its first and last 8 bytes, in
     * place), and checks them; a library without zero-copy reads uses its closest equivalent (see its
     * description).
     */
    int zeroCopyGet(KvThread t, long id);

    /** Maps the key of {@code id} to its value, replacing any value. */
    void put(KvThread t, long id);

    /** Maps the key of {@code id} to its value if absent; {@code true} if inserted. */
    boolean putIfAbsent(KvThread t, long id);

    /** Removes the key of {@code id}; {@code true} if it was present. */
    boolean remove(KvThread t, long id);

    /** The number of entries (exact when no thread updates the map). */
    long size();

    @Override
    default long entries() {
        return size();
    }
}
