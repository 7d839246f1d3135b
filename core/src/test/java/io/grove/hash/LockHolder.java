package io.grove.hash;

import io.grove.GroveHashMap;
import java.nio.file.Path;

/**
 * A child JVM of {@link SharedFileTest}: opens the map in the file (argument 1), puts key 1, then updates key 1 in
 * place with a function that overwrites the value's last 8 bytes with {@code '#'}, prints {@code holding} and never
 * returns, so that this process holds the lock of key 1's segment (and the entry's stamp odd, its value half
 * changed) until it is killed; with a second argument {@code idle}, it prints {@code holding} and waits with no
 * operation in flight instead; with {@code busy}, it prints {@code holding}, then updates key 1 in place again and
 * again, each update holding the lock for {@value #BUSY_MILLIS} ms (writing a digit into the value's last byte)
 * followed by as long without it, and prints {@code u n} after update {@code n}.
 */
public final class LockHolder {
    static final long KEY = 1;
    static final int BUSY_MILLIS = 20;

    private LockHolder() {}

    public static void main(String[] args) {
        GroveHashMap<Long, String> map = CrashWriter.builder(Path.of(args[0]), false).build(); // never closed
        map.put(KEY, CrashWriter.value(KEY, 0));
        if (args.length > 1 && args[1].equals("idle")) {
            ChildJvm.printThenWaitToBeKilled("holding");
        }
        if (args.length > 1 && args[1].equals("busy")) {
            System.out.println("holding");
            for (int n = 0; ; n++) {
                byte digit = (byte) ('0' + n % 10);
                map.zc().computeIfPresent(KEY, view -> {
                    view.putByte(view.size() - 1, digit);
                    pause();
                });
                System.out.println("u " + n);
                pause();
            }
        }
        map.zc().computeIfPresent(KEY, view -> {
            view.fill(view.size() - 8, 8, (byte) '#');
            ChildJvm.printThenWaitToBeKilled("holding");
        });
    }

    private static void pause() {
        try {
            Thread.sleep(BUSY_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
