package io.grove.testing;

import io.grove.testing.History.Kind;
import io.grove.testing.History.Recorder;
import io.grove.testing.Primitives.IntList;
import io.grove.testing.Primitives.LongIntMap;
import io.grove.testing.Primitives.LongList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Checks a {@link History} of an ordered map with atomic batches and snapshots for violations of linearizability,
 * the way the paper "Jiffy: A Lock-free Skip List with Batch Updates and Snapshots" checks its skip list: the
 * operations, their results and their timestamps give a graph of "is linearized before" edges, and a cycle in it
 * proves that no linearization exists.
 *
 * <p><b>Sound, not complete.</b> Every edge follows from the history and the sequential semantics of the map, so a
 * cycle is a violation, and the report names each operation of it and why each edge holds. No cycle does not
 * prove the history linearizable: deciding that is NP-complete once operations touch several keys, and the
 * inference here is a polynomial part of it (see "What it cannot see").
 *
 * <p><b>Nodes.</b> One per operation: a put, a remove, a get; a batch (atomic: all its writes at one instant); a
 * snapshot with every read made on it (a snapshot is one atomic read of the whole map at an instant inside its
 * acquisition interval). A node for the initial state writes "absent" to every key before everything. A put is a
 * read of the previous value and a write at one instant; a remove that returned a value reads it and writes
 * "absent"; a remove that returned nothing only reads "absent". A scan reads "absent" for every key of its range,
 * written anywhere in the history, that it did not return.
 *
 * <p><b>Edges</b>, "a is linearized before b", of the {@link EdgeKind kinds}:
 * <ol>
 *   <li>Real time: a responded before b was invoked. Through a chain of time nodes, one per distinct response
 *       time: a, then the time of a's response, ..., the last response before b's invocation, then b. So the
 *       order of n intervals costs O(n) edges, not O(n²).
 *   <li>Reads from: b read the value a wrote.
 *   <li>Direct successor: b (a put or a remove) returned the value a wrote as the previous one, so b's write comes
 *       right after a's in the order of that key. Writes linked so form <em>chains</em>, contiguous blocks of the
 *       key's order of writes ({@link KeyChains}).
 *   <li>Write order, inferred per key between chains, as an edge from the last write of the earlier chain to the
 *       first write of the later: a write of one chain is ordered before a write of the other (by the bounds
 *       below or by an edge); or a read ordered after a write of chain C returned a value of chain D (C before
 *       D); or a read that returned a value of D is ordered before a write of C (D before C).
 *   <li>Anti-dependency: a read of a value precedes the write that overwrote it: the next write of its chain, or
 *       for the last write of a chain, the first write of every chain known to follow. And for reads of "absent":
 *       a read of absent ordered after a put of chain C follows C's last write (classed as "reads from": the
 *       key is present from that put to C's end); a read of absent ordered before a write of C precedes C's
 *       first write (anti-dependency: present from C's first write on); a read of absent ordered before every
 *       removal of the key read the initial state and precedes every chain.
 * </ol>
 *
 * <p><b>Rounds.</b> A round sorts the graph topologically (a cycle ends the check), bounds each node's
 * linearization instant (lo: the latest invocation among the node and its ancestors; hi: the earliest response
 * among it and its descendants; hi(a) &lt; lo(b) proves a before b, and then the graph has a path from a to b)
 * and applies the rules: per key, those that compare bounds ({@link KeyChains}), for the keys whose operations'
 * bounds or edges changed since their last round; per edge added since the last round, those the edge triggers
 * on a key its two operations both touch ({@link #inferAlongEdges}). An edge the bounds already imply is not
 * added, and the rules add edges only to the frontier of each set of chains they find (the rest are reachable
 * through it). Rounds repeat until one adds no edge. Nothing recurses (Kahn's sort, breadth-first searches).
 * Measured on two cores: 120,000 single-key operations check in 0.3 to 1 s (the first check in a JVM pays for the
 * JIT); 200,000 operations with batches and snapshots (740,000 reads: a scan reads every key of its range) in 2
 * to 4 s.
 *
 * <p><b>What it cannot see.</b> Only orders it can prove from one key's chains, the bounds and the edges: where a
 * proof needs a case split (which of two concurrent removals a read of absent followed; which of two orders of
 * two unlinked writes, each order refuted by a different argument), no edge is added and a violation can pass.
 * Writes nobody reads leave no trace: a lost batch write or removal is seen only through a later read, and the
 * order of two batches' writes of a key only through reads (a batch returns nothing). Reads of absent do not name
 * the removal they saw, so a stale "absent" is caught only when a put that holds the key present, or every
 * removal, is ordered against it. Only the recorded operations count: scans of the live map, iterators and the
 * other methods of the map are not modelled. Real time is only as fine as the timestamps, which enclose the
 * call with some slack: a window narrower than that slack cannot be judged.
 */
public final class LinearizabilityGraph {
    /** The kinds of edge; a cycle's report names each edge's kind and the rule behind it. */
    public enum EdgeKind { REAL_TIME, READS_FROM, DIRECT_SUCCESSOR, WRITE_ORDER, ANTI_DEPENDENCY }

    /** The rules that add edges, each of one kind, with what it means in a report ("it": an operation). */
    enum Rule {
        REAL_TIME(EdgeKind.REAL_TIME, "it responded before the next was invoked"),
        READ_VALUE(EdgeKind.READS_FROM, "the next read the value it wrote"),
        READ_ABSENT_AFTER_CHAIN(EdgeKind.READS_FROM, "the next read the key absent, and is ordered after a put of "
                + "the chain this write ends, which holds the key present up to this write: so the next follows it"),
        RETURNED_PREVIOUS(EdgeKind.DIRECT_SUCCESSOR, "the next returned the value it wrote as the previous one: "
                + "the next's write directly follows"),
        CHAIN_ORDER_BY_BOUNDS(EdgeKind.WRITE_ORDER, "a write of its chain is ordered before a write of the next's "
                + "chain, so its chain precedes the next's"),
        CHAIN_ORDER_BY_EDGE(EdgeKind.WRITE_ORDER, "an edge leads from a write of its chain to a write of the "
                + "next's chain, so its chain precedes the next's"),
        CHAIN_ORDER_BY_READ_AFTER(EdgeKind.WRITE_ORDER, "a read ordered after a write of its chain returned a "
                + "value of the next's chain, so its chain precedes the next's"),
        CHAIN_ORDER_BY_READ_BEFORE(EdgeKind.WRITE_ORDER, "a read that returned a value of its chain is ordered "
                + "before a write of the next's chain, so its chain precedes the next's"),
        OVERWRITTEN(EdgeKind.ANTI_DEPENDENCY, "it read a value that the next overwrote (the next directly follows "
                + "that value's write, or heads a chain after the chain that write ends)"),
        ABSENT_BEFORE_CHAIN(EdgeKind.ANTI_DEPENDENCY, "it read the key absent and is ordered before a write of "
                + "the next's chain, which holds the key present from its first write (the next) on"),
        ABSENT_FROM_INITIAL(EdgeKind.ANTI_DEPENDENCY, "it read the key absent, and every removal of the key is "
                + "ordered after it: it read the initial state, so it precedes the first write of every chain, the "
                + "next among them");

        final EdgeKind kind;
        final String meaning;

        Rule(EdgeKind kind, String meaning) {
            this.kind = kind;
            this.meaning = meaning;
        }
    }

    /**
     * What a check found: {@code violation} explains the first violation found ({@code null}: none found), and
     * {@code cycle} lists the operations of the cycle that proves it (empty for a violation found without one,
     * such as a read of a value never written).
     */
    public record Verdict(String violation, List<Step> cycle, Figures figures) {
        /** Whether a violation was found. */
        public boolean found() {
            return violation != null;
        }

        /** Throws an {@link AssertionError} that explains the violation, if one was found. */
        public void assertNoViolation(String what) {
            if (found()) {
                throw new AssertionError(what + ": " + violation + "\n" + figures);
            }
        }
    }

    /** One operation of a cycle and the edge from it to the next one ({@code why}: the rule and the key). */
    public record Step(String operation, EdgeKind edge, String why) {}

    /** The size of a checked graph and the cost of the check. */
    public record Figures(int operations, int reads, int writes, int keys, int rounds, Map<EdgeKind, Long> edges,
            long millis) {
        @Override
        public String toString() {
            return operations + " operations (" + reads + " reads, " + writes + " writes, " + keys + " keys), "
                    + rounds + " rounds, edges " + edges + ", checked in " + millis + " ms";
        }
    }

    static final int INITIAL = 0;

    final History history;
    private final GraphReport report;
    private String violation;

    // nodes: the initial state, then one per operation, then one per distinct response time
    int operations;
    int nodes;
    int[] nodeThread;
    int[] nodeEvent;
    long[] invoked;
    long[] responded;
    long firstInvocation = Long.MAX_VALUE;
    long[] lo;
    long[] hi;

    // accesses: every write and read of a key, by node
    int[] writeNode;
    long[] writeKey;
    long[] writeValue;
    int[] readNode;
    long[] readKey;
    long[] readValue;
    boolean[] readReturnsPrevious;
    /** The write whose value each read returned, -1 for a read of absent. */
    int[] readSource;
    /** The chain of each write within its key, once the chains are built. */
    int[] writeChain;
    private KeyChains[] keyOfWrite;
    private KeyChains[] keyOfRead;
    private final Map<Long, KeyChains> keys = new HashMap<>();
    // each operation's writes and reads, by operation, each operation's sorted by key
    private int[] writesStart;
    private int[] writesByNode;
    private int[] readsStart;
    private int[] readsByNode;

    // edges, and their adjacency as of the current round (edge indices by node)
    final IntList edgeFrom = new IntList(1 << 16);
    final IntList edgeTo = new IntList(1 << 16);
    final List<Rule> edgeRule = new ArrayList<>(1 << 16);
    final LongList edgeKey = new LongList(1 << 16);
    final IntList edgeEarlier = new IntList(1 << 16);
    final IntList edgeLater = new IntList(1 << 16);
    private LongIntMap edgeSet;
    int[] outStart;
    int[] outEdges;
    int[] inStart;
    int[] inEdges;

    // scratch arrays of KeyChains, by node, reset after each key
    int[] chainOnKey;
    int[] nextOnKey;
    boolean[] hasPredecessorOnKey;
    int[] writeOnKey;

    private LinearizabilityGraph(History history) {
        this.history = history;
        this.report = new GraphReport(this);
    }

    /**
     * Checks {@code history}, recorded by threads that have all stopped. Throws {@link IllegalArgumentException}
     * for a history the check cannot use (two writes of one value, a read on a snapshot never acquired, ...).
     */
    public static Verdict check(History history) {
        long start = System.nanoTime();
        LinearizabilityGraph g = new LinearizabilityGraph(history);
        g.addOperations();
        g.addAccesses();
        if (g.violation == null) {
            g.checkReads();
        }
        if (g.violation != null) {
            return new Verdict(g.violation, List.of(), g.figures(0, start));
        }
        g.addTimeNodes();
        g.addReadEdges();
        return g.infer(start);
    }

    // ---------------------------------------------------------------------------------------------------- building

    private void addOperations() {
        int n = 1;
        for (int t = 0; t < history.threads(); t++) {
            Recorder r = history.recorder(t);
            for (int i = 0; i < r.size; i++) {
                n += r.kinds[i] == Kind.SNAPSHOT_GET || r.kinds[i] == Kind.SNAPSHOT_SCAN ? 0 : 1;
            }
        }
        operations = n;
        nodeThread = new int[n];
        nodeEvent = new int[n];
        nodeThread[INITIAL] = -1;
        invoked = new long[n];
        responded = new long[n];
        invoked[INITIAL] = Long.MIN_VALUE;
        responded[INITIAL] = Long.MIN_VALUE;
        int node = 1;
        for (int t = 0; t < history.threads(); t++) {
            Recorder r = history.recorder(t);
            for (int i = 0; i < r.size; i++) {
                if (r.kinds[i] != Kind.SNAPSHOT_GET && r.kinds[i] != Kind.SNAPSHOT_SCAN) {
                    if (r.invoked[i] > r.responded[i]) {
                        throw new IllegalArgumentException("thread " + t + ", operation " + i + ": invoked at "
                                + r.invoked[i] + ", after its response at " + r.responded[i]);
                    }
                    nodeThread[node] = t;
                    nodeEvent[node] = i;
                    invoked[node] = r.invoked[i];
                    responded[node] = r.responded[i];
                    firstInvocation = Math.min(firstInvocation, r.invoked[i]);
                    node++;
                }
            }
        }
    }

    /** Fills the write and read tables, merging each snapshot's reads into its node. */
    private void addAccesses() {
        IntList wNode = new IntList(operations);
        LongList wKey = new LongList(operations);
        LongList wValue = new LongList(operations);
        IntList rNode = new IntList(operations);
        LongList rKey = new LongList(operations);
        LongList rValue = new LongList(operations);
        IntList rPrevious = new IntList(operations);
        Map<Long, Integer> snapshotNode = new HashMap<>();
        for (int node = 1; node < operations; node++) {
            Recorder r = history.recorder(nodeThread[node]);
            int i = nodeEvent[node];
            long k = r.keys[i];
            switch (r.kinds[i]) {
                case PUT -> {
                    if (r.values[i] == History.ABSENT) {
                        throw new IllegalArgumentException(report.describe(node)
                                + " puts ABSENT, which stands for none");
                    }
                    add(rNode, rKey, rValue, node, k, r.results[i]);
                    rPrevious.add(1);
                    add(wNode, wKey, wValue, node, k, r.values[i]);
                }
                case REMOVE -> {
                    add(rNode, rKey, rValue, node, k, r.results[i]);
                    rPrevious.add(1);
                    if (r.results[i] != History.ABSENT) {
                        add(wNode, wKey, wValue, node, k, History.ABSENT);
                    }
                }
                case GET -> {
                    add(rNode, rKey, rValue, node, k, r.results[i]);
                    rPrevious.add(0);
                }
                case BATCH -> {
                    int at = r.extraStart[i];
                    int count = (int) r.extra[at];
                    Set<Long> seen = new HashSet<>();
                    for (int j = 0; j < count; j++) {
                        long key = r.extra[at + 1 + j];
                        if (!seen.add(key)) {
                            throw new IllegalArgumentException(report.describe(node) + " writes key " + key
                                    + " twice");
                        }
                        add(wNode, wKey, wValue, node, key, r.extra[at + 1 + count + j]);
                    }
                }
                case SNAPSHOT -> {
                    if (snapshotNode.put(r.values[i], node) != null) {
                        throw new IllegalArgumentException("snapshot id " + r.values[i] + " acquired twice");
                    }
                }
                default -> throw new IllegalStateException("not an operation: " + r.kinds[i]);
            }
        }
        long[] writtenKeys = sortedDistinct(wKey);
        // each snapshot's reads, one per key (a snapshot that read one key twice must have read one value)
        Map<Integer, Map<Long, Long>> snapshotReads = new LinkedHashMap<>();
        for (int t = 0; t < history.threads() && violation == null; t++) {
            Recorder r = history.recorder(t);
            for (int i = 0; i < r.size && violation == null; i++) {
                if (r.kinds[i] != Kind.SNAPSHOT_GET && r.kinds[i] != Kind.SNAPSHOT_SCAN) {
                    continue;
                }
                Integer node = snapshotNode.get(r.values[i]);
                if (node == null) {
                    throw new IllegalArgumentException("thread " + t + ", event " + i + " reads snapshot "
                            + r.values[i] + ", never acquired");
                }
                Map<Long, Long> reads = snapshotReads.computeIfAbsent(node, x -> new LinkedHashMap<>());
                if (r.kinds[i] == Kind.SNAPSHOT_GET) {
                    snapshotRead(reads, node, r.keys[i], r.results[i], "a get by thread " + t);
                } else {
                    snapshotScan(reads, node, r, i, writtenKeys, "a scan by thread " + t);
                }
            }
        }
        snapshotReads.forEach((node, reads) -> reads.forEach((k, v) -> {
            add(rNode, rKey, rValue, node, k, v);
            rPrevious.add(0);
        }));
        writeNode = wNode.toArray();
        writeKey = toArray(wKey);
        writeValue = toArray(wValue);
        readNode = rNode.toArray();
        readKey = toArray(rKey);
        readValue = toArray(rValue);
        readReturnsPrevious = new boolean[rPrevious.size()];
        for (int i = 0; i < readReturnsPrevious.length; i++) {
            readReturnsPrevious[i] = rPrevious.get(i) == 1;
        }
    }

    private void snapshotRead(Map<Long, Long> reads, int node, long k, long value, String by) {
        Long before = reads.putIfAbsent(k, value);
        if (before != null && before != value && violation == null) {
            violation = "not a snapshot: " + report.describe(node) + " read key " + k + " as "
                    + report.show(before) + " and, in " + by + ", as " + report.show(value);
        }
    }

    private void snapshotScan(Map<Long, Long> reads, int node, Recorder r, int i, long[] writtenKeys, String by) {
        int at = r.extraStart[i];
        long from = r.extra[at];
        long to = r.extra[at + 1];
        int count = (int) r.extra[at + 2];
        Map<Long, Long> returned = new HashMap<>();
        long previous = Long.MIN_VALUE;
        for (int j = 0; j < count; j++) {
            long k = r.extra[at + 3 + j];
            if (k < from || k >= to || (j > 0 && k <= previous)) {
                violation = "a scan of [" + from + ", " + to + ") on " + report.describe(node) + " returned key " + k
                        + (j > 0 ? " after " + previous : "") + ": out of its range or order";
                return;
            }
            previous = k;
            returned.put(k, r.extra[at + 3 + count + j]);
        }
        int first = Arrays.binarySearch(writtenKeys, from);
        for (int j = first < 0 ? -first - 1 : first; j < writtenKeys.length && writtenKeys[j] < to; j++) {
            Long v = returned.remove(writtenKeys[j]);
            snapshotRead(reads, node, writtenKeys[j], v == null ? History.ABSENT : v, by);
        }
        // keys returned that no write ever put
        returned.forEach((k, v) -> snapshotRead(reads, node, k, v, by));
    }

    /** Finds each read value's write; a value never written, or written on another key, is a violation. */
    private void checkReads() {
        LongIntMap writeOfValue = new LongIntMap(writeNode.length);
        keyOfWrite = new KeyChains[writeNode.length];
        for (int w = 0; w < writeNode.length; w++) {
            keyOfWrite[w] = keyChains(writeKey[w]);
            keyOfWrite[w].writes.add(w);
            if (writeValue[w] != History.ABSENT) {
                int other = writeOfValue.putIfAbsent(writeValue[w], w);
                if (other != -1) {
                    throw new IllegalArgumentException("the value " + writeValue[w] + " is written twice, by "
                            + report.describe(writeNode[other]) + " and by " + report.describe(writeNode[w])
                            + ": each write needs a value of its own (Recorder.newValue)");
                }
            }
        }
        keyOfRead = new KeyChains[readNode.length];
        readSource = new int[readNode.length];
        for (int r = 0; r < readNode.length && violation == null; r++) {
            keyOfRead[r] = keyChains(readKey[r]);
            keyOfRead[r].reads.add(r);
            int w = readValue[r] == History.ABSENT ? -1 : writeOfValue.get(readValue[r]);
            readSource[r] = w;
            if (w == -1 && readValue[r] != History.ABSENT) {
                violation = report.describe(readNode[r]) + " read " + report.show(readValue[r]) + " on key "
                        + readKey[r] + ", a value no operation wrote";
            } else if (w != -1 && writeKey[w] != readKey[r]) {
                violation = report.describe(readNode[r]) + " read " + report.show(readValue[r]) + " on key "
                        + readKey[r] + ", but " + report.describe(writeNode[w]) + " wrote it on key " + writeKey[w];
            } else if (w != -1 && writeNode[w] == readNode[r]) {
                violation = report.describe(readNode[r]) + " returned its own value " + report.show(readValue[r])
                        + " as the previous value of key " + readKey[r];
            }
        }
    }

    private KeyChains keyChains(long key) {
        return keys.computeIfAbsent(key, KeyChains::new);
    }

    /**
     * Real-time order through time nodes: one per distinct response time, in order; each operation leads to the
     * node of its response, and the node of the last response before an operation's invocation leads to it.
     */
    private void addTimeNodes() {
        long[] times = Arrays.copyOf(responded, operations);
        Arrays.sort(times);
        int distinct = 0;
        for (int i = 0; i < times.length; i++) {
            if (i == 0 || times[i] != times[i - 1]) {
                times[distinct++] = times[i];
            }
        }
        nodes = operations + distinct;
        invoked = Arrays.copyOf(invoked, nodes);
        responded = Arrays.copyOf(responded, nodes);
        for (int j = 0; j < distinct; j++) {
            invoked[operations + j] = times[j];
            responded[operations + j] = times[j];
            if (j > 0) {
                addTimeEdge(operations + j - 1, operations + j);
            }
        }
        for (int node = 0; node < operations; node++) {
            addTimeEdge(node, operations + Arrays.binarySearch(times, 0, distinct, responded[node]));
            if (node != INITIAL) {
                int before = Arrays.binarySearch(times, 0, distinct, invoked[node]);
                int last = (before >= 0 ? before : -before - 1) - 1;
                addTimeEdge(operations + last, node);
            }
        }
        lo = Arrays.copyOf(invoked, nodes);
        hi = Arrays.copyOf(responded, nodes);
        chainOnKey = new int[nodes];
        Arrays.fill(chainOnKey, -1);
        nextOnKey = new int[operations];
        Arrays.fill(nextOnKey, -1);
        hasPredecessorOnKey = new boolean[operations];
        writeOnKey = new int[operations];
    }

    private void addTimeEdge(int from, int to) {
        edgeFrom.add(from);
        edgeTo.add(to);
        edgeRule.add(Rule.REAL_TIME);
        edgeKey.add(History.ABSENT);
        edgeEarlier.add(-1);
        edgeLater.add(-1);
    }

    /**
     * Reads from and direct successors, and the anti-dependency of each read of a value on every write that
     * returned that value as the previous one (more than one such write is a lost update: each then precedes the
     * other).
     */
    private void addReadEdges() {
        edgeSet = new LongIntMap(4 * readNode.length);
        int[] successorCount = new int[writeNode.length + 1];
        for (int r = 0; r < readNode.length; r++) {
            if (readValue[r] != History.ABSENT) {
                int w = readSource[r];
                addEdge(writeNode[w], readNode[r], readReturnsPrevious[r] ? Rule.RETURNED_PREVIOUS : Rule.READ_VALUE,
                        readKey[r], -1, -1);
                successorCount[w + 1] += readReturnsPrevious[r] ? 1 : 0;
            }
        }
        for (int w = 0; w < writeNode.length; w++) {
            successorCount[w + 1] += successorCount[w];
        }
        int[] successors = new int[successorCount[writeNode.length]];
        int[] filled = Arrays.copyOf(successorCount, writeNode.length);
        for (int r = 0; r < readNode.length; r++) {
            if (readValue[r] != History.ABSENT && readReturnsPrevious[r]) {
                successors[filled[readSource[r]]++] = readNode[r];
            }
        }
        for (int r = 0; r < readNode.length; r++) {
            if (readValue[r] != History.ABSENT) {
                int w = readSource[r];
                for (int s = successorCount[w]; s < successorCount[w + 1]; s++) {
                    if (successors[s] != readNode[r]) {
                        addEdge(readNode[r], successors[s], Rule.OVERWRITTEN, readKey[r], -1, -1);
                    }
                }
            }
        }
    }

    /**
     * Adds the edge {@code from -> to} unless the graph has it already, or implies it: hi(from) &lt; lo(to) (as of
     * the round's start) proves a path from one to the other (see {@link #computeBounds}). {@code earlier} and
     * {@code later} (-1: none) are the operations, ordered so by the graph, that show why the edge holds. Returns
     * 1 if added, else 0.
     */
    int addEdge(int from, int to, Rule rule, long key, int earlier, int later) {
        if (from == to) {
            throw new IllegalStateException(rule + " on key " + key + " would order " + report.describe(from)
                    + " before itself");
        }
        if (hi[from] < lo[to] || edgeSet.putIfAbsent(((long) from << 32) | to, 0) != -1) {
            return 0;
        }
        edgeFrom.add(from);
        edgeTo.add(to);
        edgeRule.add(rule);
        edgeKey.add(key);
        edgeEarlier.add(earlier);
        edgeLater.add(later);
        return 1;
    }

    int edgeFrom(int edge) {
        return edgeFrom.get(edge);
    }

    int edgeTo(int edge) {
        return edgeTo.get(edge);
    }

    // ---------------------------------------------------------------------------------------------------- rounds

    /**
     * The rounds. A key's rules depend only on the bounds of the operations that touch it and on the edges from
     * the last writes of its chains, so a round applies them only to the keys where one of these changed since
     * the key's last round; and an edge's own rules ({@link #inferAlongEdges}) depend on the chains alone, so
     * each edge triggers them once.
     */
    private Verdict infer(long start) {
        long[] previousLo = new long[nodes];
        long[] previousHi = new long[nodes];
        int edgesBefore = 0;
        for (int round = 1; ; round++) {
            buildAdjacency();
            int[] order = new int[nodes];
            int[] waiting = new int[nodes];
            if (sortTopologically(order, waiting) < nodes) {
                List<Step> cycle = report.shortestCycle(waiting);
                return new Verdict(report.explain(cycle), cycle, figures(round, start));
            }
            computeBounds(order);
            if (round == 1) {
                writeChain = new int[writeNode.length];
                for (KeyChains k : keys.values()) {
                    k.buildChains(this);
                    k.changed = true;
                }
                indexAccessesByNode();
            } else {
                markChangedKeys(previousLo, previousHi, edgesBefore);
            }
            System.arraycopy(lo, 0, previousLo, 0, nodes);
            System.arraycopy(hi, 0, previousHi, 0, nodes);
            int edgesNow = edgeFrom.size();
            int added = inferAlongEdges(edgesBefore, edgesNow);
            edgesBefore = edgesNow;
            for (KeyChains k : keys.values()) {
                if (k.changed) {
                    k.changed = false;
                    added += k.infer(this);
                }
            }
            if (added == 0) {
                return new Verdict(null, List.of(), figures(round, start));
            }
        }
    }

    /**
     * Marks the keys touched by an operation whose bounds changed since the last round, or that an edge added
     * since {@code edgesBefore} joins.
     */
    private void markChangedKeys(long[] previousLo, long[] previousHi, int edgesBefore) {
        for (int v = 1; v < operations; v++) {
            if (lo[v] != previousLo[v] || hi[v] != previousHi[v]) {
                markKeysOf(v);
            }
        }
        for (int e = edgesBefore; e < edgeFrom.size(); e++) {
            markKeysOf(edgeFrom.get(e));
            markKeysOf(edgeTo.get(e));
        }
    }

    private void markKeysOf(int node) {
        if (node < operations) {
            for (int i = writesStart[node]; i < writesStart[node + 1]; i++) {
                keyOfWrite[writesByNode[i]].changed = true;
            }
            for (int i = readsStart[node]; i < readsStart[node + 1]; i++) {
                keyOfRead[readsByNode[i]].changed = true;
            }
        }
    }

    /** Each operation's writes and reads, sorted by key, for {@link #inferAlongEdges}. */
    private void indexAccessesByNode() {
        writesStart = new int[operations + 1];
        writesByNode = byNode(writeNode, writeKey, writesStart);
        readsStart = new int[operations + 1];
        readsByNode = byNode(readNode, readKey, readsStart);
    }

    private int[] byNode(int[] nodeOf, long[] keyOf, int[] start) {
        for (int node : nodeOf) {
            start[node + 1]++;
        }
        for (int v = 0; v < operations; v++) {
            start[v + 1] += start[v];
        }
        int[] fill = Arrays.copyOf(start, operations);
        int[] byNode = new int[nodeOf.length];
        for (int i = 0; i < nodeOf.length; i++) {
            byNode[fill[nodeOf[i]]++] = i;
        }
        for (int v = 0; v < operations; v++) {
            // insertion sort: an operation touches few keys, a snapshot at most a scan's range
            for (int i = start[v] + 1; i < start[v + 1]; i++) {
                int x = byNode[i];
                int j = i - 1;
                for (; j >= start[v] && keyOf[byNode[j]] > keyOf[x]; j--) {
                    byNode[j + 1] = byNode[j];
                }
                byNode[j + 1] = x;
            }
        }
        return byNode;
    }

    /** The access of {@code node} to {@code key} in {@code byNode} (sorted by key from {@code start}), or -1. */
    private static int find(int[] start, int[] byNode, long[] keyOf, int node, long key) {
        int lo = start[node];
        int hi = start[node + 1] - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long k = keyOf[byNode[mid]];
            if (k < key) {
                lo = mid + 1;
            } else if (k > key) {
                hi = mid - 1;
            } else {
                return byNode[mid];
            }
        }
        return -1;
    }

    /**
     * The rules that each edge a -> b, edges {@code from} to {@code to} (exclusive), triggers on a key both touch
     * (whatever the edge's own key or rule: a snapshot's read of one key orders it after a batch that wrote
     * several):
     * <ul>
     *   <li>both write the key: a's chain precedes b's (write order by an edge);
     *   <li>a writes it, b read a value of another chain: a's chain precedes that chain (write order by reads);
     *   <li>a puts it, b read it absent: b follows the end of a's chain (absent after a chain);
     *   <li>b writes it, a read a value of another chain: that chain precedes b's (write order by reads);
     *   <li>b writes it, a read it absent: a precedes the first write of b's chain (absent before a chain).
     * </ul>
     */
    private int inferAlongEdges(int from, int to) {
        int added = 0;
        for (int e = from; e < to; e++) {
            int a = edgeFrom.get(e);
            int b = edgeTo.get(e);
            if (a == INITIAL || a >= operations || b >= operations) {
                continue;
            }
            for (int i = writesStart[a]; i < writesStart[a + 1]; i++) {
                int wa = writesByNode[i];
                long key = writeKey[wa];
                KeyChains k = keyOfWrite[wa];
                int ca = writeChain[wa];
                int wb = find(writesStart, writesByNode, writeKey, b, key);
                int cb = wb == -1 ? -1 : writeChain[wb];
                if (cb != -1 && cb != ca) {
                    added += addEdge(k.tail(ca), k.head(cb), Rule.CHAIN_ORDER_BY_EDGE, key, a, b);
                }
                int rb = find(readsStart, readsByNode, readKey, b, key);
                if (rb != -1 && readValue[rb] != History.ABSENT) {
                    int source = writeChain[readSource[rb]];
                    if (source != ca) {
                        added += addEdge(k.tail(ca), k.head(source), Rule.CHAIN_ORDER_BY_READ_AFTER, key, a, b);
                    }
                } else if (rb != -1 && writeValue[wa] != History.ABSENT && cb != ca) {
                    added += addEdge(k.tail(ca), b, Rule.READ_ABSENT_AFTER_CHAIN, key, a, b);
                }
            }
            for (int i = writesStart[b]; i < writesStart[b + 1]; i++) {
                int wb = writesByNode[i];
                long key = writeKey[wb];
                int ra = find(readsStart, readsByNode, readKey, a, key);
                if (ra == -1) {
                    continue;
                }
                KeyChains k = keyOfWrite[wb];
                int cb = writeChain[wb];
                if (readValue[ra] != History.ABSENT) {
                    int source = writeChain[readSource[ra]];
                    if (source != cb) {
                        added += addEdge(k.tail(source), k.head(cb), Rule.CHAIN_ORDER_BY_READ_BEFORE, key, a, b);
                    }
                } else {
                    int wa = find(writesStart, writesByNode, writeKey, a, key);
                    if (wa == -1 || writeChain[wa] != cb) {
                        added += addEdge(a, k.head(cb), Rule.ABSENT_BEFORE_CHAIN, key, a, b);
                    }
                }
            }
        }
        return added;
    }

    private void buildAdjacency() {
        int m = edgeFrom.size();
        outStart = new int[nodes + 1];
        inStart = new int[nodes + 1];
        for (int e = 0; e < m; e++) {
            outStart[edgeFrom.get(e) + 1]++;
            inStart[edgeTo.get(e) + 1]++;
        }
        for (int v = 0; v < nodes; v++) {
            outStart[v + 1] += outStart[v];
            inStart[v + 1] += inStart[v];
        }
        outEdges = new int[m];
        inEdges = new int[m];
        int[] outFill = Arrays.copyOf(outStart, nodes);
        int[] inFill = Arrays.copyOf(inStart, nodes);
        for (int e = 0; e < m; e++) {
            outEdges[outFill[edgeFrom.get(e)]++] = e;
            inEdges[inFill[edgeTo.get(e)]++] = e;
        }
    }

    /**
     * Kahn's sort: fills {@code order} with the nodes in a topological order and returns how many it placed, fewer
     * than all if the graph has a cycle; {@code waiting[v]} ends as the number of v's predecessors left unplaced.
     */
    private int sortTopologically(int[] order, int[] waiting) {
        int size = 0;
        for (int v = 0; v < nodes; v++) {
            waiting[v] = inStart[v + 1] - inStart[v];
            if (waiting[v] == 0) {
                order[size++] = v;
            }
        }
        for (int i = 0; i < size; i++) {
            int v = order[i];
            for (int e = outStart[v]; e < outStart[v + 1]; e++) {
                int w = edgeTo.get(outEdges[e]);
                if (--waiting[w] == 0) {
                    order[size++] = w;
                }
            }
        }
        return size;
    }

    /**
     * lo: the latest invocation among a node and its ancestors; hi: the earliest response among it and its
     * descendants. A node is linearized inside [lo, hi]. If hi(a) &lt; lo(b), the graph has a path from a to b:
     * from a to the descendant x whose response is hi(a), from the ancestor y of b whose invocation is lo(b) to
     * b, and from x to y in real time.
     */
    private void computeBounds(int[] order) {
        System.arraycopy(invoked, 0, lo, 0, nodes);
        System.arraycopy(responded, 0, hi, 0, nodes);
        for (int v : order) {
            for (int e = outStart[v]; e < outStart[v + 1]; e++) {
                int w = edgeTo.get(outEdges[e]);
                lo[w] = Math.max(lo[w], lo[v]);
            }
        }
        for (int i = nodes - 1; i >= 0; i--) {
            int v = order[i];
            for (int e = outStart[v]; e < outStart[v + 1]; e++) {
                hi[v] = Math.min(hi[v], hi[edgeTo.get(outEdges[e])]);
            }
        }
    }

    private Figures figures(int rounds, long start) {
        Map<EdgeKind, Long> edges = new EnumMap<>(EdgeKind.class);
        for (EdgeKind k : EdgeKind.values()) {
            edges.put(k, 0L);
        }
        for (Rule rule : edgeRule) {
            edges.merge(rule.kind, 1L, Long::sum);
        }
        return new Figures(operations - 1, readNode == null ? 0 : readNode.length,
                writeNode == null ? 0 : writeNode.length, keys.size(), rounds, Collections.unmodifiableMap(edges),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    private static void add(IntList nodes, LongList keys, LongList values, int node, long key, long value) {
        nodes.add(node);
        keys.add(key);
        values.add(value);
    }

    private static long[] toArray(LongList list) {
        long[] a = new long[list.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = list.get(i);
        }
        return a;
    }

    private static long[] sortedDistinct(LongList list) {
        return Arrays.stream(toArray(list)).sorted().distinct().toArray();
    }
}
