package io.grove.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Grove runs on a stock JDK 25 with no flags (CONTRIBUTING.md, fixed decision 1): its main sources use no
 * {@code sun.misc.Unsafe}, no JDK internals, no JNI and none of the restricted methods of the Foreign Function &amp;
 * Memory API, which print a warning without {@code --enable-native-access}. One exception, the opt-in huge pages
 * (CONTRIBUTING.md, fixed decision 1): {@value #HUGE_PAGE_SOURCE} may use the restricted FFM API (the linker, the
 * symbol lookup, {@code reinterpret}) and nothing else on the list, and {@code Pool} must check that Grove's
 * module has native access before it makes one, so that the JDK never prints its warning.
 *
 * <p>Comments are blanked before matching, so documentation may name what the code avoids; string literals are
 * kept, so reflective access such as {@code Class.forName("sun.misc.Unsafe")} is still caught. The working
 * directory is the core module, as under Maven Surefire.
 */
class NoUnsafeAccessTest {

    private static final Path MAIN_SOURCES = Path.of("src", "main", "java");
    private static final String HUGE_PAGE_SOURCE = "io/grove/internal/memory/HugePageBlockSource.java";
    private static final String RESTRICTED_FFM = "restricted FFM";

    /**
     * What is forbidden, each with the reason given in a failure. A rule that is about declarations, not names,
     * does not look inside string literals.
     */
    private record Rule(String description, Pattern pattern, boolean matchesInLiterals) {
        Rule(String description, String regex) {
            this(description, Pattern.compile(regex), true);
        }

        Rule(String description, String regex, boolean matchesInLiterals) {
            this(description, Pattern.compile(regex), matchesInLiterals);
        }
    }

    private static final List<Rule> RULES = List.of(
            new Rule("sun.misc.Unsafe", "sun\\s*\\.\\s*misc\\s*\\.\\s*Unsafe"),
            new Rule("JDK internals (jdk.internal)", "jdk\\s*\\.\\s*internal\\b"),
            new Rule("a native method (JNI)",
                    "(?<![\\w.$])native\\s+(?:[\\w$.<>\\[\\],?\\s]|@\\w+)+?\\s+[\\w$]+\\s*\\(", false),
            new Rule("restricted FFM method MemorySegment.reinterpret", "\\breinterpret\\b"),
            new Rule("restricted FFM method AddressLayout.withTargetLayout", "\\bwithTargetLayout\\b"),
            new Rule("restricted FFM API Linker", "\\bLinker\\b"),
            new Rule("restricted FFM API SymbolLookup", "\\bSymbolLookup\\b"),
            new Rule("restricted method enableNativeAccess", "\\benableNativeAccess\\b"),
            new Rule("native library loading (System.loadLibrary / System.load)",
                    "\\bSystem\\s*\\.\\s*load(?:Library)?\\s*\\("),
            new Rule("native library loading (Runtime.load / Runtime.loadLibrary)",
                    "\\bgetRuntime\\s*\\(\\s*\\)\\s*\\.\\s*load(?:Library)?\\s*\\("));

