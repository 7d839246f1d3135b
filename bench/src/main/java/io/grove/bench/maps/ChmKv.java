package io.grove.bench.maps;

import io.grove.bench.Placement;
import io.grove.bench.Scenario;
import io.grove.bench.WorkerConfig;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link ConcurrentHashMap} on the heap, the on-heap baseline: 8-byte keys as {@code Long} (the key word, as
 * MapHash's harness), longer keys as {@link ByteKey}; values are {@code byte[]}, a new array per put. Its get returns
 * the stored array, which is read in place, so {@code get} and {@code zc-get} are the same (no copy: the closest
 * equivalent of both). Initial capacity = keys; {@code -Xmx} = the budget.
 */
public final class ChmKv extends KvContender {
    public static final ChmKv INSTANCE = new ChmKv();

    private ChmKv() {}

    @Override
    public String name() {
        return "chm";
    }

    @Override
    public String description() {
        return "java.util.concurrent.ConcurrentHashMap<Long or ByteKey, byte[]> on heap (-Xmx = budget); get reads"
                + " the stored array in place (no copy), so get = zc-get; put stores a new byte[]";
    }

    @Override
    public Placement placement() {
        return Placement.ON_HEAP;
    }

    @Override
    public String notApplicable(Scenario scenario) {
        return noEviction(scenario);
    }

    @Override
    public KvMap open(WorkerConfig config) {
        return new Map(new ConcurrentHashMap<>(config.keys()), scenario(config).keySize(), config.valueSize());
    }

    private static final class Map implements KvMap {
        private final ConcurrentHashMap<Object, byte[]> map;
        private final boolean longKeys;
        private final int valueSize;

        Map(ConcurrentHashMap<Object, byte[]> map, int keySize, int valueSize) {
            this.map = map;
            this.longKeys = keySize == 8;
            this.valueSize = valueSize;
        }

        /** A key for lookups: a {@code Long}, or the thread's probe over its key buffer. */
        private Object probe(KvThread t, long id) {
            if (longKeys) {
                return KvRecords.keyWord(id);
            }
            ByteKey p = (ByteKey) t.slot;
            if (p == null) {
                p = new ByteKey(t.key);
                t.slot = p;
            }
            return p.rehash();
        }

        /** A key to store: a {@code Long}, or a {@link ByteKey} over a copy of the key. */
        private Object stored(KvThread t, long id) {
            return longKeys ? (Object) KvRecords.keyWord(id) : new ByteKey(t.key.clone());
        }

        @Override
        public int get(KvThread t, long id) {
            byte[] v = map.get(probe(t, id));
            if (v == null) {
                return ABSENT;
            }
            return KvRecords.matches(v, v.length, id, valueSize) ? FOUND : WRONG;
        }

        @Override
        public int zeroCopyGet(KvThread t, long id) {
            return get(t, id);
        }

        @Override
        public void put(KvThread t, long id) {
            map.put(stored(t, id), t.value.clone());
        }

        @Override
        public boolean putIfAbsent(KvThread t, long id) {
            return map.putIfAbsent(stored(t, id), t.value.clone()) == null;
        }

        @Override
        public boolean remove(KvThread t, long id) {
            return map.remove(probe(t, id)) != null;
        }

        @Override
        public long size() {
            return map.mappingCount();
        }

        @Override
        public void close() {
            map.clear();
        }
    }
}
