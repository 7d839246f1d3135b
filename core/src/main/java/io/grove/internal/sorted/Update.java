package io.grove.internal.sorted;

/**
 * The single-key updates of an ordered map, each described by what it does when its key is absent, what it does
 * with a present value, and what it returns ({@link ChunkMap#update}). Constants, so an update allocates nothing
 * to say what it is. The arguments an update uses: the {@code value} to write (those that insert or replace),
 * the {@code expected} value (the conditional ones), and the user's function (see {@link IfPresent#FUNCTION} and
 * {@link IfAbsent#FUNCTION}).
 */
enum Update {
    PUT(IfAbsent.INSERT, IfPresent.REPLACE, Returns.PREVIOUS),
    PUT_IF_ABSENT(IfAbsent.INSERT, IfPresent.KEEP, Returns.PREVIOUS),
    REPLACE(IfAbsent.SKIP, IfPresent.REPLACE, Returns.PREVIOUS),
    REPLACE_IF_EQUAL(IfAbsent.SKIP, IfPresent.REPLACE_IF_EQUAL, Returns.CHANGED),
    REMOVE(IfAbsent.SKIP, IfPresent.REMOVE, Returns.PREVIOUS),
    REMOVE_IF_EQUAL(IfAbsent.SKIP, IfPresent.REMOVE_IF_EQUAL, Returns.CHANGED),
    /** Function: a {@code BiFunction} of the key and the present value, or {@code null}. */
    COMPUTE(IfAbsent.FUNCTION, IfPresent.FUNCTION, Returns.NOW),
    /** Function: a {@code Function} of the key. */
    COMPUTE_IF_ABSENT(IfAbsent.FUNCTION, IfPresent.KEEP, Returns.NOW),
    /** Function: a {@code BiFunction} of the key and the present value. */
    COMPUTE_IF_PRESENT(IfAbsent.SKIP, IfPresent.FUNCTION, Returns.NOW),
    /** Function: a {@code BiFunction} of the present value and the given one. */
    MERGE(IfAbsent.INSERT, IfPresent.FUNCTION, Returns.NOW),
    ZC_PUT(IfAbsent.INSERT, IfPresent.REPLACE, Returns.NOTHING),
    ZC_PUT_IF_ABSENT(IfAbsent.INSERT, IfPresent.KEEP, Returns.WAS_ABSENT),
    ZC_REMOVE(IfAbsent.SKIP, IfPresent.REMOVE, Returns.WAS_PRESENT),
    /** Function: a {@code Consumer} of the value's {@code ResizableView}. */
    ZC_COMPUTE_IF_PRESENT(IfAbsent.SKIP, IfPresent.IN_PLACE, Returns.WAS_PRESENT),
    /** Function: a {@code Consumer} of the value's {@code ResizableView}. */
    ZC_UPSERT(IfAbsent.INSERT, IfPresent.IN_PLACE, Returns.WAS_ABSENT),
    /**
     * No change, but for a placeholder an atomic batch left when it gave up its claims and then failed, which it
     * takes out of its entry, as every update that finds the key absent does.
     */
    DROP_PLACEHOLDER(IfAbsent.SKIP, IfPresent.KEEP, Returns.NOTHING);

    /** What an update does when its key has no value. */
    enum IfAbsent {
        /** Nothing: the key stays absent. */
        SKIP,
        /** Insert the given value (serialized before the update enters its chunk). */
        INSERT,
        /** Run the function (holding a placeholder, so it runs once) and insert its result unless null. */
        FUNCTION
    }

    /** What an update does with the present value, which it holds locked meanwhile. */
    enum IfPresent {
        KEEP,
        REPLACE,
        REMOVE,
        REPLACE_IF_EQUAL,
        REMOVE_IF_EQUAL,
        /** Replace the value by the function's result, or remove it if that is null. */
        FUNCTION,
        /** Run the function on the value's bytes, in place. */
        IN_PLACE
    }

    /** What an update returns. */
    enum Returns {
        /** The value before the update, or null. */
        PREVIOUS,
        /** The value after the update, or null. */
        NOW,
        NOTHING,
        /** Whether the update changed the map. */
        CHANGED,
        /** Whether the key was absent (so the update inserted it). */
        WAS_ABSENT,
        /** Whether the key was present. */
        WAS_PRESENT
    }

    final IfAbsent ifAbsent;
    final IfPresent ifPresent;
    final Returns returns;

    Update(IfAbsent ifAbsent, IfPresent ifPresent, Returns returns) {
        this.ifAbsent = ifAbsent;
        this.ifPresent = ifPresent;
        this.returns = returns;
    }

    /** Whether the update may create an entry for an absent key. */
    boolean inserts() {
        return ifAbsent != IfAbsent.SKIP;
    }

    /**
     * Whether the update first looks, without entering the key's chunk, whether the key is present (then it is
     * done): an insert that keeps a present value.
     */
    boolean looksFirst() {
        return ifAbsent == IfAbsent.INSERT && ifPresent == IfPresent.KEEP;
    }

    /** Whether the update needs the present value deserialized (to return it, compare it or pass it on). */
    boolean readsValue() {
        return returns == Returns.PREVIOUS || returns == Returns.NOW || ifPresent == IfPresent.REPLACE_IF_EQUAL
                || ifPresent == IfPresent.REMOVE_IF_EQUAL || ifPresent == IfPresent.FUNCTION;
    }

    /**
     * The result: {@code present} whether the key had a value, {@code previous} and {@code now} the value before
     * and after (null: none), {@code changed} whether the update changed the map.
     */
    Object result(boolean present, Object previous, Object now, boolean changed) {
        return switch (returns) {
            case PREVIOUS -> previous;
            case NOW -> now;
            case NOTHING -> null;
            case CHANGED -> changed;
            case WAS_ABSENT -> !present;
            case WAS_PRESENT -> present;
        };
    }
}
