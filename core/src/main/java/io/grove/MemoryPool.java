package io.grove;

import io.grove.internal.memory.Pool;

/**
 * Off-heap memory owned by one or more Grove maps: blocks taken from the operating system, carved into slices
 * for keys and values, and all returned to the operating system on {@link #close()}.
 *
 * <p>A map creates its own pool unless given one; a pool created here may be shared by several maps so that they
 * draw on one memory limit. The pool is thread-safe. After {@link #close()}, {@link #footprint()} and every use of
 * a map drawing on the pool throw {@link IllegalStateException}; the settings ({@link #memoryLimit()},
 * {@link #blockSize()}, {@link #maxSliceSize()}, {@link #reclamation()}) and {@link #isClosed()} still answer.
 * A {@link io.grove.view.Handle} of such a map then reports itself invalid ({@code isValid()} is {@code false}) and
 * its reads throw {@link IllegalStateException}.
 */
public sealed interface MemoryPool extends AutoCloseable permits Pool {

    /**
     * A builder with the defaults: {@link Builder#DEFAULT_BLOCK_SIZE} blocks, the default memory limit derived from
     * the machine's memory ({@link Builder#memoryLimit}), {@link Reclamation#NOVA}.
     */
    static Builder builder() {
        return new Builder();
    }

    /**
     * Current figures, each read in constant time.
     *
     * @throws IllegalStateException if the pool is closed
     */
    MemoryFootprint footprint();

    /** The most bytes this pool will reserve from the operating system. */
    long memoryLimit();

    /** The size of each block reserved from the operating system. */
    int blockSize();

    /** The largest key or value, in bytes, that one slice can hold. */
    int maxSliceSize();

    Reclamation reclamation();

    boolean isClosed();

    /**
     * Returns all off-heap memory to the operating system. Idempotent. Threads still using the pool, or maps
     * drawing on it, get {@link IllegalStateException}; none of them can read freed memory.
     *
     * <p>The memory is freed through the C library. With glibc (Linux), memory a pool reserved beyond its first
     * 32 MiB is reserved in regions of at least 32 MiB, which glibc always unmaps when they are freed; the first
     * 32 MiB, reserved one block at a time, may stay in glibc's heaps for reuse within the process (it does once
     * the process has freed a large block before). Measured: a 256 MiB pool closed after another pool left 8 MiB
     * resident, and a 1 GiB hash map 39 to 44 MiB of process growth (181 to 311 MiB before blocks were grouped).
     */
    @Override
    void close();

    /** Builds a {@link MemoryPool}; each setter validates its argument and {@link #build()} checks them together. */
    final class Builder {
        /** 8 MiB: large enough that block bookkeeping is negligible, small enough to reserve quickly. */
        public static final int DEFAULT_BLOCK_SIZE = 8 << 20;
        /** 64 KiB. */
        public static final int MIN_BLOCK_SIZE = 1 << 16;
        /** 1 GiB. */
        public static final int MAX_BLOCK_SIZE = 1 << 30;

        private int blockSize = DEFAULT_BLOCK_SIZE;
        /** -1: the default, computed at {@link #build()} for the block size then set. */
        private long memoryLimit = -1;
        private Reclamation reclamation = Reclamation.NOVA;
        private boolean hugePages;

        Builder() {}

        /** The size of each block reserved from the operating system: a power of two in [64 KiB, 1 GiB]. */
        public Builder blockSize(int bytes) {
            if (bytes < MIN_BLOCK_SIZE || bytes > MAX_BLOCK_SIZE || Integer.bitCount(bytes) != 1) {
                throw new IllegalArgumentException("blockSize must be a power of two in [" + MIN_BLOCK_SIZE
                        + ", " + MAX_BLOCK_SIZE + "] bytes, was " + bytes);
            }
            this.blockSize = bytes;
            return this;
        }

        /**
         * The most bytes the pool may reserve, counted in whole blocks: at least one block, at most
         * {@value io.grove.internal.memory.Pool#MAX_ADDRESSABLE_BYTES} bytes. A map that needs more throws
         * {@link GroveOutOfMemoryException} and stays usable.
         *
         * <p>Default: half of the memory the process may use beyond the Java heap's maximum size, that is
         * {@code (M - maxHeap) / 2}, where {@code M} is the machine's physical memory or, in a container (a Linux
         * control group, version 1 or 2) with a lower memory limit, that limit, and {@code maxHeap} is
         * {@link Runtime#maxMemory()}; at least one block, in whole blocks. Where {@code M} cannot be read (outside
         * Linux) the default is {@code maxHeap}, as the JDK's default for direct buffers. So a map that keeps
         * growing fails with {@link GroveOutOfMemoryException} long before the operating system would kill the
         * process. The default applies to each pool: maps with their own pools each get it, and together may
         * exceed it; give such maps one shared pool, or explicit limits that add up to what they may use.
         */
        public Builder memoryLimit(long bytes) {
            if (bytes <= 0 || bytes > Pool.MAX_ADDRESSABLE_BYTES) {
                throw new IllegalArgumentException("memoryLimit must be in [1, " + Pool.MAX_ADDRESSABLE_BYTES
                        + "] bytes, was " + bytes);
            }
            this.memoryLimit = bytes;
            return this;
        }

        public Builder reclamation(Reclamation reclamation) {
            if (reclamation == null) {
                throw new NullPointerException("reclamation is null");
            }
            this.reclamation = reclamation;
            return this;
        }

        /**
         * Whether the pool's blocks ask the operating system for huge pages (default: no). On Linux (x86-64 or
         * AArch64) each block is then a mapping of its own, aligned to 2 MiB and marked for transparent huge pages
         * ({@code madvise(MADV_HUGEPAGE)}), which the kernel honours when
         * {@code /sys/kernel/mm/transparent_hugepage/enabled} is {@code madvise} or {@code always}; elsewhere, or
         * with huge pages disabled, the blocks get ordinary pages and work the same. With many entries most
         * lookups of a map miss the TLB with 4 KiB pages: a hash map on huge pages ran MapHash's 80/15/5 workload
         * 1.11-1.30x as fast over a million entries, 1.34x over 20 million, on this project's test machine
         * ({@code BENCHMARKS.md}). The cost: memory is committed 2 MiB at a time as the pool fills, and blocks
         * smaller than 2 MiB gain nothing. It calls the C library through the JDK's {@code Linker}, a
         * restricted method: the JVM must run with {@code --enable-native-access=ALL-UNNAMED} (or Grove's module
         * name), else {@link #build()} throws {@link IllegalStateException} saying so (rather than have the JDK
         * print a warning). Without this option Grove needs no JVM flag.
         */
        public Builder hugePages(boolean hugePages) {
            this.hugePages = hugePages;
            return this;
        }

        /**
         * @throws IllegalArgumentException if the memory limit is smaller than one block
         * @throws IllegalStateException if {@link #hugePages} is asked for without native access on Linux
         */
        public MemoryPool build() {
            long memoryLimit = this.memoryLimit < 0 ? Pool.defaultMemoryLimit(blockSize) : this.memoryLimit;
            if (memoryLimit < blockSize) {
                throw new IllegalArgumentException("memoryLimit (" + memoryLimit
                        + " bytes) is smaller than one block (" + blockSize + " bytes)");
            }
            return hugePages ? Pool.withHugePages(blockSize, memoryLimit, reclamation)
                    : new Pool(blockSize, memoryLimit, reclamation);
        }
    }
}
