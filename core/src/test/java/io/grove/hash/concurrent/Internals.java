package io.grove.hash.concurrent;

import io.grove.GroveHashMap;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;

/**
 * Read-only access, through reflection, to the few internals of the hash map that these tests need in order to
 * aim at a behaviour: which segment a key lands in (so that a tiny key range can still fill one segment and make
 * it grow) and how far each segment has grown (so that a test can assert that growth really happened during the
 * run instead of assuming it), and an exact snapshot of the entries and bytes held, taken with every segment
 * locked. Tests run on the class path, so the package-private members are reachable. Nothing here changes the map.
 */
final class Internals {
    private static final MethodHandle KEY_HASH;
    private static final MethodHandle TABLE;
    private static final MethodHandle SEGMENT_COUNT;
    private static final MethodHandle SEGMENT_OF;
    private static final MethodHandle SLOT_BITS;
    private static final MethodHandle COUNT;
    private static final MethodHandle BYTES;
    private static final MethodHandle TRY_LOCK;
    private static final MethodHandle UNLOCK;
    private static final MethodHandle LOCK_WAITERS;

    static {
        try {
            Class<?> keyHash = Class.forName("io.grove.internal.hash.KeyHash");
            Class<?> table = Class.forName("io.grove.internal.hash.HashTable");
            Class<?> map = Class.forName("io.grove.internal.hash.OffHeapHashMap");
            KEY_HASH = handle(keyHash.getDeclaredMethod("of", MemorySegment.class, long.class, int.class));
            var field = map.getDeclaredField("table");
            field.setAccessible(true);
            TABLE = MethodHandles.lookup().unreflectGetter(field)
                    .asType(MethodType.methodType(Object.class, Object.class));
            SEGMENT_COUNT = handle(table.getDeclaredMethod("segmentCount"));
            SEGMENT_OF = handle(table.getDeclaredMethod("segmentOf", long.class));
            SLOT_BITS = handle(table.getDeclaredMethod("slotBits", int.class));
            COUNT = handle(table.getDeclaredMethod("count", int.class));
            BYTES = handle(table.getDeclaredMethod("bytes", int.class));
            TRY_LOCK = handle(table.getDeclaredMethod("tryLock", int.class));
            UNLOCK = handle(table.getDeclaredMethod("unlock", int.class, long.class));
            var waiters = table.getDeclaredField("lockWaiters");
            waiters.setAccessible(true);
            LOCK_WAITERS = MethodHandles.lookup().unreflectGetter(waiters)
                    .asType(MethodType.methodType(Object.class, Object.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(
                    "the hash map's internals these tests aim with have changed; update Internals: " + e);
        }
    }

    private Internals() {}

    private static MethodHandle handle(java.lang.reflect.Method method) throws IllegalAccessException {
        method.setAccessible(true);
        MethodHandle h = MethodHandles.lookup().unreflect(method);
        return java.lang.reflect.Modifier.isStatic(method.getModifiers()) ? h
                : h.asType(h.type().changeParameterType(0, Object.class));
    }

    /** The bytes {@code Serializers.longs()} writes for {@code key}: big-endian with the sign bit flipped. */
    static byte[] longKeyBytes(long key) {
        return ByteBuffer.allocate(Long.BYTES).putLong(key ^ Long.MIN_VALUE).array();
    }

    /** The map's hash of a {@code Long} key serialized with {@code Serializers.longs()}. */
    static long hashOfLongKey(long key) {
        byte[] bytes = longKeyBytes(key);
        try {
            return (long) KEY_HASH.invokeExact(MemorySegment.ofArray(bytes), 0L, bytes.length);
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    private static Object table(GroveHashMap<?, ?> map) {
        try {
            return (Object) TABLE.invokeExact((Object) map);
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /**
     * The parks of virtual threads waiting for segment locks ({@code LockWaiters}) so far, and how many of them ran to
     * their time limit instead of ending by a release.
     */
    static long[] lockParksAndTimeouts(GroveHashMap<?, ?> map) {
        try {
            io.grove.internal.sync.LockWaiters waiters =
                    (io.grove.internal.sync.LockWaiters) (Object) LOCK_WAITERS.invokeExact(table(map));
            return new long[] {waiters.parks(), waiters.timedOut()};
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    static int segmentCount(GroveHashMap<?, ?> map) {
        try {
            return (int) SEGMENT_COUNT.invokeExact(table(map));
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /** The segment a {@code Long} key (serialized with {@code Serializers.longs()}) lands in. */
    static int segmentOfLongKey(GroveHashMap<?, ?> map, long key) {
        try {
            return (int) SEGMENT_OF.invokeExact(table(map), hashOfLongKey(key));
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /** log2 of segment {@code s}'s slot count. */
    static int slotBits(GroveHashMap<?, ?> map, int s) {
        try {
            return (int) SLOT_BITS.invokeExact(table(map), s);
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /** The sum over all segments of log2 of their slot counts: grows by one with every doubling. */
    static int totalSlotBits(GroveHashMap<?, ?> map) {
        int total = 0;
        for (int s = 0; s < segmentCount(map); s++) {
            total += slotBits(map, s);
        }
        return total;
    }

    /** Segment {@code s}'s entry count. */
    static long count(GroveHashMap<?, ?> map, int s) {
        try {
            return (long) COUNT.invokeExact(table(map), s);
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /**
     * The entries and entry bytes the map holds at one instant: every segment's lock is taken, the counts summed,
     * the locks released. {@code [entries, bytes]}. Locks are only tried, and all dropped if one is busy, so the
     * snapshot never keeps a writer from a lock while it waits for another.
     */
    static long[] lockedTotals(GroveHashMap<?, ?> map) {
        Object table = table(map);
        int segments = segmentCount(map);
        long[] tokens = new long[segments];
        try {
            while (true) {
                int locked = 0;
                try {
                    while (locked < segments) {
                        long token = (long) TRY_LOCK.invokeExact(table, locked);
                        if (token < 0) {
                            break;
                        }
                        tokens[locked++] = token;
                    }
                    if (locked == segments) {
                        long entries = 0;
                        long bytes = 0;
                        for (int s = 0; s < segments; s++) {
                            entries += (long) COUNT.invokeExact(table, s);
                            bytes += (long) BYTES.invokeExact(table, s);
                        }
                        return new long[] {entries, bytes};
                    }
                } finally {
                    for (int s = 0; s < locked; s++) {
                        UNLOCK.invokeExact(table, s, tokens[s]);
                    }
                }
                Thread.onSpinWait();
            }
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }
}
