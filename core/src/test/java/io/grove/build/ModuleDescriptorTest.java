package io.grove.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The compiled module {@code io.grove} exports only the API packages, to everyone, opens nothing and needs nothing
 * but {@code java.base} (CONTRIBUTING.md, fixed decisions 2 and 3). Tests run on the class path, so the descriptor
 * is read from the compiled classes; the working directory is the core module, as under Maven Surefire.
 */
class ModuleDescriptorTest {

    private static final Path CLASSES = Path.of("target", "classes");
    private static final Set<String> API_PACKAGES = Set.of("io.grove", "io.grove.view", "io.grove.serial");

    private static ModuleDescriptor descriptor;

    @BeforeAll
    static void readDescriptor() {
        assertTrue(Files.isRegularFile(CLASSES.resolve("module-info.class")),
                "no compiled module descriptor at " + CLASSES.toAbsolutePath().resolve("module-info.class"));
        descriptor = ModuleFinder.of(CLASSES)
                .find("io.grove")
                .orElseThrow(() -> new AssertionError("module io.grove not found in " + CLASSES.toAbsolutePath()))
                .descriptor();
    }

    @Test
    void exportsExactlyTheApiPackagesToEveryone() {
        Set<String> exported = descriptor.exports().stream()
                .map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(new TreeSet<>(API_PACKAGES), exported, "exported packages of io.grove");
        for (ModuleDescriptor.Exports export : descriptor.exports()) {
            assertFalse(export.isQualified(), "export should not be qualified: " + export);
        }
    }

    @Test
    void requiresOnlyJavaBase() {
        Set<String> required = descriptor.requires().stream()
                .map(ModuleDescriptor.Requires::name)
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(Set.of("java.base"), required, "modules required by io.grove");
    }

    @Test
    void opensNothing() {
        assertFalse(descriptor.isOpen(), "io.grove should not be an open module");
        assertEquals(Set.of(), descriptor.opens(), "packages opened by io.grove");
    }

    @Test
    void implementationPackagesAreInternal() {
        Set<String> hidden = new TreeSet<>(descriptor.packages());
        hidden.removeAll(API_PACKAGES);
        for (String pkg : hidden) {
            assertTrue(pkg.startsWith("io.grove.internal."),
                    "package " + pkg + " is neither exported API nor under io.grove.internal");
        }
    }
}