    @Test
    void mainSourcesUseNoUnsafeOrRestrictedAccess() throws IOException {
        assertTrue(Files.isDirectory(MAIN_SOURCES),
                "expected the core module's sources at " + MAIN_SOURCES.toAbsolutePath()
                        + ": run from the core module directory, as Maven Surefire does");
        List<Path> files;
        try (Stream<Path> walk = Files.walk(MAIN_SOURCES)) {
            files = walk.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        assertTrue(files.contains(MAIN_SOURCES.resolve("module-info.java")),
                "module-info.java not found under " + MAIN_SOURCES.toAbsolutePath());

        List<String> violations = new ArrayList<>();
        Path hugePageSource = MAIN_SOURCES.resolve(HUGE_PAGE_SOURCE);
        for (Path file : files) {
            String source = Files.readString(file, StandardCharsets.UTF_8);
            for (String violation : violations(source)) {
                if (!(file.equals(hugePageSource) && violation.contains(": " + RESTRICTED_FFM))) {
                    violations.add(file + ":" + violation);
                }
            }
        }
        assertTrue(files.contains(hugePageSource), "the exception names a file that is gone: " + hugePageSource);
        String pool = Files.readString(MAIN_SOURCES.resolve("io/grove/internal/memory/Pool.java"));
        assertTrue(pool.contains("isNativeAccessEnabled()"),
                "Pool no longer checks native access before it makes a huge-page source");
        if (!violations.isEmpty()) {
            fail(violations.size() + " forbidden use(s) in " + MAIN_SOURCES
                    + " (see CONTRIBUTING.md, fixed decision 1):\n  " + String.join("\n  ", violations));
        }
    }

    // The scanner itself, on small sources, so that a broken pattern cannot pass silently.

    @Test
    void flagsEachForbiddenUse() {
        assertFlagged("import sun.misc.Unsafe;");
        assertFlagged("Object u = Class.forName(\"sun.misc.Unsafe\");");
        assertFlagged("import jdk.internal.misc.Unsafe;");
        assertFlagged("private static native long address(Object o);");
        assertFlagged("public native\n    int[] compute(int a);");
        assertFlagged("MemorySegment all = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);");
        assertFlagged("var f = MemorySegment::reinterpret;");
        assertFlagged("AddressLayout l = ValueLayout.ADDRESS.withTargetLayout(JAVA_LONG);");
        assertFlagged("Linker linker = Linker.nativeLinker();");
        assertFlagged("java.lang.foreign.SymbolLookup lookup = null;");
        assertFlagged("System.loadLibrary(\"grove\");");
        assertFlagged("System.load(\"/tmp/libgrove.so\");");
        assertFlagged("Runtime.getRuntime().loadLibrary(\"grove\");");
    }

    @Test
    void reportsTheLineOfEachUse() {
        List<String> found = violations("class A {\n  // fine\n  void f() {}\n  static native void g();\n}\n");
        assertEquals(1, found.size(), found.toString());
        assertTrue(found.getFirst().startsWith("4:"), found.toString());
    }

    @Test
    void ignoresCommentsAndLookalikes() {
        assertClean("// No sun.misc.Unsafe, no Linker, no reinterpret(): see CONTRIBUTING.md");
        assertClean("/* jdk.internal is not used;\n native methods neither: System.loadLibrary(x) */ int a;");
        assertClean("/** Reads native memory through a {@link java.lang.foreign.MemorySegment}. */ int b;");
        assertClean("String s = \"// not a comment\"; int nativeOrder = 1;");
        assertClean("boolean isNative = order == ByteOrder.nativeOrder();");
        assertClean("int reinterpretBits(long x) { return (int) x; }");
        assertClean("props.load(in); LinkerConfig c = null;");
        assertClean("String m = \"calls native code here(x)\";");
    }

    @Test
    void commentMarkersInsideLiteralsDoNotHideCode() {
        assertFlagged("String s = \"/*\"; Linker l = null;");
        assertFlagged("char q = '\"'; String s = \"/*\"; Linker l = null;");
        assertFlagged("String t = \"\"\"\n   /* \\\"\"\" still text\n   \"\"\"; Linker l = null;");
    }

    private static void assertFlagged(String source) {
        assertEquals(1, violations(source).size(), () -> "expected one violation in: " + source);
    }

    private static void assertClean(String source) {
        List<String> found = violations(source);
        assertTrue(found.isEmpty(), () -> "expected no violation in: " + source + "\nfound: " + found);
    }

    /** One entry per rule and line with a forbidden use, as "line: description: source line". */
    private static List<String> violations(String source) {
        String withLiterals = blank(source, false);
        String codeOnly = blank(source, true);
        List<String> found = new ArrayList<>();
        for (Rule rule : RULES) {
            String code = rule.matchesInLiterals() ? withLiterals : codeOnly;
            var matcher = rule.pattern().matcher(code);
            int lastLine = 0;
            while (matcher.find()) {
                int line = lineOf(code, matcher.start());
                if (line != lastLine) {
                    found.add(line + ": " + rule.description() + ": " + sourceLine(source, line).strip());
                    lastLine = line;
                }
            }
        }
        found.sort(Comparator.comparingInt(entry -> Integer.parseInt(entry.substring(0, entry.indexOf(':')))));
        return found;
    }

    private static int lineOf(String text, int index) {
        int line = 1;
        for (int i = 0; i < index; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    private static String sourceLine(String source, int line) {
        return source.lines().skip(line - 1L).findFirst().orElse("");
    }

    /**
     * Replaces every comment character with a space, keeping newlines so that line numbers hold; with
     * {@code literalsToo}, the contents of string, text block and character literals as well. A comment marker
     * inside a literal is not a comment.
     */
    private static String blank(String source, boolean literalsToo) {
        StringBuilder out = new StringBuilder(source);
        int n = source.length();
        int i = 0;
        while (i < n) {
            char c = source.charAt(i);
            if (c == '/' && i + 1 < n && source.charAt(i + 1) == '/') {
                while (i < n && source.charAt(i) != '\n') {
                    out.setCharAt(i++, ' ');
                }
            } else if (c == '/' && i + 1 < n && source.charAt(i + 1) == '*') {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                for (; i < end; i++) {
                    if (source.charAt(i) != '\n') {
                        out.setCharAt(i, ' ');
                    }
                }
            } else if (source.startsWith("\"\"\"", i)) {
                int end = source.indexOf("\"\"\"", i + 3);
                while (end > 0 && isEscaped(source, end)) {
                    end = source.indexOf("\"\"\"", end + 1);
                }
                end = end < 0 ? n : end;
                blankRange(source, out, i + 3, end, literalsToo);
                i = Math.min(n, end + 3);
            } else if (c == '"' || c == '\'') {
                int start = ++i;
                while (i < n && source.charAt(i) != c && source.charAt(i) != '\n') {
                    i += source.charAt(i) == '\\' ? 2 : 1;
                }
                i = Math.min(i, n);
                blankRange(source, out, start, i, literalsToo);
                i++;
            } else {
                i++;
            }
        }
        return out.toString();
    }

    private static void blankRange(String source, StringBuilder out, int from, int to, boolean blank) {
        for (int j = from; blank && j < to; j++) {
            if (source.charAt(j) != '\n') {
                out.setCharAt(j, ' ');
            }
        }
    }

    /** Whether the character at {@code index} is preceded by an odd number of backslashes. */
    private static boolean isEscaped(String source, int index) {
        int backslashes = 0;
        for (int j = index - 1; j >= 0 && source.charAt(j) == '\\'; j--) {
            backslashes++;
        }
        return (backslashes & 1) == 1;
    }
}
