package io.grove.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps the README true: its Usage code is the example test, character for character (but for the package line),
 * and CI runs the README's test command. The working directory is the core module, as under Maven Surefire.
 */
class ReadmeTest {

    private static final Path README = Path.of("..", "README.md");
    private static final Path EXAMPLE =
            Path.of("src", "test", "java", "io", "grove", "example", "ReadmeExampleTest.java");
    private static final Path CI_SCRIPT = Path.of("..", ".ci", "run");

    @Test
    void usageIsACopyOfTheExampleTest() throws IOException {
        List<String> javaBlocks = fencedBlocks(read(README), "java");
        assertEquals(1, javaBlocks.size(), "README.md should hold exactly one java code block");

        String example = read(EXAMPLE);
        String withoutPackage = example.substring(example.indexOf('\n', example.indexOf("package ")) + 1).strip();
        assertEquals(withoutPackage, javaBlocks.getFirst().strip(),
                "README.md's Usage code differs from " + EXAMPLE + ": copy the test (without its package line)");
    }

    @Test
    void runsWithTheTwoDocumentedCommandsAndCiRunsTheTestCommand() throws IOException {
        List<String> shellBlocks = fencedBlocks(read(README), "sh");
        assertEquals(1, shellBlocks.size(), "README.md should hold exactly one sh code block");
        List<String> commands = shellBlocks.getFirst().lines()
                .map(line -> line.replaceFirst("#.*", "").strip())
                .filter(line -> !line.isEmpty())
                .toList();
        assertEquals(List.of("./grove bench", "./grove test"), commands, "the commands in README.md");

        boolean ciRunsTests = read(CI_SCRIPT).lines()
                .map(String::strip)
                .anyMatch(line -> line.startsWith("./grove test"));
        assertTrue(ciRunsTests, CI_SCRIPT + " should run the README's test command, ./grove test");
    }

    private static String read(Path file) throws IOException {
        assertTrue(Files.isRegularFile(file), "not found: " + file.toAbsolutePath().normalize());
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    /** The contents of the Markdown code blocks fenced with three backticks and tagged {@code language}. */
    private static List<String> fencedBlocks(String markdown, String language) {
        List<String> blocks = new ArrayList<>();
        StringBuilder current = null;
        for (String line : markdown.lines().toList()) {
            if (current == null) {
                if (line.equals("```" + language)) {
                    current = new StringBuilder();
                }
            } else if (line.equals("```")) {
                blocks.add(current.toString());
                current = null;
            } else {
                current.append(line).append('\n');
            }
        }
        return blocks;
    }
}
