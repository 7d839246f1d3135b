package io.grove.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * One measurement in a JVM of its own, both sides of it: the parent builds the command (the same {@code java}
 * binary and class path as itself, {@code -Xms} = {@code -Xmx}), starts it, waits with a time limit and collects
 * its output; the child ({@link #exitWith}) prints one {@value #RESULT_PREFIX} line of {@code name=value} fields,
 * or one {@value #ERROR_PREFIX} line and exit status 1. A child still running when the parent is stopped (e.g.
 * Ctrl-C) is ended by a shutdown hook. Used by the comparison ({@link Launcher}, {@link Worker}) and by the latency
 * experiment ({@code io.grove.bench.latency}).
 */
public final class ChildJvm {
    public static final String RESULT_PREFIX = "GROVE-RESULT";
    public static final String ERROR_PREFIX = "GROVE-ERROR";

    /** The child running now, ended by the shutdown hook if this JVM is stopped meanwhile. */
    private static volatile Process running;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Process p = running;
            if (p != null) {
                p.destroyForcibly();
            }
        }, "end-child-jvm"));
    }

    private ChildJvm() {}

    /**
     * How a child ended: {@code status} {@code ok} (exit status 0), {@code failed} or {@code timeout} (killed after
     * the limit; {@code exitValue} -1), and every line it printed (stdout and stderr merged).
     */
    public record Outcome(String status, int exitValue, List<String> lines) {

        public boolean ok() {
            return status.equals("ok");
        }

        /** The fields of the child's {@value #RESULT_PREFIX} line (empty if it printed none). */
        public Map<String, String> result() {
            Map<String, String> fields = new LinkedHashMap<>();
            for (String line : lines) {
                if (line.startsWith(RESULT_PREFIX + " ")) {
                    for (String field : line.substring(RESULT_PREFIX.length() + 1).split(" ")) {
                        int eq = field.indexOf('=');
                        fields.put(field.substring(0, eq), field.substring(eq + 1));
                    }
                }
            }
            return fields;
        }

        /** The child's {@value #ERROR_PREFIX} message, or the empty string. */
        public String error() {
            String error = "";
            for (String line : lines) {
                if (line.startsWith(ERROR_PREFIX + " ")) {
                    error = line.substring(ERROR_PREFIX.length() + 1);
                }
            }
            return error;
        }

        /** Prints the command and the last 40 lines of output, for a child that did not end well. */
        public void printTail(PrintStream out, List<String> command) {
            out.println();
            out.println("    child JVM command: " + String.join(" ", command));
            for (String line : lines.subList(Math.max(0, lines.size() - 40), lines.size())) {
                out.println("    | " + line);
            }
        }
    }

    /**
     * The command that runs {@code main} with {@code args} in a new JVM: this JVM's {@code java} and class path,
     * {@code -Xms} and {@code -Xmx} both {@code heapBytes}, then {@code jvmOptions}.
     */
    public static List<String> command(long heapBytes, List<String> jvmOptions, Class<?> main, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xms" + Units.jvmSize(heapBytes));
        command.add("-Xmx" + Units.jvmSize(heapBytes));
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(args);
        return command;
    }

    /**
     * Runs {@code command}, waits at most {@code limitMillis} (then kills it), and returns how it ended. With
     * {@code echo}, every line the child prints is copied to stderr as it comes.
     */
    public static Outcome run(List<String> command, long limitMillis, boolean echo)
            throws IOException, InterruptedException {
        List<String> output = new ArrayList<>();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        running = process;
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    synchronized (output) {
                        output.add(line);
                    }
                    if (echo) {
                        System.err.println("    | " + line);
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
        });
        String status;
        int exitValue;
        try {
            if (!process.waitFor(limitMillis, TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor();
                status = "timeout";
                exitValue = -1;
            } else {
                exitValue = process.exitValue();
                status = exitValue == 0 ? "ok" : "failed";
            }
        } finally {
            running = null;
        }
        reader.join(10_000);
        synchronized (output) {
            return new Outcome(status, exitValue, List.copyOf(output));
        }
    }

    /** The child's side: its {@code --name=value} arguments by name. */
    public static Map<String, String> arguments(String[] args) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("child JVM argument must be --name=value: " + arg);
            }
            values.put(arg.substring(2, eq), arg.substring(eq + 1));
        }
        return values;
    }

    /** The value of argument {@code name} from {@link #arguments}; an exception naming it if it is missing. */
    public static String required(Map<String, String> values, String name) {
        String value = values.get(name);
        if (value == null) {
            throw new IllegalArgumentException("child JVM argument --" + name + " is missing");
        }
        return value;
    }

    /**
     * The child's side: runs {@code measurement}, prints its fields as one {@value #RESULT_PREFIX} line and exits
     * with status 0; if it throws, prints the stack trace and one {@value #ERROR_PREFIX} line and exits with 1.
     * Never returns.
     */
    public static void exitWith(Callable<Map<String, String>> measurement) {
        try {
            Map<String, String> result = measurement.call();
            StringBuilder line = new StringBuilder(RESULT_PREFIX);
            result.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
            System.out.println(line);
            System.out.flush();
            System.exit(0);
        } catch (Throwable t) {
            t.printStackTrace();
            System.out.println(ERROR_PREFIX + " " + String.valueOf(t).replace('\n', ' '));
            System.out.flush();
            System.exit(1);
        }
    }
}
