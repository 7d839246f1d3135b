package io.grove.bench.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.Vector;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;
import site.ycsb.WorkloadException;
import site.ycsb.measurements.Measurements;
import site.ycsb.workloads.CoreWorkload;

/**
 * Each binding loaded through YCSB's own workload ({@code grove.preload}) holds {@code recordcount}
 * records of 10 fields; reads, updates (a field merged in), deletes and, on ordered stores, scans behave as YCSB
 * expects; two client threads' bindings share one store, closed by the last cleanup.
 */
class MapDbTest {
    private static final int RECORDS = 500;

    private static DB binding(String kind, Properties properties) {
        DB db = switch (kind) {
            case "grove-hash" -> new GroveHashDb();
            case "grove-sorted" -> new GroveSortedDb();
            case "chronicle" -> new ChronicleDb();
            case "mapdb", "mapdb-tree" -> new MapDbDb();
            case "lmdb" -> new LmdbDb();
            default -> new JdkMapDb();
        };
        db.setProperties(properties);
        return db;
    }

    @ParameterizedTest
    @ValueSource(strings = {"grove-hash", "grove-sorted", "cslm", "chm", "chronicle", "mapdb", "mapdb-tree", "lmdb"})
    void loadsAndServesYcsbOperations(String kind) throws Exception {
        Properties properties = new Properties();
        properties.setProperty("recordcount", Integer.toString(RECORDS));
        properties.setProperty("grove.preload", "true");
        properties.setProperty("jdk.map", kind.equals("chm") ? "chm" : "cslm");
        properties.setProperty("mapdb.map", kind.equals("mapdb-tree") ? "tree" : "hash");
        Measurements.setProperties(properties); // as YCSB's client does before it makes the bindings
        DB first = binding(kind, properties);
        DB second = binding(kind, properties); // a second client thread: same store, no second load
        first.init();
        second.init();
        String key = new KeyNames(properties).of(0);
        Map<String, ByteIterator> record = new HashMap<>();
        Status read = first.read("usertable", key, null, record);
        assertEquals(Status.OK, read, "record 0 was loaded under YCSB's key for it");
        assertEquals(10, record.size());
        assertEquals(100, record.get("field0").toArray().length);

        assertEquals(Status.OK, second.update("usertable", key, Map.of("field3", new StringByteIterator("new"))));
        Map<String, ByteIterator> updated = new HashMap<>();
        first.read("usertable", key, Set.of("field3", "field4"), updated);
        assertEquals(Set.of("field3", "field4"), updated.keySet());
        assertEquals("new", updated.get("field3").toString());
        assertEquals(Status.NOT_FOUND, first.update("usertable", "absent", Map.of()));

        Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
        Status scan = first.scan("usertable", "user", 10, null, rows);
        if (Set.of("grove-hash", "chm", "chronicle", "mapdb").contains(kind)) {
            assertEquals(Status.NOT_IMPLEMENTED, scan);
        } else {
            assertEquals(Status.OK, scan);
            assertEquals(10, rows.size());
        }

        assertEquals(Status.OK, first.delete("usertable", key));
        assertEquals(Status.NOT_FOUND, second.read("usertable", key, null, new HashMap<>()));
        first.cleanup();
        assertEquals(Status.NOT_FOUND, second.delete("usertable", key), "the store is open until the last cleanup");
        second.cleanup();
    }

    @ParameterizedTest
    @ValueSource(strings = {"grove-sorted", "cslm", "mapdb-tree", "lmdb"})
    void scansInKeyOrder(String kind) throws Exception {
        Properties properties = new Properties();
        properties.setProperty("jdk.map", "cslm");
        properties.setProperty("mapdb.map", "tree");
        DB db = binding(kind, properties);
        db.init();
        for (int i = 0; i < 50; i++) {
            db.insert("usertable", String.format("user%03d", i), Map.of("f", new StringByteIterator("v" + i)));
        }
        Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
        assertEquals(Status.OK, db.scan("usertable", "user010", 5, null, rows));
        assertEquals(List.of("v10", "v11", "v12", "v13", "v14"),
                rows.stream().map(r -> r.get("f").toString()).toList());
        db.cleanup();
    }

    /** YCSB's own key names (its workload's, with the same properties). */
    private static final class KeyNames extends CoreWorkload {
        KeyNames(Properties properties) throws WorkloadException {
            init(properties);
        }

        String of(long keynum) {
            return buildKeyName(keynum);
        }
    }

    @org.junit.jupiter.api.Test
    void recordsRoundTripAndMerge() {
        Map<String, ByteIterator> fields = Map.of("b", new StringByteIterator("2"), "a", new StringByteIterator("1"));
        byte[] record = YcsbRecord.encode(fields);
        byte[] merged = YcsbRecord.merge(record, Map.of("b", new StringByteIterator("22"), "c",
                new StringByteIterator("3")));
        Map<String, ByteIterator> out = new HashMap<>();
        YcsbRecord.decode(merged, null, out);
        assertEquals(new TreeSet<>(Set.of("a", "b", "c")), new TreeSet<>(out.keySet()));
        assertEquals("22", out.get("b").toString());
        assertNotEquals(record.length, merged.length);
        assertTrue(record.length > 0);
        Map<String, ByteIterator> ten = new HashMap<>();
        for (int i = 0; i < 10; i++) {
            ten.put("field" + i, new StringByteIterator("x".repeat(100)));
        }
        assertEquals(YcsbRecord.encode(ten).length, YcsbRecord.size(new Properties()), "YCSB's default record");
    }
}
