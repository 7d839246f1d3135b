package io.grove.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine the benchmarks run on (parent and children run on the same one), and how busy it is now. */
public record Machine(String host, int cores, long memoryBytes, String cpu, String jdk) {

    public static Machine current() {
        long memory = -1;
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            memory = os.getTotalMemorySize();
        }
        String cpu = "";
        try {
            cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .findFirst().map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("");
        } catch (IOException e) {
            // not Linux
        }
        String host = "";
        try {
            host = Files.readString(Path.of("/proc/sys/kernel/hostname")).trim();
        } catch (IOException e) {
            // not Linux
        }
        String jdk = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
        return new Machine(host, Runtime.getRuntime().availableProcessors(), memory, cpu, jdk);
    }

    @Override
    public String toString() {
        return cores + " cores, " + Units.mib(memoryBytes) + " MiB memory, " + cpu + ", " + jdk;
    }

    /** {busy, total} jiffies of all CPUs from {@code /proc/stat}, or null (not Linux). */
    public static long[] cpuTicks() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length && i <= 8; i++) { // user nice system idle iowait irq softirq steal
                total += Long.parseLong(f[i]);
            }
            return new long[] {total - Long.parseLong(f[4]) - Long.parseLong(f[5]), total};
        } catch (Exception e) {
            return null;
        }
    }

    /** The 1-minute load average from {@code /proc/loadavg}, or NaN. */
    public static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (Exception e) {
            return Double.NaN;
        }
    }
}
