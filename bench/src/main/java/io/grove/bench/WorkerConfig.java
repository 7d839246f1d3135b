package io.grove.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the parent tells one worker JVM: which cell of the matrix to run and with what sizes. Passed as
 * {@code --name=value} arguments.
 *
 * @param offHeapLimit the off-heap memory limit for off-heap contenders, in bytes (0 for on-heap ones)
 */
public record WorkerConfig(String scenario, String contender, int threads, long warmupMillis, long durationMillis,
        int keys, int valueSize, long offHeapLimit, long seed) {

    public List<String> toArgs() {
        List<String> args = new ArrayList<>();
        args.add("--scenario=" + scenario);
        args.add("--contender=" + contender);
        args.add("--threads=" + threads);
        args.add("--warmup-ms=" + warmupMillis);
        args.add("--duration-ms=" + durationMillis);
        args.add("--keys=" + keys);
        args.add("--value-size=" + valueSize);
        args.add("--off-heap-limit=" + offHeapLimit);
        args.add("--seed=" + seed);
        return args;
    }

    public static WorkerConfig parse(String[] args) {
        Map<String, String> values = ChildJvm.arguments(args);
        return new WorkerConfig(ChildJvm.required(values, "scenario"), ChildJvm.required(values, "contender"),
                Integer.parseInt(ChildJvm.required(values, "threads")),
                Long.parseLong(ChildJvm.required(values, "warmup-ms")),
                Long.parseLong(ChildJvm.required(values, "duration-ms")),
                Integer.parseInt(ChildJvm.required(values, "keys")),
                Integer.parseInt(ChildJvm.required(values, "value-size")),
                Long.parseLong(ChildJvm.required(values, "off-heap-limit")),
                Long.parseLong(ChildJvm.required(values, "seed")));
    }
}
