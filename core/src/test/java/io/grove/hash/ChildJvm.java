package io.grove.hash;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The command that runs a class of these tests in a child JVM: this JVM's {@code java}, the module's classes; and how
 * such a child, once it prints what the test waits for, stays where it is until the test kills it.
 */
public final class ChildJvm {
    private ChildJvm() {}

    /** {@code java -Xmx256m -cp <classes>:<test classes> main args...}. */
    public static ProcessBuilder of(Class<?> main, String... args) {
        Path classes = Path.of("target", "classes").toAbsolutePath();
        Path testClasses = Path.of("target", "test-classes").toAbsolutePath();
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-cp",
                classes + File.pathSeparator + testClasses, main.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command);
    }

    /** Starts a child JVM running {@code main} with {@code args}, its output (and errors) going to {@code output}. */
    public static Process start(Class<?> main, Path output, String... args) throws Exception {
        return of(main, args).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    }

    /** Waits (at most 60 s) until {@code child} printed {@code line} to {@code output}; fails if it did not. */
    public static void awaitLine(Process child, Path output, String line) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.readString(output).contains(line) && child.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(Files.readString(output).contains(line), "the child did not start: " + Files.readString(output));
    }

    /** In a child: prints {@code line}, then blocks the calling thread for good (only a kill ends the process). */
    static void printThenWaitToBeKilled(String line) {
        System.out.println(line);
        System.out.flush();
        while (true) {
            try {
                Thread.sleep(Long.MAX_VALUE);
            } catch (InterruptedException e) {
                // hold on: only a kill ends this process
            }
        }
    }
}
