package io.grove.hash;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

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
