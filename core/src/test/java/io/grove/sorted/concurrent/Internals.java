package io.grove.sorted.concurrent;

import io.grove.GroveSortedMap;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * Read-only access, through reflection, to the one internal of the sorted map these tests need to show they are
 * not vacuous: the index's current array of chunks. Every rebalance (split, merge, compaction) replaces that array
 * by a new one with a CAS ({@code ChunkIndex.replace}), so a test that sees a different array after some work
 * knows that a rebalance completed meanwhile; and whether a chunk was built with its pairs laid out in key order
 * ({@code GroveSortedMap.Builder.layOutForScans}). Tests run on the class path, so the package-private members are
 * reachable. Nothing here changes the map.
 */
final class Internals {
    private static final MethodHandle CHUNK_MAP;
    private static final MethodHandle INDEX;
    private static final MethodHandle SNAPSHOT;
    private static final Field LAID_OUT;

    static {
        try {
            CHUNK_MAP = getter(Class.forName("io.grove.internal.sorted.SortedRangeMap").getDeclaredField("map"));
            INDEX = getter(Class.forName("io.grove.internal.sorted.ChunkMap").getDeclaredField("index"));
            Method snapshot = Class.forName("io.grove.internal.sorted.ChunkIndex").getDeclaredMethod("snapshot");
            snapshot.setAccessible(true);
            SNAPSHOT = MethodHandles.lookup().unreflect(snapshot)
                    .asType(MethodType.methodType(Object[].class, Object.class));
            LAID_OUT = Class.forName("io.grove.internal.sorted.Chunk").getDeclaredField("laidOut");
            LAID_OUT.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(
                    "the sorted map's internals these tests look at have changed; update Internals: " + e);
        }
    }

    private Internals() {}

    private static MethodHandle getter(Field field) throws IllegalAccessException {
        field.setAccessible(true);
        return MethodHandles.lookup().unreflectGetter(field).asType(MethodType.methodType(Object.class, Object.class));
    }

    /** The index's current chunk array; a different array than before means a rebalance completed since. */
    static Object[] chunks(GroveSortedMap<?, ?> map) {
        try {
            return (Object[]) SNAPSHOT.invokeExact(INDEX.invokeExact(CHUNK_MAP.invokeExact((Object) map)));
        } catch (Throwable e) {
            throw new AssertionError("reading the sorted map's chunk index failed", e);
        }
    }

    /** How many of the index's current chunks were built with their pairs laid out in key order. */
    static int laidOutChunks(GroveSortedMap<?, ?> map) {
        int n = 0;
        for (Object chunk : chunks(map)) {
            try {
                n += LAID_OUT.getBoolean(chunk) ? 1 : 0;
            } catch (IllegalAccessException e) {
                throw new AssertionError("reading a chunk failed", e);
            }
        }
        return n;
    }
}
