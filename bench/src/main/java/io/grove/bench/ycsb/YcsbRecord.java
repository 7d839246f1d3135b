package io.grove.bench.ycsb;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;

/**
 * A YCSB record (field name to bytes) as one compact array, the value every binding stores: for each field, its
 * name's length (2 bytes), the name in UTF-8, the value's length (4 bytes) and the value. Fields in name order.
 */
final class YcsbRecord {
    private YcsbRecord() {}

    static byte[] encode(Map<String, ByteIterator> values) {
        Map<String, byte[]> fields = new TreeMap<>();
        for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
            fields.put(e.getKey(), e.getValue().toArray());
        }
        return encodeBytes(fields);
    }

    private static byte[] encodeBytes(Map<String, byte[]> fields) {
        int size = 0;
        for (Map.Entry<String, byte[]> e : fields.entrySet()) {
            size += 2 + e.getKey().getBytes(StandardCharsets.UTF_8).length + 4 + e.getValue().length;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (Map.Entry<String, byte[]> e : fields.entrySet()) {
            byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
            out.putShort((short) name.length).put(name).putInt(e.getValue().length).put(e.getValue());
        }
        return out.array();
    }

    /**
     * The size of an encoded record of the workload's {@code fieldcount} fields ({@code field0} ...) of
     * {@code fieldlength} bytes (YCSB's defaults: 10 and 100), for stores that are sized in advance.
     */
    static int size(Properties workload) {
        int fields = Integer.parseInt(workload.getProperty("fieldcount", "10"));
        int length = Integer.parseInt(workload.getProperty("fieldlength", "100"));
        int size = 0;
        for (int i = 0; i < fields; i++) {
            size += 2 + ("field" + i).length() + 4 + length;
        }
        return size;
    }

    /** Puts the record's fields named in {@code wanted} (all if {@code null}) into {@code result}. */
    static void decode(byte[] record, Set<String> wanted, Map<String, ByteIterator> result) {
        for (Map.Entry<String, byte[]> e : fields(record).entrySet()) {
            if (wanted == null || wanted.contains(e.getKey())) {
                result.put(e.getKey(), new ByteArrayByteIterator(e.getValue()));
            }
        }
    }

    /** The record with the fields of {@code updates} replaced or added, as YCSB's update means. */
    static byte[] merge(byte[] record, Map<String, ByteIterator> updates) {
        Map<String, byte[]> fields = fields(record);
        for (Map.Entry<String, ByteIterator> e : updates.entrySet()) {
            fields.put(e.getKey(), e.getValue().toArray());
        }
        return encodeBytes(fields);
    }

    private static Map<String, byte[]> fields(byte[] record) {
        Map<String, byte[]> fields = new TreeMap<>();
        ByteBuffer in = ByteBuffer.wrap(record);
        while (in.hasRemaining()) {
            byte[] name = new byte[in.getShort()];
            in.get(name);
            byte[] value = new byte[in.getInt()];
            in.get(value);
            fields.put(new String(name, StandardCharsets.UTF_8), value);
        }
        return fields;
    }
}
