package io.grove.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grove.testing.LinearizabilityGraph.EdgeKind;
import io.grove.testing.LinearizabilityGraph.Step;
import io.grove.testing.LinearizabilityGraph.Verdict;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Tiny hand-made histories, one pair per rule of {@link LinearizabilityGraph}: one that the rule alone (with the
 * edges every history has: real time, reads from) turns into a cycle, and a close one that is linearizable and
 * must be accepted. Timestamps are small numbers; values are small distinct numbers. Each cycle's report must
 * name the edge kind the rule adds, so a test fails if its rule is lost, not only if the history passes.
 */
class LinearizabilityGraphTest {
    private static final Long NONE = null;
    private static final long K = 1;
    private static final long K2 = 2;

    /** Which kinds of edge the cycle of {@code verdict} has; fails if the check found no cycle. */
    private static Set<EdgeKind> cycleKinds(Verdict verdict) {
        assertTrue(verdict.found(), () -> "no violation found; " + verdict.figures());
        assertFalse(verdict.cycle().isEmpty(), () -> "a violation without a cycle: " + verdict.violation());
        Set<EdgeKind> kinds = EnumSet.noneOf(EdgeKind.class);
        for (Step s : verdict.cycle()) {
            kinds.add(s.edge());
        }
        return kinds;
    }

    private static void assertCycleWith(History h, EdgeKind kind, int operations) {
        Verdict v = LinearizabilityGraph.check(h);
        Set<EdgeKind> kinds = cycleKinds(v);
        assertTrue(kinds.contains(kind), () -> "no " + kind + " edge on the cycle: " + v.violation());
        assertEquals(operations, v.cycle().size(), v::violation);
    }

    private static void assertAccepted(History h) {
        LinearizabilityGraph.check(h).assertNoViolation("a linearizable history");
    }

    private static History put(History h, int thread, long invoked, long responded, long key, long value,
            Long previous) {
        h.recorder(thread).put(invoked, responded, key, value, previous);
        return h;
    }

    @Test
    void aReadOfAValueWrittenOnlyAfterTheReadRespondedIsARealTimeAndReadsFromCycle() {
        History h = put(new History(2), 0, 20, 30, K, 10, NONE);
        h.recorder(1).get(0, 10, K, 10L);
        Verdict v = LinearizabilityGraph.check(h);
        assertEquals(EnumSet.of(EdgeKind.REAL_TIME, EdgeKind.READS_FROM), cycleKinds(v));
        assertTrue(v.violation().contains("thread 1 #0 get(1) -> 10 [0, 10]"), v.violation());
        assertTrue(v.violation().contains("thread 0 #0 put(1, 10) -> absent [20, 30]"), v.violation());

        History overlapping = put(new History(2), 0, 0, 30, K, 10, NONE);
        overlapping.recorder(1).get(10, 20, K, 10L);
        assertAccepted(overlapping);
    }

    @Test
    void aPutReturningTheValueOfAPutInvokedAfterItIsADirectSuccessorCycle() {
        History h = put(new History(2), 0, 20, 30, K, 10, NONE);
        put(h, 1, 0, 10, K, 11, 10L);
        assertCycleWith(h, EdgeKind.DIRECT_SUCCESSOR, 2);

        History sequential = put(new History(2), 0, 0, 10, K, 10, NONE);
        put(sequential, 1, 20, 30, K, 11, 10L);
        assertAccepted(sequential);
    }

    @Test
    void aStaleReadAfterTheOverwriteRespondedIsAnAntiDependencyCycle() {
        History h = put(new History(3), 0, 0, 10, K, 10, NONE);
        put(h, 1, 20, 30, K, 11, 10L);
        h.recorder(2).get(40, 50, K, 10L);
        assertCycleWith(h, EdgeKind.ANTI_DEPENDENCY, 2);

        History concurrent = put(new History(3), 0, 0, 10, K, 10, NONE);
        put(concurrent, 1, 20, 30, K, 11, 10L);
        concurrent.recorder(2).get(25, 50, K, 10L);
        assertAccepted(concurrent);
    }

