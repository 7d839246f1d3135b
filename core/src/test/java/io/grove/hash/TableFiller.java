package io.grove.hash;

import io.grove.internal.file.FileHeader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A child JVM of {@link SharedFileTest}: stands for the processes in the records of the process table of the map file
 * at argument 1 from record argument 3 (0 if absent) to the last, of which the number of argument 2 are alive. It
 * holds the file's users lock (byte 1) shared, as they would, marks each of those records taken (its first word 1)
 * and holds the locks of the first of them (bytes 64 onwards) for the live ones, those of the others staying free as a
 * process's does once it ended without closing the file; prints {@code holding} and keeps them until it is killed.
 */
public final class TableFiller {
    private static final int RECORDS = 256;
    private static final long RECORD_BYTES = 64;
    private static final long FIRST_RECORD_LOCK = 64;

    private TableFiller() {}

    @SuppressWarnings("resource") // held until the process is killed
    public static void main(String[] args) throws IOException {
        FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.READ, StandardOpenOption.WRITE);
        int alive = Integer.parseInt(args[1]);
        int first = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        channel.lock(1, 1, true);
        MemorySegment table = channel.map(FileChannel.MapMode.READ_WRITE, FileHeader.PROCESSES_OFFSET,
                RECORDS * RECORD_BYTES, Arena.global());
        for (int i = first; i < RECORDS; i++) {
            if (i < first + alive) {
                channel.lock(FIRST_RECORD_LOCK + i, 1, false);
            }
            table.set(ValueLayout.JAVA_LONG, i * RECORD_BYTES, 1L);
        }
        ChildJvm.printThenWaitToBeKilled("holding");
    }
}
