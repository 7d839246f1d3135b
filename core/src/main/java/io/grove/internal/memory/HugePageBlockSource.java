package io.grove.internal.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Blocks mapped from the operating system one reservation at a time (anonymous private mappings of Linux, through
 * the C library's {@code mmap}), each aligned to 2 MiB and marked for transparent huge pages
 * ({@code madvise(MADV_HUGEPAGE)}), so that the kernel backs them with 2 MiB pages when the system's setting is
 * {@code madvise} (the common default) or {@code always}, and with 4 KiB pages when it is {@code never}.
 *
 * <p>Why: a map of a million entries spreads its lookups over hundreds of megabytes, and with 4 KiB pages nearly
 * every lookup also misses the TLB; an {@link ArenaBlockSource} block comes from {@code malloc} and is zeroed at
 * once, so its pages are faulted in as small pages before anyone could ask for huge ones. A fresh anonymous
 * mapping reads zero without being touched, so a block is faulted in only as the pool's bump pointer reaches it.
 *
 * <p>Each reservation is its own mapping, unmapped when the pool closes, so it always goes back to the operating
 * system ({@link #returnedFrom()} is unbounded: no grouping). The arena that owns the segments is shared, so an
 * access racing with or following the close fails with {@link IllegalStateException}, as with the arena source.
 * Calls the C library through {@link Linker}, a restricted method: {@link Pool#withHugePages} makes a source only
 * where Grove's module has native access ({@code --enable-native-access}), so that the JDK never prints its
 * warning on Grove's behalf.
 */
final class HugePageBlockSource implements BlockSource {
    private static final long HUGE_PAGE = 2L << 20;
    // Linux's values, the same on x86-64 and AArch64.
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    private static final int MADV_HUGEPAGE = 14;

    /**
     * The C library's functions, looked up when the first source is made: the lookup is the restricted call, and
     * {@link #supported()} must not make it (in the JDK's default mode a first restricted call prints a warning,
     * then grants native access to the caller's module for good).
     */
    private static final class Libc {
        static final MethodHandle MMAP;
        static final MethodHandle MUNMAP;
        static final MethodHandle MADVISE;

        static {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            MMAP = linker.downcallHandle(libc.find("mmap").orElseThrow(), FunctionDescriptor.of(ValueLayout.ADDRESS,
                    ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
            MUNMAP = linker.downcallHandle(libc.find("munmap").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
            MADVISE = linker.downcallHandle(libc.find("madvise").orElseThrow(), FunctionDescriptor.of(
                    ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        }
    }

    private final Arena arena = Arena.ofShared();

    /** Whether this source works here: Linux on x86-64 or AArch64. */
    static boolean supported() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        return os.startsWith("linux") && (arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"));
    }

    /**
     * Maps {@code bytes} plus 2 MiB, keeps the 2 MiB-aligned stretch of {@code bytes} inside and unmaps the rest,
     * then asks for huge pages on it (a refusal, e.g. with huge pages disabled, leaves small pages).
     *
     * @throws OutOfMemoryError if the operating system refuses the mapping
     */
    @Override
    public MemorySegment reserve(long bytes) {
        long length = bytes + HUGE_PAGE;
        long raw = map(length);
        if (raw == -1L) {
            throw new OutOfMemoryError("mmap of " + length + " bytes refused");
        }
        long start = (raw + HUGE_PAGE - 1) & -HUGE_PAGE;
        unmap(raw, start - raw);
        unmap(start + bytes, raw + length - (start + bytes));
        try {
            int ignored = (int) Libc.MADVISE.invokeExact(MemorySegment.ofAddress(start), bytes, MADV_HUGEPAGE);
        } catch (Throwable e) {
            throw new IllegalStateException("madvise failed", e);
        }
        return MemorySegment.ofAddress(start).reinterpret(bytes, arena, segment -> unmap(segment.address(), bytes));
    }

    private static long map(long length) {
        try {
            MemorySegment address = (MemorySegment) Libc.MMAP.invokeExact(MemorySegment.NULL, length,
                    PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0L);
            return address.address();
        } catch (Throwable e) {
            throw new IllegalStateException("mmap failed", e);
        }
    }

    private static void unmap(long address, long length) {
        if (length == 0) {
            return;
        }
        int result;
        try {
            result = (int) Libc.MUNMAP.invokeExact(MemorySegment.ofAddress(address), length);
        } catch (Throwable e) {
            throw new IllegalStateException("munmap failed", e);
        }
        if (result != 0) {
            throw new IllegalStateException("munmap of " + length + " bytes at " + Long.toHexString(address)
                    + " failed");
        }
    }

    @Override
    public long returnedFrom() {
        return Long.MAX_VALUE;
    }

    @Override
    public void close() {
        arena.close();
    }
}