    @Test
    void twoPutsReturningTheSamePreviousValueAreALostUpdateCycle() {
        History h = put(new History(3), 0, 0, 10, K, 10, NONE);
        put(h, 1, 20, 30, K, 11, 10L);
        put(h, 2, 20, 30, K, 12, 10L);
        assertCycleWith(h, EdgeKind.ANTI_DEPENDENCY, 2);

        History chained = put(new History(3), 0, 0, 10, K, 10, NONE);
        put(chained, 1, 20, 30, K, 11, 10L);
        put(chained, 2, 20, 30, K, 12, 11L);
        assertAccepted(chained);
    }

    @Test
    void readersAfterTwoConcurrentBatchesThatSeeDifferentLastValuesAreAWriteOrderCycle() {
        History h = new History(2);
        h.recorder(0).batch(0, 10, new long[] {K}, new long[] {10}, 1);
        h.recorder(1).batch(0, 10, new long[] {K}, new long[] {11}, 1);
        h.recorder(0).get(20, 30, K, 10L);
        h.recorder(1).get(20, 30, K, 11L);
        assertEquals(EnumSet.of(EdgeKind.WRITE_ORDER), cycleKinds(LinearizabilityGraph.check(h)));

        History agreeing = new History(2);
        agreeing.recorder(0).batch(0, 10, new long[] {K}, new long[] {10}, 1);
        agreeing.recorder(1).batch(0, 10, new long[] {K}, new long[] {11}, 1);
        agreeing.recorder(0).get(20, 30, K, 11L);
        agreeing.recorder(1).get(20, 30, K, 11L);
        assertAccepted(agreeing);
    }

    /**
     * A get returns the value of a batch after a later batch (in real time) of the same key responded. Two rules
     * close the cycle each: the batches' order in time with the anti-dependency of the get on the later batch,
     * and the get's read (after the later batch, of the earlier one's value) ordering the later batch first.
     */
    @Test
    void aReadOfABatchValueAfterALaterBatchRespondedIsACycle() {
        History h = new History(2);
        h.recorder(0).batch(0, 10, new long[] {K}, new long[] {10}, 1);
        h.recorder(0).batch(20, 30, new long[] {K}, new long[] {11}, 1);
        h.recorder(1).get(40, 50, K, 10L);
        Verdict v = LinearizabilityGraph.check(h);
        assertTrue(cycleKinds(v).contains(EdgeKind.WRITE_ORDER) || cycleKinds(v).contains(EdgeKind.ANTI_DEPENDENCY),
                v::violation);
        assertEquals(2, v.cycle().size(), v::violation);

        History concurrent = new History(2);
        concurrent.recorder(0).batch(0, 10, new long[] {K}, new long[] {10}, 1);
        concurrent.recorder(0).batch(20, 30, new long[] {K}, new long[] {11}, 1);
        concurrent.recorder(1).get(25, 50, K, 10L);
        assertAccepted(concurrent);
    }

    /**
     * Snapshot r reads key 1 absent after put p1 (in real time), but p2, which returned p1's value, so directly
     * follows it and holds the key present, follows r: r precedes q (r read the value of key 2 that q
     * overwrote), q precedes snapshot s (s read q's value), s precedes p2 (s read p1's value, which p2
     * overwrote). None of r, q, s, p2 is separated from another in time, and a batch that removes key 1
     * concurrently with everything keeps the rule "absent from the initial state" out, so only the rule "absent
     * after a chain" closes the cycle. Had p1 not responded before r was invoked, all would be linearizable.
     */
    @Test
    void anAbsentReadAfterAPutFollowsTheLastWriteOfItsChain() {
        Verdict v = LinearizabilityGraph.check(absentAfterChain(5));
        assertTrue(cycleKinds(v).contains(EdgeKind.READS_FROM)
                && v.violation().contains("which holds the key present up to this write"), v::violation);
        assertEquals(4, v.cycle().size(), v::violation);
        assertAccepted(absentAfterChain(50));
    }

