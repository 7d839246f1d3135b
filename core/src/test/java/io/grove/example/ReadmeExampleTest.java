package io.grove.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.GroveHashMap;
import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import io.grove.view.Handle;
import java.util.List;
import java.util.Map;
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

    @Test
    void offHeapOrderedMap() {
        try (GroveSortedMap<Long, String> events = GroveSortedMap.builder(Serializers.longs(), Serializers.strings())
                .memoryLimit(64L << 20)
                .build()) {
            events.put(30L, "deploy"); // a java.util.concurrent.ConcurrentNavigableMap
            events.put(10L, "start");
            events.put(20L, "login");
            assertEquals(Map.entry(20L, "login"), events.floorEntry(25L));
            assertEquals(List.of(30L, 20L), List.copyOf(events.descendingMap().headMap(15L).keySet()));

            // Zero-copy scan, newest first: one handle is pointed at entry after entry, nothing is copied.
            long bytes = events.zc().descendingMap().valueStream().mapToLong(Handle::size).sum();
            assertEquals(16, bytes); // "deploy", "login", "start" are 6 + 5 + 5 UTF-8 bytes
        }
    }
}
