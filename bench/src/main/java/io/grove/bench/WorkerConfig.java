package io.grove.bench;

import java.util.ArrayList;
import java.util.HashMap;
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
        Map<String, String> values = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("worker argument must be --name=value: " + arg);
            }
            values.put(arg.substring(2, eq), arg.substring(eq + 1));
        }
        return new WorkerConfig(required(values, "scenario"), required(values, "contender"),
                Integer.parseInt(required(values, "threads")), Long.parseLong(required(values, "warmup-ms")),
                Long.parseLong(required(values, "duration-ms")), Integer.parseInt(required(values, "keys")),
                Integer.parseInt(required(values, "value-size")), Long.parseLong(required(values, "off-heap-limit")),
                Long.parseLong(required(values, "seed")));
    }

    private static String required(Map<String, String> values, String name) {
        String value = values.get(name);
        if (value == null) {
            throw new IllegalArgumentException("worker argument --" + name + " is missing");
        }
        return value;
    }
}
