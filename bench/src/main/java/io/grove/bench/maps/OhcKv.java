package io.grove.bench.maps;

import io.grove.bench.Placement;
import io.grove.bench.WorkerConfig;
import java.nio.ByteBuffer;
import org.caffinitas.ohc.CacheSerializer;
import org.caffinitas.ohc.DirectValueAccess;
import org.caffinitas.ohc.OHCache;
import org.caffinitas.ohc.OHCacheBuilder;

/**
 * OHC (org.caffinitas.ohc:ohc-core), an off-heap cache, {@code byte[]} keys and values, default (linked) mode with
 * LRU eviction per segment. Capacity = the off-heap budget; in the eviction scenario, the capacity in entries times
 * OHC's own bytes per entry, measured on a small cache of the same record sizes at start (OHC bounds bytes, not
 * entries). Copying get = {@code get} (a new array per read: OHC deserializes); zero-copy get = {@code getDirect}
 * and two reads from its buffer. Put, putIfAbsent and remove return no old value.
 */
public final class OhcKv extends KvContender {
    public static final OhcKv INSTANCE = new OhcKv();

    private OhcKv() {}

    @Override
    public String name() {
        return "ohc";
    }

    @Override
    public String description() {
        return "OHC 0.7.4 OHCache<byte[], byte[]>, capacity = off-heap budget (eviction: capacity entries x its bytes"
                + " per entry), LRU; get deserializes a new array, zc-get = getDirect + 2 reads";
    }

    @Override
    public Placement placement() {
        return Placement.OFF_HEAP;
    }

    /** {@code byte[]} as itself. */
    private static final class Bytes implements CacheSerializer<byte[]> {
        static final Bytes INSTANCE = new Bytes();

        @Override
        public void serialize(byte[] value, ByteBuffer buf) {
            buf.put(value);
        }

        @Override
        public byte[] deserialize(ByteBuffer buf) {
            byte[] a = new byte[buf.remaining()];
            buf.get(a);
            return a;
        }

        @Override
        public int serializedSize(byte[] value) {
            return value.length;
        }
    }

    private static OHCache<byte[], byte[]> build(long capacity) {
        return OHCacheBuilder.<byte[], byte[]>newBuilder()
                .keySerializer(Bytes.INSTANCE)
                .valueSerializer(Bytes.INSTANCE)
                .capacity(capacity)
                .throwOOME(true)
                .build();
    }

    @Override
    public KvMap open(WorkerConfig config) throws Exception {
        long entries = capacity(config);
        int keySize = scenario(config).keySize();
        long capacity = config.offHeapLimit();
        if (entries > 0) {
            capacity = entries * bytesPerEntry(keySize, config.valueSize());
        }
        return new Map(build(capacity), config.valueSize());
    }

    /** OHC's memory per entry for these sizes: {@code memUsed / size} after 10,000 insertions into a roomy cache. */
    private static long bytesPerEntry(int keySize, int valueSize) throws Exception {
        try (OHCache<byte[], byte[]> probe = build(1L << 30)) {
            KvThread t = new KvThread(keySize, valueSize);
            for (int id = 0; id < 10_000; id++) {
                t.record(id);
                probe.put(t.key, t.value);
            }
            return Math.max(1, probe.memUsed() / probe.size());
        }
    }

    private static final class Map implements KvMap {
        private final OHCache<byte[], byte[]> cache;
        private final int valueSize;

        Map(OHCache<byte[], byte[]> cache, int valueSize) {
            this.cache = cache;
            this.valueSize = valueSize;
        }

        @Override
        public int get(KvThread t, long id) {
            byte[] v = cache.get(t.key);
            if (v == null) {
                return ABSENT;
            }
            return KvRecords.matches(v, v.length, id, valueSize) ? FOUND : WRONG;
        }

        @Override
        public int zeroCopyGet(KvThread t, long id) {
            try (DirectValueAccess d = cache.getDirect(t.key)) {
                if (d == null) {
                    return ABSENT;
                }
                ByteBuffer b = d.buffer();
                int at = b.position();
                long first = b.getLong(at);
                long last = b.getLong(b.limit() - 8);
                return KvRecords.matches(first, last, id) ? FOUND : WRONG;
            } catch (java.io.IOException e) { // from close()
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public void put(KvThread t, long id) {
            cache.put(t.key, t.value);
        }

        @Override
        public boolean putIfAbsent(KvThread t, long id) {
            return cache.putIfAbsent(t.key, t.value);
        }

        @Override
        public boolean remove(KvThread t, long id) {
            return cache.remove(t.key);
        }

        @Override
        public long size() {
            return cache.size();
        }

        @Override
        public OffHeap offHeap() {
            return new OffHeap(cache.memUsed(), cache.memUsed(), -1, cache.freeCapacity());
        }

        @Override
        public void close() {
            try {
                cache.close();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
