package io.grove.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import org.junit.jupiter.api.Test;

class ReadmeExampleTest {

    @Test
    void offHeapHashMap() {
        try (GroveHashMap<String, Long> visits = GroveHashMap.builder(Serializers.strings(), Serializers.longs())
                .memoryLimit(64L << 20) // keys, values and the table itself: at most 64 MiB off the Java heap
                .build()) {
            visits.put("/home", 1L); // a java.util.concurrent.ConcurrentMap
            visits.merge("/home", 1L, Long::sum);

            // Zero-copy: increment the counter where it lives, atomically, without deserializing it
            // (adding 1 to the stored bits adds 1 to the value: the encoding only flips the sign bit).
            visits.zc().putIfAbsentComputeIfPresent("/home", 1L, value -> value.putLong(0, value.getLong(0) + 1));

            Handle home = visits.zc().get("/home"); // reads the off-heap bytes, validated on every read
            assertEquals(3L, Serializers.longs().read(home));
            assertEquals(3L, visits.get("/home"));
            assertTrue(visits.footprint().liveBytes() > 0);
        } // close() returns all off-heap memory to the operating system
    }
}
