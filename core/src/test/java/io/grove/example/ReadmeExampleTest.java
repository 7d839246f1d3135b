package io.grove.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.MemoryFootprint;
import io.grove.MemoryPool;
import org.junit.jupiter.api.Test;

class ReadmeExampleTest {

    @Test
    void memoryPool() {
        MemoryPool pool = MemoryPool.builder()
                .memoryLimit(64L << 20) // at most 64 MiB off the Java heap
                .build();
        try (pool) {
            MemoryFootprint footprint = pool.footprint();
            System.out.println(footprint);
            assertEquals(64L << 20, pool.memoryLimit());
            assertEquals(0, footprint.liveSlices());
        }
        assertTrue(pool.isClosed()); // all its memory went back to the operating system
    }
}
