package io.grove.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What a result CSV cannot say about its run: the command that produced it and the commit it ran, kept next to it
 * in {@code <name>.run.txt} ({@code command: ...}, {@code commit: ...}) so that a summary can cite both.
 *
 * @param command the command line, e.g. {@code ./grove bench --scenario ordered}
 * @param commit the abbreviated commit, with {@code +local changes} if the work tree differed from it; or
 *     {@code not recorded}
 */
public record RunInfo(String command, String commit) {
    private static final String UNKNOWN = "not recorded";

    /** Writes the info of a run of {@code tool args} (e.g. {@code ./grove bench}) next to {@code csv}. */
    public static void write(Path csv, String tool, String[] args) throws IOException {
        String command = tool + (args.length == 0 ? "" : " " + String.join(" ", args));
        Path directory = csv.toAbsolutePath().getParent();
        String commit = git(directory, "rev-parse", "--short", "HEAD");
        if (commit.isEmpty()) {
            commit = UNKNOWN;
        } else if (!git(directory, "status", "--porcelain", "--untracked-files=no").isEmpty()) {
            commit += " +local changes";
        }
        Files.writeString(sidecar(csv), "command: " + command + "\ncommit: " + commit + "\n",
                StandardCharsets.UTF_8);
    }

    /** The info kept next to {@code csv}; both fields {@code not recorded} for runs from before it was kept. */
    static RunInfo read(Path csv) throws IOException {
        Path file = sidecar(csv);
        if (!Files.isRegularFile(file)) {
            return new RunInfo(UNKNOWN, UNKNOWN);
        }
        String command = UNKNOWN;
        String commit = UNKNOWN;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.startsWith("command: ")) {
                command = line.substring("command: ".length());
            } else if (line.startsWith("commit: ")) {
                commit = line.substring("commit: ".length());
            }
        }
        return new RunInfo(command, commit);
    }

    private static Path sidecar(Path csv) {
        String name = csv.getFileName().toString();
        return csv.resolveSibling(name.substring(0, name.length() - ".csv".length()) + ".run.txt");
    }

    /** The output of {@code git args} run in {@code directory}, trimmed; empty if git is missing or fails. */
    private static String git(Path directory, String... args) {
        try {
            List<String> command = new java.util.ArrayList<>(List.of("git", "-C", directory.toString()));
            command.addAll(List.of(args));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
