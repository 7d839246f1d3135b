package io.grove.bench.latency;

import io.grove.GroveHashMap;
import io.grove.GroveSortedMap;
import io.grove.bench.Placement;
import io.grove.bench.maps.ThreadBufferSerializer;
import io.grove.serial.Serializers;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The maps of the slow-writer experiment, each run in a JVM of its own with the memory split of its
 * {@link Placement} (as in the comparison: on heap {@code -Xmx} = budget; off heap a small heap and the rest as
 * the map's memory limit). Grove's maps use {@code Serializers.longs()} for keys and read values into the thread's
 * reused array ({@link ThreadBufferSerializer}).
 */
enum LatencyContender {
    GROVE_HASH("grove-hash", Placement.OFF_HEAP,
            "GroveHashMap, expectedSize = keys (as the comparison builds it); slow update = zc().computeIfPresent") {
        @Override
        SlowWriterMap open(int keys, long offHeapLimit) {
            return grove(GroveHashMap.builder(Serializers.longs(), ThreadBufferSerializer.INSTANCE)
                    .memoryLimit(offHeapLimit).expectedSize(keys).build());
        }
    },
    GROVE_HASH_UNSIZED("grove-hash-unsized", Placement.OFF_HEAP,
            "GroveHashMap with the builder's default expectedSize (16), grown to the keys by inserts;"
                    + " slow update = zc().computeIfPresent") {
        @Override
        SlowWriterMap open(int keys, long offHeapLimit) {
            return grove(GroveHashMap.builder(Serializers.longs(), ThreadBufferSerializer.INSTANCE)
                    .memoryLimit(offHeapLimit).build());
        }
    },
    GROVE_SORTED("grove-sorted", Placement.OFF_HEAP,
            "GroveSortedMap; slow update = zc().computeIfPresent") {
        @Override
        SlowWriterMap open(int keys, long offHeapLimit) {
            GroveSortedMap<Long, byte[]> map = GroveSortedMap.builder(Serializers.longs(),
                    ThreadBufferSerializer.INSTANCE).memoryLimit(offHeapLimit).build();
            return new GroveSlowMap(map, map.zc(), map);
        }
    },
    CHM("chm", Placement.ON_HEAP,
            "ConcurrentHashMap<Long, byte[]>, initial capacity = keys; slow update = compute") {
        @Override
        SlowWriterMap open(int keys, long offHeapLimit) {
            return new JdkSlowMap(new ConcurrentHashMap<>(keys));
        }
    },
    CSLM("cslm", Placement.ON_HEAP, "ConcurrentSkipListMap<Long, byte[]>; slow update = compute") {
        @Override
        SlowWriterMap open(int keys, long offHeapLimit) {
            return new JdkSlowMap(new ConcurrentSkipListMap<>());
        }
    };

    private final String label;
    private final Placement placement;
    private final String description;

    LatencyContender(String label, Placement placement, String description) {
        this.label = label;
        this.placement = placement;
        this.description = description;
    }

    /** The empty map, in the child JVM; {@code offHeapLimit} is 0 for on-heap maps. */
    abstract SlowWriterMap open(int keys, long offHeapLimit);

    String label() {
        return label;
    }

    Placement placement() {
        return placement;
    }

    String description() {
        return description;
    }

    static LatencyContender named(String label) {
        for (LatencyContender c : values()) {
            if (c.label.equals(label)) {
                return c;
            }
        }
        throw new IllegalArgumentException("no contender '" + label + "'; known: "
                + java.util.Arrays.stream(values()).map(LatencyContender::label).toList());
    }

    private static SlowWriterMap grove(GroveHashMap<Long, byte[]> map) {
        return new GroveSlowMap(map, map.zc(), map);
    }
}
