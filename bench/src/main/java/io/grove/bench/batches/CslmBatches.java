package io.grove.bench.batches;

import io.grove.bench.ThreadContext;
import io.grove.bench.ordered.ByteKey;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * {@code ConcurrentSkipListMap<ByteKey, byte[]>} on the heap, in two forms: the speed reference, whose batch is its
 * operations one after the other (not atomic), and the lock-based baseline with the same semantics as Grove's
 * batches (striped locks taken in order, the lock-based design Grove's batches are measured against):
 * {@value #STRIPES} read-write locks by key hash; a batch takes the write locks of its keys' stripes in stripe
 * order, applies its operations and releases them (two-phase locking: atomic), a get takes its stripe's read lock,
 * a put its write lock, a snapshot scan or get all the read locks, in order (a consistent view).
 */
final class CslmBatches implements BatchStore {
    static final int STRIPES = 64;

    private ConcurrentSkipListMap<ByteKey, byte[]> map = new ConcurrentSkipListMap<>();
    /** {@code null} for the speed reference. */
    private final ReentrantReadWriteLock[] stripes;

    CslmBatches(boolean locked) {
        this.stripes = locked ? new ReentrantReadWriteLock[STRIPES] : null;
        if (locked) {
            for (int i = 0; i < STRIPES; i++) {
                stripes[i] = new ReentrantReadWriteLock();
            }
        }
    }

    private static int stripeOf(long id) {
        return (int) ((id * 0x9E3779B97F4A7C15L) >>> 58);
    }

    @Override
    public void apply(BatchThread t) {
        long held = 0;
        if (stripes != null) {
            for (int i = 0; i < t.size; i++) {
                held |= 1L << stripeOf(t.ids[i]);
            }
            for (long s = held; s != 0; s &= s - 1) {
                stripes[Long.numberOfTrailingZeros(s)].writeLock().lock();
            }
        }
        try {
            for (int i = 0; i < t.size; i++) {
                if (t.removals[i]) {
                    map.remove(new ByteKey(t.keys[i]));
                } else {
                    map.put(new ByteKey(t.keys[i].clone()), t.values[i].clone());
                }
            }
        } finally {
            for (long s = held; s != 0; s &= s - 1) {
                stripes[Long.numberOfTrailingZeros(s)].writeLock().unlock();
            }
        }
    }

    @Override
    public void put(BatchThread t) {
        ByteKey key = new ByteKey(t.key.clone());
        byte[] value = t.value.clone();
        if (stripes == null) {
            map.put(key, value);
            return;
        }
        ReentrantReadWriteLock.WriteLock lock = stripes[stripeOf(BatchCodec.idOf(t.key))].writeLock();
        lock.lock();
        try {
            map.put(key, value);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean get(long id, BatchThread t, ThreadContext c) {
        byte[] value;
        if (stripes == null) {
            value = map.get(new ByteKey(t.key));
        } else {
            ReentrantReadWriteLock.ReadLock lock = stripes[stripeOf(id)].readLock();
            lock.lock();
            try {
                value = map.get(new ByteKey(t.key));
            } finally {
                lock.unlock();
            }
        }
        if (value == null) {
            return false;
        }
        if (!BatchCodec.matches(value, id)) {
            c.mismatches++;
        }
        c.sink += value[BatchCodec.STAMP + 7];
        return true;
    }

    /** The speed reference scans weakly consistently; the baseline under every stripe's read lock, in order. */
    @Override
    public void snapshotScan(BatchThread t, int count, ThreadContext c) {
        lockAll();
        try {
            scan(t, count, c);
        } finally {
            unlockAll();
        }
    }

    /** Both forms scan weakly consistently, without locks. */
    @Override
    public void scan(BatchThread t, int count, ThreadContext c) {
        Iterator<Map.Entry<ByteKey, byte[]>> entries = map.tailMap(new ByteKey(t.key), true).entrySet().iterator();
        for (int i = 0; i < count && entries.hasNext(); i++) {
            Map.Entry<ByteKey, byte[]> e = entries.next();
            if (!BatchCodec.matches(e.getValue(), BatchCodec.idOf(e.getKey().bytes))) {
                c.mismatches++;
            }
            c.sink += e.getValue()[BatchCodec.STAMP + 7];
        }
    }

    /** The speed reference gets; the baseline gets under every stripe's read lock (what a snapshot costs it). */
    @Override
    public void snapshotGet(long id, BatchThread t, ThreadContext c) {
        lockAll();
        try {
            byte[] value = map.get(new ByteKey(t.key));
            if (value == null) {
                c.misses++;
            } else if (!BatchCodec.matches(value, id)) {
                c.mismatches++;
            }
        } finally {
            unlockAll();
        }
    }

    private void lockAll() {
        if (stripes != null) {
            for (ReentrantReadWriteLock stripe : stripes) {
                stripe.readLock().lock();
            }
        }
    }

    private void unlockAll() {
        if (stripes != null) {
            for (ReentrantReadWriteLock stripe : stripes) {
                stripe.readLock().unlock();
            }
        }
    }

    @Override
    public long size() {
        return map.size();
    }

    @Override
    public long verify() {
        long wrong = 0;
        for (Map.Entry<ByteKey, byte[]> e : map.entrySet()) {
            if (!BatchCodec.matches(e.getValue(), BatchCodec.idOf(e.getKey().bytes))) {
                wrong++;
            }
        }
        return wrong;
    }

    @Override
    public void close() {
        map = null;
    }
}
