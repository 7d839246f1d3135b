package io.grove.internal.memory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How much memory this process may use: the machine's physical memory, or less if the process runs in a control
 * group (a container) with a memory limit. Read from Linux's {@code /proc} and cgroup files (version 1 or 2),
 * because {@code io.grove} requires only {@code java.base}; elsewhere unknown.
 *
 * <p>The cgroup of the process is found in {@code /proc/self/cgroup}, the mount point of its hierarchy in
 * {@code /proc/self/mountinfo}; the limit is the smallest {@code memory.max} (v2) or
 * {@code memory.limit_in_bytes} (v1) from that group up to the mount point, since a parent's limit binds its
 * children. "max", absent files and values beyond the physical memory mean no limit.
 */
final class PhysicalMemory {
    private PhysicalMemory() {}

    /** Computed once: neither the machine nor the container changes under a running process, in practice. */
    private static final class Holder {
        static final long BYTES = read(Path.of("/"));
    }

    /** The memory this process may use, in bytes, or -1 if unknown (not Linux, or unreadable). */
    static long bytes() {
        return Holder.BYTES;
    }

    /** As {@link #bytes()}, reading the files under {@code root} instead of {@code /} (for tests). */
    static long read(Path root) {
        try {
            long total = memTotal(root.resolve("proc/meminfo"));
            if (total <= 0) {
                return -1;
            }
            return Math.min(total, cgroupLimit(root));
        } catch (IOException | RuntimeException unreadable) {
            return -1;
        }
    }

    private static long memTotal(Path meminfo) throws IOException {
        if (!Files.isReadable(meminfo)) {
            return -1;
        }
        for (String line : Files.readAllLines(meminfo)) {
            if (line.startsWith("MemTotal:")) {
                String[] fields = line.trim().split("\\s+");
                return Long.parseLong(fields[1]) * (fields.length > 2 && fields[2].equals("kB") ? 1024 : 1);
            }
        }
        return -1;
    }

    /** The smallest memory limit of the process's cgroup and its parents, or {@link Long#MAX_VALUE}. */
    private static long cgroupLimit(Path root) throws IOException {
        Path cgroupFile = root.resolve("proc/self/cgroup");
        Path mountinfo = root.resolve("proc/self/mountinfo");
        if (!Files.isReadable(cgroupFile) || !Files.isReadable(mountinfo)) {
            return Long.MAX_VALUE;
        }
        List<String> mounts = Files.readAllLines(mountinfo);
        long limit = Long.MAX_VALUE;
        for (String line : Files.readAllLines(cgroupFile)) {
            // hierarchy-id:controllers:path; v2 is "0::path", v1's memory hierarchy lists "memory"
            String[] parts = line.split(":", 3);
            if (parts.length < 3) {
                continue;
            }
            boolean v2 = parts[0].equals("0") && parts[1].isEmpty();
            boolean v1Memory = List.of(parts[1].split(",")).contains("memory");
            if (v2 || v1Memory) {
                limit = Math.min(limit, limitOf(root, mounts, parts[2], v2));
            }
        }
        return limit;
    }

    /** The limit of cgroup {@code path} of the v2 (or v1 memory) hierarchy, walking up to its mount point. */
    private static long limitOf(Path root, List<String> mounts, String path, boolean v2) throws IOException {
        for (String mount : mounts) {
            // id parent major:minor root mount-point options [optional fields] - fstype source super-options
            int dash = mount.indexOf(" - ");
            if (dash < 0) {
                continue;
            }
            String[] before = mount.substring(0, dash).split(" ");
            String[] after = mount.substring(dash + 3).split(" ");
            boolean matches = v2 ? after[0].equals("cgroup2")
                    : after[0].equals("cgroup") && after.length > 2 && List.of(after[2].split(",")).contains("memory");
            if (!matches || before.length < 5) {
                continue;
            }
            String mountRoot = before[3];
            Path mountPoint = root.resolve(before[4].substring(1));
            // In a container the mount's root is often the container's own group, which /proc/self/cgroup names
            // by its full path: the group's directory is then the mount point itself.
            String relative = path.startsWith(mountRoot) ? path.substring(mountRoot.length()) : "";
            Path dir = mountPoint.resolve(relative.startsWith("/") ? relative.substring(1) : relative).normalize();
            String file = v2 ? "memory.max" : "memory.limit_in_bytes";
            long limit = Long.MAX_VALUE;
            for (Path d = dir; d != null && d.startsWith(mountPoint); d = d.getParent()) {
                limit = Math.min(limit, readLimit(d.resolve(file)));
            }
            return limit;
        }
        return Long.MAX_VALUE;
    }

    private static long readLimit(Path file) throws IOException {
        if (!Files.isReadable(file)) {
            return Long.MAX_VALUE;
        }
        String value = Files.readString(file).trim();
        return value.equals("max") || value.isEmpty() ? Long.MAX_VALUE : Long.parseLong(value);
    }
}
