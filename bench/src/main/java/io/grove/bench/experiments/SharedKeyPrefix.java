package io.grove.bench.experiments;

import io.grove.GroveSortedMap;
import io.grove.serial.Serializers;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * Throw-away experiment: what a shared key prefix (YCSB's and Kafka users' {@code user…} keys) costs the ordered
 * map's point reads. Builds a map of {@code args[1]} string keys, each {@code args[2]} followed by 16 hex digits of
 * a mixed counter, with 100-byte values, then times random gets on one thread for {@code args[3]} seconds (after as
 * long a warm-up). {@code args[0]}: {@code grove} ({@code GroveSortedMap<String, byte[]>}, keys in UTF-8 byte order)
 * or {@code cslm} ({@code ConcurrentSkipListMap<String, byte[]>}). Prints ns per get. Grove's chunks compare an
 * 8-byte prefix of each key before reading the key itself off heap, so with a 4-byte shared prefix only 4 bytes of
 * the prefix tell keys apart.
 */
public final class SharedKeyPrefix {
    private SharedKeyPrefix() {}

    public static void main(String[] args) {
        String kind = args[0];
        int keys = Integer.parseInt(args[1]);
        String prefix = args[2].equals("none") ? "" : args[2];
        double seconds = Double.parseDouble(args[3]);
        String[] names = new String[keys];
        for (int i = 0; i < keys; i++) {
            names[i] = prefix + String.format("%016x", mix(i));
        }
        Map<String, byte[]> map = kind.equals("grove")
                ? GroveSortedMap.builder(Serializers.strings(), Serializers.bytes()).build()
                : new ConcurrentSkipListMap<>();
        byte[] value = new byte[100];
        for (String name : names) {
            map.put(name, value);
        }
        timedGets(map, names, seconds); // warm-up
        double ns = timedGets(map, names, seconds);
        System.out.printf("%s keys=%d prefix=%s get_ns=%.1f%n", kind, keys, args[2], ns);
        if (map instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static double timedGets(Map<String, byte[]> map, String[] names, double seconds) {
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long start = System.nanoTime();
        long n = 0;
        long rnd = 7;
        long sink = 0;
        while (System.nanoTime() < end) {
            for (int k = 0; k < 1024; k++) {
                rnd = mix(rnd + k);
                sink += map.get(names[(int) Long.remainderUnsigned(rnd, names.length)]).length;
            }
            n += 1024;
        }
        if (sink != n * 100) {
            throw new IllegalStateException("a get missed");
        }
        return (System.nanoTime() - start) / (double) n;
    }

    private static long mix(long x) {
        long z = x * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        return z ^ (z >>> 31);
    }
}
