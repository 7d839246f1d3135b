package io.grove.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Grove runs on a stock JDK 25 with no JVM flags and prints no warnings (CONTRIBUTING.md, fixed decision 1).
 * Surefire's own JVM has flags, so this starts a fresh JVM, the same {@code java} as the current one with nothing
 * but a class path, runs {@link NoWarningsMain} and checks its output. Both JDK warnings ({@code WARNING: ...}) and
 * VM warnings ({@code ... VM warning: ...}) count. The working directory is the core module, as under Maven
 * Surefire.
 */
class NoWarningsTest {

    private static final long TIMEOUT_SECONDS = 60;

    @Test
    void stockJvmRunsGroveWithoutWarnings(@TempDir Path tmp) throws IOException, InterruptedException {
        Path classes = Path.of("target", "classes").toAbsolutePath();
        Path testClasses = Path.of("target", "test-classes").toAbsolutePath();
        assertTrue(Files.isDirectory(classes), "not compiled: " + classes);
        assertTrue(Files.isDirectory(testClasses), "not compiled: " + testClasses);

        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        ProcessBuilder builder = new ProcessBuilder(java,
                "-cp", classes + File.pathSeparator + testClasses,
                NoWarningsMain.class.getName());
        // Options from the environment would be extra flags: the child gets none.
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().remove("JDK_JAVA_OPTIONS");
        builder.environment().remove("_JAVA_OPTIONS");
        Path output = tmp.resolve("output.txt");
        builder.redirectErrorStream(true).redirectOutput(output.toFile());

        Process process = builder.start();
        process.getOutputStream().close();
        if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            fail("child JVM did not finish in " + TIMEOUT_SECONDS + " s: " + builder.command()
                    + "\noutput so far:\n" + read(output));
        }
        String text = read(output);
        String context = "command: " + builder.command() + "\noutput:\n" + text;

        assertEquals(0, process.exitValue(), () -> "child JVM failed; " + context);
        List<String> warnings = text.lines()
                .filter(line -> line.toLowerCase(Locale.ROOT).contains("warning"))
                .toList();
        assertEquals(List.of(), warnings, () -> "child JVM printed warnings; " + context);
        assertTrue(text.lines().anyMatch(NoWarningsMain.DONE::equals), () -> "child JVM did not finish its work; "
                + context);
    }

    private static String read(Path file) throws IOException {
        return Files.exists(file) ? new String(Files.readAllBytes(file), StandardCharsets.UTF_8) : "";
    }
}
