package io.grove.testing;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * What the machine did while a run went on, for a run that reached its cap: whether this JVM ran (its CPU time, its
 * garbage collections) or the machine was busy elsewhere (Linux's {@code /proc/stat}: time idle, taken by the
 * hypervisor, spent by other processes), so that a slow machine can be told from a livelock.
 */
final class MachineLoad {
    private static final Path STAT = Path.of("/proc/stat");

    private final long wallNanos = System.nanoTime();
    private final long cpuNanos = processCpuNanos();
    private final long gcMillis = gcMillis();
    private final long[] machine = machineTicks();

    /** The figures since this was taken. */
    String since() {
        long wall = System.nanoTime() - wallNanos;
        StringBuilder b = new StringBuilder("during the run (").append(TimeUnit.NANOSECONDS.toMillis(wall))
                .append(" ms, ").append(Runtime.getRuntime().availableProcessors()).append(" processors): this JVM ");
        long cpu = processCpuNanos();
        String used = cpu < 0 || cpuNanos < 0 ? "(CPU time unknown)"
                : "used " + TimeUnit.NANOSECONDS.toMillis(cpu - cpuNanos) + " ms of CPU";
        b.append(used).append(", garbage collections took ").append(gcMillis() - gcMillis).append(" ms");
        long[] now = machineTicks();
        if (now != null && machine != null) {
            long total = 0;
            long[] delta = new long[now.length];
            for (int i = 0; i < now.length; i++) {
                delta[i] = now[i] - machine[i];
                total += delta[i];
            }
            // fields: user nice system idle iowait irq softirq steal
            long idle = delta[3] + delta[4];
            long steal = delta.length > 7 ? delta[7] : 0;
            b.append("; the machine was idle ").append(percent(idle, total)).append("%, lost to the hypervisor ")
                    .append(percent(steal, total)).append("%, busy ").append(percent(total - idle - steal, total))
                    .append("% (all processes)");
        }
        return b.toString();
    }

    private static long percent(long part, long total) {
        return total == 0 ? 0 : Math.round(100.0 * part / total);
    }

    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : -1;
    }

    private static long gcMillis() {
        long sum = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }

    /** The first eight numbers of {@code /proc/stat}'s {@code cpu} line, or {@code null} where there is none. */
    private static long[] machineTicks() {
        try {
            String[] fields = Files.readAllLines(STAT).getFirst().trim().split("\\s+");
            long[] ticks = new long[Math.min(8, fields.length - 1)];
            for (int i = 0; i < ticks.length; i++) {
                ticks[i] = Long.parseLong(fields[i + 1]);
            }
            return ticks;
        } catch (IOException | RuntimeException unreadable) {
            return null;
        }
    }
}
