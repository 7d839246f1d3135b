package io.grove.hash;

import io.grove.GroveHashMap;
import io.grove.serial.Serializer;
import io.grove.serial.Serializers;
import io.grove.view.ReadView;
import io.grove.view.WriteView;
import java.nio.file.Path;

/**
 * A child JVM of {@link SharedFileTest}: opens the map in the file (argument 1) and puts {@value #STALLING} under the
 * key of argument 2. The value's serializer writes half of it, prints {@code writing} and never returns, so that this
 * process holds the lock of the key's segment with the new entry's slice allocated and not linked until it is
 * killed.
 */
public final class HalfWriter {
    /** The value whose serialization never ends. */
    static final String STALLING = "a value whose serialization never ends";

    private HalfWriter() {}

    /** The map both processes open: its value serializer ({@link StallingStrings}) is part of the file's settings. */
    static GroveHashMap.Builder<Long, String> builder(Path file) {
        return GroveHashMap.builder(Serializers.longs(), new StallingStrings()).file(file).maxFileSize(256L << 20)
                .expectedSize(64);
    }

    public static void main(String[] args) {
        GroveHashMap<Long, String> map = builder(Path.of(args[0])).build(); // never closed: the process is killed
        map.put(Long.parseLong(args[1]), STALLING);
        throw new AssertionError("the put returned");
    }

    /** UTF-8 strings; writing {@link #STALLING} stops half-way for ever. */
    static final class StallingStrings implements Serializer<String> {
        private static final Serializer<String> UTF8 = Serializers.strings();

        @Override
        public int size(String value) {
            return UTF8.size(value);
        }

        @Override
        public void write(String value, WriteView target) {
            if (!value.equals(STALLING)) {
                UTF8.write(value, target);
                return;
            }
            target.fill(0, target.size() / 2, (byte) '#');
            ChildJvm.printThenWaitToBeKilled("writing");
        }

        @Override
        public String read(ReadView source) {
            return UTF8.read(source);
        }
    }
}
