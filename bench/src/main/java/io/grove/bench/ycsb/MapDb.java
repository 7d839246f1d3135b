package io.grove.bench.ycsb;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.WorkloadException;
import site.ycsb.workloads.CoreWorkload;

/**
 * A YCSB binding over a {@link YcsbStore} that lives in memory: YCSB makes one {@code DB} per client thread, and
 * the bindings of one class share one store per JVM, opened by the first and closed by the last {@link #cleanup}.
 *
 * <p>Loading in the measured JVM: an in-memory store does not outlive YCSB's load run, so with
 * {@code -p grove.preload=true} the first binding's {@link #setProperties} (which YCSB's client calls while it
 * builds its threads, before it starts its clock) inserts {@code recordcount} records through YCSB's own
 * {@link CoreWorkload}, exactly as a load run (`-load`) would, and the transaction run (`-t`) then measures only
 * the workload's operations.
 */
abstract class MapDb extends DB {
    private static final Object LOCK = new Object();
    /** The store of each binding class in this JVM, and how many bindings use it. */
    private static final Map<Class<?>, YcsbStore> SHARED = new HashMap<>();
    private static final Map<Class<?>, Integer> USERS = new HashMap<>();

    private YcsbStore store;

    /** Opens the store of this binding's kind with YCSB's properties. */
    abstract YcsbStore open(Properties properties);

    @Override
    public void setProperties(Properties properties) {
        super.setProperties(properties);
        synchronized (LOCK) {
            boolean first = !SHARED.containsKey(getClass());
            if (first) {
                SHARED.put(getClass(), open(properties));
            }
            store = SHARED.get(getClass());
            USERS.merge(getClass(), 1, Integer::sum);
            if (first && Boolean.parseBoolean(properties.getProperty("grove.preload", "false"))) {
                preload(properties);
            }
        }
    }

    /** Inserts {@code recordcount} records through YCSB's own workload, as its load run would. */
    private void preload(Properties properties) {
        try {
            CoreWorkload workload = new CoreWorkload();
            workload.init(properties);
            Object state = workload.initThread(properties, 0, 1);
            long records = Long.parseLong(properties.getProperty("recordcount", "0"));
            for (long i = 0; i < records; i++) {
                if (!workload.doInsert(this, state)) {
                    throw new IllegalStateException("preload insert " + i + " failed");
                }
            }
        } catch (WorkloadException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void cleanup() throws DBException {
        synchronized (LOCK) {
            if (store != null && USERS.merge(getClass(), -1, Integer::sum) == 0) {
                USERS.remove(getClass());
                SHARED.remove(getClass()).close();
            }
            store = null;
        }
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        byte[] record = store.get(key);
        if (record == null) {
            return Status.NOT_FOUND;
        }
        YcsbRecord.decode(record, fields, result);
        return Status.OK;
    }

    @Override
    public Status scan(String table, String startKey, int count, Set<String> fields,
            Vector<HashMap<String, ByteIterator>> result) {
        List<Map.Entry<String, byte[]>> records = store.scan(startKey, count);
        if (records == null) {
            return Status.NOT_IMPLEMENTED;
        }
        for (Map.Entry<String, byte[]> e : records) {
            HashMap<String, ByteIterator> row = new HashMap<>();
            YcsbRecord.decode(e.getValue(), fields, row);
            result.add(row);
        }
        return Status.OK;
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        return store.update(key, old -> YcsbRecord.merge(old, values)) ? Status.OK : Status.NOT_FOUND;
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        store.put(key, YcsbRecord.encode(values));
        return Status.OK;
    }

    @Override
    public Status delete(String table, String key) {
        return store.delete(key) ? Status.OK : Status.NOT_FOUND;
    }
}
