package io.grove.internal.file;

import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * Runs a blocking operation of a file's channel where no interrupt reaches it. A {@link java.nio.channels.FileChannel}
 * is interruptible: a thread interrupted before or during one of its blocking operations (a write, a
 * {@link java.nio.channels.FileChannel#lock lock}, a read, a map) closes the channel, and closing a descriptor of a
 * file releases every lock the process holds on it. For a file the map has open that would tell the other processes
 * that this one ended (its record's lock free, {@link ProcessTable}), and they would repair and salvage what it is
 * still using. So the map's threads, which may be interrupted ({@code Future.cancel(true)},
 * {@code ExecutorService.shutdownNow}), hand such operations to a virtual thread of their own, which nothing
 * interrupts, and wait for it uninterruptibly, keeping their interrupt status for their caller. A thread is started
 * per call (its cost not measured): the operations a map makes after its open come once per growth of the file.
 */
final class Uninterruptible {
    /** A file operation. */
    @FunctionalInterface
    interface Call<T> {
        T run() throws IOException;
    }

    private Uninterruptible() {}

    /** Runs {@code call} on a thread that nothing interrupts and returns what it returned, or throws what it threw. */
    static <T> T run(Call<T> call) throws IOException {
        FutureTask<T> task = new FutureTask<>(call::run);
        Thread.ofVirtual().name("grove-file-io").start(task);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return task.get();
                } catch (InterruptedException e) {
                    interrupted = true; // kept for the caller, once the operation is over
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof IOException io) {
                        throw io;
                    }
                    if (cause instanceof RuntimeException runtime) {
                        throw runtime;
                    }
                    if (cause instanceof Error error) {
                        throw error;
                    }
                    throw new IllegalStateException("a file operation threw " + cause, cause); // a Call throws no other
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
