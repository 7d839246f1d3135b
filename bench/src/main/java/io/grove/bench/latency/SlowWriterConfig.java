package io.grove.bench.latency;

import io.grove.bench.ChildJvm;
import java.util.List;
import java.util.Map;

/**
 * What the parent ({@link SlowWriterLatency}) tells one child JVM ({@link SlowWriterRun}), passed as
 * {@code --name=value} arguments.
 *
 * @param target which keys the readers get: {@code other} (uniform over every key but the slow one) or
 *     {@code same} (the slow key itself)
 * @param holdNanos how long each slow update holds its key, inside the map's update
 * @param spin whether the hold busy-waits ({@code Thread.onSpinWait}) rather than sleeps
 * @param pauseNanos how long the writer waits between two slow updates (0: back to back)
 * @param waitedAboveNanos a get at least this long counts as one that waited for the writer
 * @param offHeapLimit the map's memory limit for off-heap contenders (0 for on-heap ones)
 */
record SlowWriterConfig(String contender, String target, int readers, long holdNanos, boolean spin, long pauseNanos,
        int keys, int valueSize, long warmupMillis, long durationMillis, long waitedAboveNanos, long offHeapLimit,
        long seed) {

    static final List<String> TARGETS = List.of("other", "same");

    SlowWriterConfig {
        if (!TARGETS.contains(target)) {
            throw new IllegalArgumentException("target must be one of " + TARGETS + ", was " + target);
        }
        if (keys < 2) {
            throw new IllegalArgumentException("keys must be at least 2 (a slow key and another), was " + keys);
        }
    }

    boolean sameKey() {
        return target.equals("same");
    }

    List<String> toArgs() {
        return List.of("--contender=" + contender, "--target=" + target, "--readers=" + readers,
                "--hold-ns=" + holdNanos, "--spin=" + spin, "--pause-ns=" + pauseNanos, "--keys=" + keys,
                "--value-size=" + valueSize, "--warmup-ms=" + warmupMillis, "--duration-ms=" + durationMillis,
                "--waited-above-ns=" + waitedAboveNanos, "--off-heap-limit=" + offHeapLimit, "--seed=" + seed);
    }

    static SlowWriterConfig parse(String[] args) {
        Map<String, String> v = ChildJvm.arguments(args);
        return new SlowWriterConfig(ChildJvm.required(v, "contender"), ChildJvm.required(v, "target"),
                Integer.parseInt(ChildJvm.required(v, "readers")), Long.parseLong(ChildJvm.required(v, "hold-ns")),
                Boolean.parseBoolean(ChildJvm.required(v, "spin")), Long.parseLong(ChildJvm.required(v, "pause-ns")),
                Integer.parseInt(ChildJvm.required(v, "keys")), Integer.parseInt(ChildJvm.required(v, "value-size")),
                Long.parseLong(ChildJvm.required(v, "warmup-ms")), Long.parseLong(ChildJvm.required(v, "duration-ms")),
                Long.parseLong(ChildJvm.required(v, "waited-above-ns")),
                Long.parseLong(ChildJvm.required(v, "off-heap-limit")), Long.parseLong(ChildJvm.required(v, "seed")));
    }
}
