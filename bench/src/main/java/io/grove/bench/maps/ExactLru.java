package io.grove.bench.maps;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An exact LRU cache of ids ({@link LinkedHashMap} in access order, evicting its eldest entry beyond
 * {@code capacity}), the reference a cache's hit ratio is compared with. Single-threaded.
 */
final class ExactLru {
    private ExactLru() {}

    /**
     * Replays {@code trace} (a miss inserts the id) and returns the hits among accesses {@code [from, trace.length)};
     * the accesses before {@code from} only warm the cache.
     */
    static long hits(int[] trace, int capacity, int from) {
        Map<Integer, Boolean> lru = new LinkedHashMap<>(capacity * 4 / 3 + 16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Integer, Boolean> eldest) {
                return size() > capacity;
            }
        };
        long hits = 0;
        for (int i = 0; i < trace.length; i++) {
            Integer id = trace[i];
            if (lru.get(id) != null) {
                if (i >= from) {
                    hits++;
                }
            } else {
                lru.put(id, Boolean.TRUE);
            }
        }
        return hits;
    }
}
