package io.grove.bench;

import java.util.Map;

/**
 * One worker JVM's run as the parent saw it.
 *
 * @param status {@code ok}; {@code retried} (a complete run that other processes disturbed, done again, left out of
 *     the medians); {@code failed} (the worker reported an error or exited badly); {@code timeout}
 * @param fields the worker's {@link ChildJvm#RESULT_PREFIX} fields (empty if none)
 */
record RunRecord(String scenario, String contender, int threads, int repeat, String start, String status,
        Map<String, String> fields, String error, long xmx, long offHeapLimit, double wallSeconds, double loadAverage) {

    RunRecord retried() {
        return new RunRecord(scenario, contender, threads, repeat, start, "retried", fields, error, xmx, offHeapLimit,
                wallSeconds, loadAverage);
    }

    /** The share of the machine's CPUs other processes used during the timed phase (NaN if unknown). */
    double othersCpuShare() {
        return number("othersCpuShare");
    }

    boolean ok() {
        return status.equals("ok");
    }

    double opsPerSec() {
        return number("opsPerSec");
    }

    double number(String field) {
        String v = fields.get(field);
        return v == null ? Double.NaN : Double.parseDouble(v);
    }

    long count(String field) {
        String v = fields.get(field);
        return v == null ? -1 : Long.parseLong(v);
    }
}
