package io.grove.internal.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.grove.MemoryPool;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The memory a process may use, container limits included, and the default memory limit of a pool. */
class PhysicalMemoryTest {
    private static final long GIB = 1L << 30;

    @TempDir
    Path root;

    private void write(String file, String content) throws IOException {
        Path path = root.resolve(file);
        Files.createDirectories(path.getParent());
        Files.writeString(path, content);
    }

    private void machineWith(long memTotalKb) throws IOException {
        write("proc/meminfo", "MemTotal:       " + memTotalKb + " kB\nMemFree:        1000 kB\n");
    }

    /** A 16 GiB machine, its process in cgroup v2 group {@code group}, with {@code mountRoot} mounted. */
    private void cgroupV2(String group, String mountRoot) throws IOException {
        machineWith(16 * 1024 * 1024);
        write("proc/self/cgroup", "0::" + group + "\n");
        write("proc/self/mountinfo",
                "30 23 0:26 " + mountRoot + " /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw\n");
    }

    @Test
    void agreesWithTheJdkOnThisMachine() {
        long read = PhysicalMemory.bytes();
        assumeTrue(read > 0, "not Linux");
        long jdk = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize(); // container-aware
        assertTrue(Math.abs(read - jdk) <= jdk / 100, "read " + read + ", the JDK says " + jdk);
    }

    @Test
    void withoutACgroupLimitItIsThePhysicalMemory() throws IOException {
        machineWith(16 * 1024 * 1024);
        assertEquals(16 * GIB, PhysicalMemory.read(root));
        cgroupV2("/user.slice", "/");
        write("sys/fs/cgroup/user.slice/memory.max", "max\n");
        assertEquals(16 * GIB, PhysicalMemory.read(root));
    }

    @Test
    void aCgroupV2LimitOfTheGroupOrOfAParentBinds() throws IOException {
        cgroupV2("/kubepods/pod1/container", "/");
        write("sys/fs/cgroup/kubepods/pod1/container/memory.max", "max\n");
        write("sys/fs/cgroup/kubepods/pod1/memory.max", String.valueOf(3 * GIB));
        assertEquals(3 * GIB, PhysicalMemory.read(root));
        write("sys/fs/cgroup/kubepods/pod1/container/memory.max", String.valueOf(2 * GIB));
        assertEquals(2 * GIB, PhysicalMemory.read(root));
    }

    @Test
    void aContainerWhoseCgroupIsTheMountRoot() throws IOException {
        cgroupV2("/docker/abc", "/docker/abc");
        write("sys/fs/cgroup/memory.max", String.valueOf(GIB));
        assertEquals(GIB, PhysicalMemory.read(root));
    }

    @Test
    void aCgroupV1MemoryLimitBindsAndItsUnlimitedValueDoesNot() throws IOException {
        machineWith(16 * 1024 * 1024);
        write("proc/self/cgroup", "5:cpu,cpuacct:/\n4:memory:/process_api/one\n0::/\n");
        write("proc/self/mountinfo", """
                31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
                35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
                41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
                """);
        write("sys/fs/cgroup/memory/process_api/one/memory.limit_in_bytes", "9223372036854771712\n");
        write("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
        assertEquals(16 * GIB, PhysicalMemory.read(root));
        write("sys/fs/cgroup/memory/process_api/one/memory.limit_in_bytes", String.valueOf(5 * GIB));
        assertEquals(5 * GIB, PhysicalMemory.read(root));
    }

    @Test
    void unknownWithoutProc() {
        assertEquals(-1, PhysicalMemory.read(root));
    }

    @Test
    void theDefaultLimitIsHalfOfWhatTheHeapLeavesInWholeBlocks() {
        int block = 8 << 20;
        assertEquals(6 * GIB, Pool.defaultMemoryLimit(block, 16 * GIB, 4 * GIB));
        assertEquals(4 * GIB, Pool.defaultMemoryLimit(block, -1, 4 * GIB), "unknown machine: the heap's maximum");
        assertEquals(block, Pool.defaultMemoryLimit(block, 4 * GIB, 8 * GIB), "at least one block");
        assertEquals(Pool.MAX_ADDRESSABLE_BYTES, Pool.defaultMemoryLimit(block, 1024 * GIB, GIB));
        assertEquals(0, Pool.defaultMemoryLimit(1 << 16, 16 * GIB + 12345, 0) % (1 << 16));
    }

    @Test
    void aPoolBuiltWithoutALimitCannotOutgrowTheMachine() {
        long physical = PhysicalMemory.bytes();
        try (MemoryPool pool = MemoryPool.builder().build()) {
            assertEquals(Pool.defaultMemoryLimit(MemoryPool.Builder.DEFAULT_BLOCK_SIZE), pool.memoryLimit());
            if (physical > 0) {
                assertTrue(pool.memoryLimit() <= physical / 2, pool.memoryLimit() + " of " + physical);
            }
        }
        try (MemoryPool pool = MemoryPool.builder().blockSize(1 << 16).build()) {
            assertEquals(Pool.defaultMemoryLimit(1 << 16), pool.memoryLimit());
        }
        try (MemoryPool pool = MemoryPool.builder().memoryLimit(3 * GIB).build()) {
            assertEquals(3 * GIB, pool.memoryLimit());
        }
    }
}