    private static History absentAfterChain(long p1Responded) {
        History h = put(new History(7), 0, 0, p1Responded, K, 10, NONE); // p1
        put(h, 1, 0, 100, K, 11, 10L); // p2
        put(h, 2, 1, 2, K2, 20, NONE); // q0
        put(h, 3, 0, 100, K2, 21, 20L); // q
        long s = h.recorder(4).snapshot(0, 100);
        h.recorder(4).snapshotGet(s, K, 10L);
        h.recorder(4).snapshotGet(s, K2, 21L);
        long r = h.recorder(5).snapshot(10, 20);
        h.recorder(5).snapshotGet(r, K, NONE);
        h.recorder(5).snapshotGet(r, K2, 20L);
        h.recorder(6).batch(0, 100, new long[] {K}, new long[] {History.ABSENT}, 1);
        return h;
    }

    /**
     * Snapshot r reads key 1 absent before put p2, the second write of a chain that put p1 starts, so r must
     * precede p1; but p1 precedes r through a snapshot s (which read p1's value and the value of key 2 that put q
     * overwrote) and q (whose value r read). No two of these are separated in time, and a batch that removes key
     * 1 concurrently with everything keeps the rule "absent from the initial state" out, so only the rule "absent
     * before a chain" closes the cycle.
     */
    @Test
    void anAbsentReadBeforeTheSecondWriteOfAChainPrecedesItsFirstWrite() {
        History h = absentBeforeChain(true);
        assertCycleWith(h, EdgeKind.ANTI_DEPENDENCY, 4);
        assertTrue(LinearizabilityGraph.check(h).violation().contains("which holds the key present from its first"),
                () -> LinearizabilityGraph.check(h).violation());
        assertAccepted(absentBeforeChain(false));
    }

    private static History absentBeforeChain(boolean readsNewValueOfKey2) {
        History h = put(new History(7), 0, 0, 100, K, 10, NONE); // p1
        put(h, 1, 30, 40, K, 11, 10L); // p2
        put(h, 2, 1, 2, K2, 20, NONE); // q0
        put(h, 3, 0, 100, K2, 21, 20L); // q
        long s = h.recorder(4).snapshot(0, 100);
        h.recorder(4).snapshotGet(s, K, 10L);
        h.recorder(4).snapshotGet(s, K2, 20L);
        long r = h.recorder(5).snapshot(10, 20);
        h.recorder(5).snapshotGet(r, K, NONE);
        h.recorder(5).snapshotGet(r, K2, readsNewValueOfKey2 ? 21L : 20L);
        h.recorder(6).batch(0, 100, new long[] {K}, new long[] {History.ABSENT}, 1);
        return h;
    }

    /** A snapshot's scan misses a key that a batch put before it, and that nothing ever removes. */
    @Test
    void anAbsentReadAfterAPutOfAKeyNeverRemovedReadTheInitialStateSoPrecedesEveryWrite() {
        History h = new History(2);
        h.recorder(0).batch(0, 10, new long[] {K, K2}, new long[] {10, 20}, 2);
        long s = h.recorder(1).snapshot(20, 30);
        h.recorder(1).snapshotScan(s, 0, 10, new long[] {K}, new long[] {10}, 1);
        assertCycleWith(h, EdgeKind.ANTI_DEPENDENCY, 2);

        History before = new History(2);
        before.recorder(0).batch(0, 10, new long[] {K, K2}, new long[] {10, 20}, 2);
        long early = before.recorder(1).snapshot(0, 5);
        before.recorder(1).snapshotScan(early, 0, 10, new long[0], new long[0], 0);
        assertAccepted(before);
    }

