package io.grove.bench.experiments;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Whether closing a shared arena can make a store into its memory throw after the store ran (the fact behind the
 * hash map's {@code HashTable.unlock}). Per round: a writer thread stores 1, 2, 3, ... into one word of a new shared
 * arena's segment, each with a release store, until a store throws; the main thread waits until it reads a value of
 * at least 1,000, reads the word once more ({@code seen}), closes the arena and records at which store the writer
 * threw. A writer that threw at store {@code seen} threw from the very call whose store the closer had already read.
 * {@code BUSY} spinning threads take the processors from time to time, so that the writer is sometimes descheduled
 * inside an access. Arguments: {@code ROUNDS BUSY}.
 *
 * <pre>
 * java -cp "$CP" io.grove.bench.experiments.CloseAfterStore 2000 4
 * java -Xint -cp "$CP" io.grove.bench.experiments.CloseAfterStore 500 4
 * </pre>
 */
public final class CloseAfterStore {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private static volatile boolean finished;

    private CloseAfterStore() {}

    public static void main(String[] args) throws InterruptedException {
        int rounds = Integer.parseInt(args[0]);
        int busy = Integer.parseInt(args[1]);
        for (int b = 0; b < busy; b++) {
            Thread.ofPlatform().daemon().start(CloseAfterStore::spin);
        }
        int afterItsStore = 0;
        for (int round = 0; round < rounds; round++) {
            int[] threwAt = {0};
            Thread writer;
            int seen;
            try (Arena arena = Arena.ofShared()) {
                MemorySegment word = arena.allocate(Integer.BYTES, Integer.BYTES);
                writer = Thread.ofPlatform().start(() -> {
                    int value = 1;
                    try {
                        for (; ; value++) {
                            INT.setRelease(word, 0L, value);
                        }
                    } catch (IllegalStateException closed) {
                        threwAt[0] = value;
                    }
                });
                while ((int) INT.getVolatile(word, 0L) < 1_000) {
                    Thread.onSpinWait();
                }
                seen = (int) INT.getVolatile(word, 0L);
            } // the close
            writer.join();
            if (threwAt[0] == seen) {
                afterItsStore++;
            }
        }
        finished = true;
        System.out.printf("%d rounds: the store the closer read threw from its own call in %d%n", rounds,
                afterItsStore);
    }

    private static void spin() {
        while (!finished) {
            Thread.onSpinWait(); // keeps the processor: a volatile read per turn, never parked
        }
    }
}
