package io.grove.hash;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A child JVM of {@link SharedFileTest}: takes the gate of the map file at argument 1 (the lock of its byte 0, which
 * a process holds while it opens or closes the file: {@code ProcessTable}), as a process stopped in the middle of
 * its open would, prints {@code holding} and keeps it until it is killed; with a second argument, the lock of that
 * byte instead (3: the creation lock, which a process creating the file holds on its draft).
 */
public final class GateHolder {
    private GateHolder() {}

    @SuppressWarnings("resource") // held until the process is killed
    public static void main(String[] args) throws IOException {
        FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.READ, StandardOpenOption.WRITE);
        channel.lock(args.length > 1 ? Long.parseLong(args[1]) : 0, 1, false);
        ChildJvm.printThenWaitToBeKilled("holding");
    }
}
