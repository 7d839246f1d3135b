package io.grove.bench.slices;

import io.grove.bench.Family;
import io.grove.bench.ThreadContext;
import io.grove.bench.WorkerConfig;
import java.util.List;

/**
 * The memory layer on its own: a table of slots holding values, read optimistically, updated in place and replaced.
 * Operations: {@code read} (zero-copy read of 4 words + verification), {@code update} (8 bytes in place),
 * {@code replace} (a new value published in place of the old, which is freed).
 */
public final class SliceTableFamily implements Family<SliceTable> {
    public static final SliceTableFamily INSTANCE = new SliceTableFamily();
    public static final String NAME = "slice-table";

    static final int READ = 0;
    static final int UPDATE = 1;
    static final int REPLACE = 2;
    private static final List<String> OPERATIONS = List.of("read", "update", "replace");

    private SliceTableFamily() {}

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<String> operations() {
        return OPERATIONS;
    }

    @Override
    public void prefill(SliceTable table, WorkerConfig config) {
        for (int key = 0; key < config.keys(); key++) {
            table.install(key);
        }
    }

    @Override
    public void perform(SliceTable table, int op, int key, ThreadContext context) {
        switch (op) {
            case READ -> table.read(key, context);
            case UPDATE -> table.update(key, context);
            case REPLACE -> table.replace(key, context);
            default -> throw new IllegalArgumentException("no slice-table operation " + op);
        }
    }

    @Override
    public long verify(SliceTable table, WorkerConfig config) {
        long wrong = 0;
        for (int key = 0; key < config.keys(); key++) {
            if (!table.verifyFully(key)) {
                wrong++;
            }
        }
        return wrong;
    }
}
