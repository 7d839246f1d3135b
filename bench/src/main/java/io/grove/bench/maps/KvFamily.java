package io.grove.bench.maps;

import io.grove.bench.Family;
import io.grove.bench.Registry;
import io.grove.bench.Scenario;
import io.grove.bench.ThreadContext;
import io.grove.bench.WorkerConfig;
import java.util.List;

/**
 * Key-value maps ({@link KvMap}): {@code get} (a copy of the value, checked), {@code zc-get} (a zero-copy read of
 * the value's first and last words, checked), {@code put}, {@code remove}. A get that finds the key absent is a
 * miss (counted, normal after removes or with a half-filled range); a get that finds another key's value is a
 * mismatch (must stay 0). Prefill and verification follow the scenario's key and value sizes.
 */
public final class KvFamily implements Family<KvMap> {
    public static final KvFamily INSTANCE = new KvFamily();
    public static final String NAME = "kv-map";

    static final int GET = 0;
    static final int ZC_GET = 1;
    static final int PUT = 2;
    static final int REMOVE = 3;
    private static final List<String> OPERATIONS = List.of("get", "zc-get", "put", "remove");

    /** Set by {@link #prefill} before the worker threads start (Thread.start publishes them). */
    private int keySize = 8;
    private int valueSize = 16;

    private KvFamily() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<String> operations() {
        return OPERATIONS;
    }

    /** Whether {@code id} is among the ids a prefill of {@code fraction} inserts (a fixed pseudo-random choice). */
    static boolean prefilled(long id, double fraction) {
        if (fraction >= 1) {
            return true;
        }
        long h = KvRecords.keyWord(id ^ 0x5DEECE66DL) >>> 11;
        return h < (long) (fraction * (1L << 53));
    }

    @Override
    public void prefill(KvMap map, WorkerConfig config) {
        Scenario scenario = Registry.scenario(config.scenario());
        keySize = scenario.keySize();
        valueSize = config.valueSize();
        double fraction = scenario instanceof KvScenario kv ? kv.prefillFraction() : 0;
        if (fraction == 0) {
            return;
        }
        KvThread t = new KvThread(keySize, valueSize);
        for (int id = 0; id < config.keys(); id++) {
            if (prefilled(id, fraction)) {
                t.record(id);
                if (!map.putIfAbsent(t, id)) {
                    throw new IllegalStateException("prefill: putIfAbsent of new id " + id + " found it present");
                }
            }
        }
    }

    /** This thread's buffers, created on its first operation. */
    KvThread thread(ThreadContext context) {
        Object s = context.state;
        if (s == null) {
            KvThread t = new KvThread(keySize, valueSize);
            context.state = t;
            return t;
        }
        return (KvThread) s;
    }

    @Override
    public void perform(KvMap map, int op, int key, ThreadContext context) {
        KvThread t = thread(context);
        switch (op) {
            case GET -> {
                t.key(key);
                count(map.get(t, key), context);
            }
            case ZC_GET -> {
                t.key(key);
                count(map.zeroCopyGet(t, key), context);
            }
            case PUT -> {
                t.record(key);
                map.put(t, key);
            }
            case REMOVE -> {
                t.key(key);
                map.remove(t, key);
            }
            default -> throw new IllegalArgumentException("no kv-map operation " + op);
        }
    }

    private static void count(int result, ThreadContext context) {
        if (result == KvMap.ABSENT) {
            context.misses++;
        } else if (result == KvMap.WRONG) {
            context.mismatches++;
        }
    }

    @Override
    public long verify(KvMap map, WorkerConfig config) {
        KvThread t = new KvThread(keySize, valueSize);
        long wrong = 0;
        for (int id = 0; id < config.keys(); id++) {
            t.key(id);
            if (map.get(t, id) == KvMap.WRONG) {
                wrong++;
            }
        }
        return wrong;
    }
}