    /**
     * A snapshot concurrent with a batch sees the batch's value of key 1 and the value of key 2 before it. Two
     * rules close the cycle each: the puts before the batch (in time) ordering the chains of key 2, with the
     * snapshot's anti-dependency on the batch; and the snapshot's read of key 1 (the batch precedes it) with its
     * read of the older value of key 2 ordering the batch's write of key 2 first.
     */
    @Test
    void aSnapshotThatSeesHalfOfABatchIsACycleEvenWhenConcurrentWithIt() {
        Verdict v = LinearizabilityGraph.check(tornBatch(new long[] {11, 20}));
        assertTrue(cycleKinds(v).contains(EdgeKind.WRITE_ORDER) || cycleKinds(v).contains(EdgeKind.ANTI_DEPENDENCY),
                v::violation);
        assertEquals(2, v.cycle().size(), v::violation);
        assertAccepted(tornBatch(new long[] {10, 20}));
        assertAccepted(tornBatch(new long[] {11, 21}));
    }

    /** Keys 1 and 2 put, then a batch replaces both while a snapshot reads them with {@code seen}. */
    private static History tornBatch(long[] seen) {
        History h = put(new History(3), 0, 0, 5, K, 10, NONE);
        put(h, 0, 6, 8, K2, 20, NONE);
        h.recorder(1).batch(10, 20, new long[] {K, K2}, new long[] {11, 21}, 2);
        long s = h.recorder(2).snapshot(15, 40);
        h.recorder(2).snapshotScan(s, K, K2 + 1, new long[] {K, K2}, seen, 2);
        return h;
    }

    @Test
    void readsOfValuesNeverWrittenOrInconsistentScansAreViolationsWithoutACycle() {
        History neverWritten = new History(1);
        neverWritten.recorder(0).get(0, 1, K, 99L);
        Verdict v = LinearizabilityGraph.check(neverWritten);
        assertTrue(v.found() && v.cycle().isEmpty() && v.violation().contains("a value no operation wrote"),
                v::violation);

        History otherKey = put(new History(1), 0, 0, 1, K, 10, NONE);
        otherKey.recorder(0).get(2, 3, K2, 10L);
        assertTrue(LinearizabilityGraph.check(otherKey).violation().contains("wrote it on key 1"));

        History unordered = put(new History(1), 0, 0, 1, K, 10, NONE);
        put(unordered, 0, 2, 3, K2, 20, NONE);
        long s = unordered.recorder(0).snapshot(4, 5);
        unordered.recorder(0).snapshotScan(s, 0, 10, new long[] {K2, K}, new long[] {20, 10}, 2);
        assertTrue(LinearizabilityGraph.check(unordered).violation().contains("out of its range or order"));

        History twoValues = put(new History(1), 0, 0, 1, K, 10, NONE);
        long t = twoValues.recorder(0).snapshot(4, 5);
        twoValues.recorder(0).snapshotGet(t, K, 10L);
        twoValues.recorder(0).snapshotScan(t, 0, 10, new long[0], new long[0], 0);
        assertTrue(LinearizabilityGraph.check(twoValues).violation().contains("not a snapshot"));
    }

    @Test
    void historiesTheCheckCannotUseAreRejected() {
        History twice = put(new History(2), 0, 0, 1, K, 10, NONE);
        put(twice, 1, 0, 1, K2, 10, NONE);
        assertThrows(IllegalArgumentException.class, () -> LinearizabilityGraph.check(twice));
        History unknownSnapshot = new History(1);
        unknownSnapshot.recorder(0).snapshotGet(42, K, NONE);
        assertThrows(IllegalArgumentException.class, () -> LinearizabilityGraph.check(unknownSnapshot));
        History backwards = new History(1);
        backwards.recorder(0).get(5, 4, K, NONE);
        assertThrows(IllegalArgumentException.class, () -> LinearizabilityGraph.check(backwards));
    }
}
